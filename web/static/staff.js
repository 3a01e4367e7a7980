// Staff console: live regions, fresh request keys, confirmations, one submit per click.
// No inline scripts (the CSP forbids them): pages mark what they need with data-* attributes.
(function () {
  "use strict";

  // A fresh idempotency key per form as it appears: a double click sends one request.
  function freshKeys(root) {
    (root || document).querySelectorAll("input[data-fresh-key]").forEach(function (input) {
      if (!input.value) {
        input.value = (window.crypto && crypto.randomUUID) ? crypto.randomUUID()
          : String(Date.now()) + Math.random().toString(16).slice(2);
      }
    });
  }

  // Live regions: data-live="URL" answers {"html": ...} or {"parts": {key: html}} (each part
  // replaces the element with data-part="key" inside the region). Polled every
  // data-live-every ms (default 2000), replaced only when the words changed.
  function live(region) {
    var url = region.dataset.live, every = Number(region.dataset.liveEvery || 2000);
    var last = {};
    function swap(el, html, key) {
      if (last[key] === html) return;
      if (last[key] === undefined && el.innerHTML.trim() === html.trim()) { last[key] = html; return; }
      last[key] = html;
      var focused = document.activeElement && el.contains(document.activeElement);
      if (focused && document.activeElement.tagName !== "BUTTON") return;  // keep what is typed
      el.innerHTML = html;
      freshKeys(el);
      el.dispatchEvent(new CustomEvent("live:updated", {bubbles: true}));
    }
    function apply(data) {
      if (typeof data.html === "string") swap(region, data.html, "");
      if (data.parts) {
        Object.keys(data.parts).forEach(function (key) {
          var el = region.querySelector('[data-part="' + CSS.escape(key) + '"]');
          if (el) swap(el, data.parts[key], key);
        });
      }
      region.classList.remove("stale");
    }
    function poll() {
      fetch(url, {headers: {"Accept": "application/json"}, credentials: "same-origin"})
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (data) { if (data) apply(data); else region.classList.add("stale"); })
        .catch(function () { region.classList.add("stale"); })
        .then(function () { setTimeout(poll, every); });
    }
    setTimeout(poll, Math.min(every, 1000));
  }

  // Destructive actions: form[data-confirm="question"] asks in a dialog first.
  var dialog = null;
  function ask(question, okLabel, then) {
    if (!dialog) {
      dialog = document.createElement("dialog");
      dialog.className = "confirm-dialog";
      dialog.innerHTML = '<p class="confirm-question"></p><div class="row">' +
        '<button type="button" class="btn" value="cancel"></button>' +
        '<button type="button" class="btn btn-danger" value="ok"></button></div>';
      document.body.appendChild(dialog);
      dialog.addEventListener("click", function (e) {
        if (e.target.tagName === "BUTTON") dialog.close(e.target.value);
      });
    }
    var labels = (document.getElementById("staff-words") || document.body).dataset;
    dialog.querySelector(".confirm-question").textContent = question;
    dialog.querySelector('[value="cancel"]').textContent = labels.tCancel || "Cancel";
    dialog.querySelector('[value="ok"]').textContent = okLabel || labels.tOk || "OK";
    dialog.returnValue = "";
    dialog.onclose = function () { if (dialog.returnValue === "ok") then(); };
    dialog.showModal();
    dialog.querySelector('[value="cancel"]').focus();
  }

  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (form.dataset.confirm && !form.dataset.confirmed) {
      e.preventDefault();
      var submitter = e.submitter;
      ask(form.dataset.confirm, form.dataset.confirmOk, function () {
        form.dataset.confirmed = "1";
        if (form.requestSubmit) form.requestSubmit(submitter || undefined); else form.submit();
      });
      return;
    }
    if (form.dataset.sending) { e.preventDefault(); return; }
    if ((form.method || "").toLowerCase() === "post") form.dataset.sending = "1";
  }, true);

  document.addEventListener("DOMContentLoaded", function () {
    freshKeys(document);
    document.querySelectorAll("[data-live]").forEach(live);
  });
  // A page shown again from the back/forward cache may submit again.
  window.addEventListener("pageshow", function () {
    document.querySelectorAll("form[data-sending]").forEach(function (f) { delete f.dataset.sending; });
  });
})();
