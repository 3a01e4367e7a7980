// The floor beside the game on the tablet (templates/tablet/_floor.html): call staff,
// start the game staff made ready, and a member's own settlement confirmation with
// their member number. The part's words come from the server (live.js refreshes it).
(function () {
  "use strict";
  var box = document.getElementById("floor-extras");
  if (!box) return;
  var d = box.dataset;
  var token = (document.querySelector('meta[name="csrf-token"]') || {}).content;

  function post(url, body) {
    return fetch(url, {method: "POST", credentials: "same-origin",
      headers: {"Content-Type": "application/json", "Accept": "application/json", "X-CSRF-Token": token},
      body: JSON.stringify(body || {})}).then(function (r) {
        return r.json().then(function (data) { data._status = r.status; return data; });
      });
  }
  function say(text) {
    var notice = document.getElementById("notice");
    if (notice) { notice.textContent = text; notice.hidden = false; notice.className = "notice error"; }
  }
  function offline() { say(d.tNeedServer); }   // a member's number is checked by the server
  function refresh() {   // the part now, not at the next poll
    fetch(box.dataset.live, {headers: {"Accept": "application/json"}, credentials: "same-origin"})
      .then(function (r) { return r.json(); })
      .then(function (data) { if (data.parts) box.querySelector("[data-part=live]").innerHTML = data.parts.live; })
      .catch(function () {});   // the part stays as it was; the next poll tries again
  }

  box.addEventListener("click", function (e) {
    var b = e.target.closest("button");
    if (!b) return;
    if (b.dataset.callReason) {
      b.disabled = true;
      post(d.callUrl, {reason: b.dataset.callReason}).then(function (res) {
        if (!res.ok) say(res.error.message); refresh();
      }).catch(offline).then(function () { b.disabled = false; });
    } else if (b.hasAttribute("data-call-cancel")) {
      post(d.cancelUrl, {}).then(refresh).catch(offline);
    } else if (b.dataset.startSeating) {
      b.disabled = true;
      post(d.startUrl.replace(/\/0\/start$/, "/" + b.dataset.startSeating + "/start"), {})
        .then(function (res) {
          if (res.ok) { window.location.reload(); } else { say(res.error.message); b.disabled = false; }
        }).catch(function () { offline(); b.disabled = false; });
    }
  });

  // A member confirms the settlement for themself: with their own member number.
  function askNumber(name, then) {
    var input = null;
    var dialog = window.jantakuLive.ask("member-no",
      '<form method="dialog"><p class="q"></p><input name="no" class="big" autocomplete="off" inputmode="text">' +
      '<p class="hint" data-testid="member-no-hint"></p>' +
      '<div class="row"><button class="btn" value="cancel"></button><button class="btn primary" value="ok"></button></div></form>', {
        ".q": d.tMemberNo.replace("{name}", name),
        ".hint": d.tMemberHint || "",   // where the number is
        '[value="cancel"]': d.tCancel,
        '[value="ok"]': d.tOk
      }, function (dlg) { if (dlg.returnValue === "ok" && input.value.trim()) then(input.value.trim()); });
    input = dialog.querySelector("input");
    input.value = "";
    input.focus();
  }
  document.addEventListener("click", function (e) {
    var b = e.target.closest(".confirm-result");
    var info = box.querySelector("[data-members]");
    if (!b || !info) return;
    var members = JSON.parse(info.dataset.members), seat = members[b.dataset.seat];
    if (!seat || !seat.member) return;           // a guest confirms at the tablet as before
    e.preventDefault();
    e.stopImmediatePropagation();
    askNumber(seat.name, function (number) {
      post(d.confirmUrl.replace(/\/0\/confirm$/, "/" + info.dataset.game + "/confirm"),
           {seat: Number(b.dataset.seat), member_no: number}).then(function (res) {
        if (res.ok) window.location.reload(); else say(res.error.message);
      }).catch(offline);
    });
  }, true);
})();
