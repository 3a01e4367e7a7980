// The correction form of the staff game page: the entry's kind, names instead of seat
// numbers, han/fu (or fan, yakuman, tiles) as the rules enter them, riichi and tenpai,
// and a preview of the whole game's scores before and after, asked from the server (the
// engine prices it; nothing is priced here). The JSON box is the advanced fallback.
(function () {
  "use strict";
  var panel = document.getElementById("fix");
  var dataEl = document.getElementById("fix-data");
  if (!panel || !dataEl) return;
  var D = JSON.parse(dataEl.textContent), W = D.words;
  var form = panel.querySelector("form"), box = panel.querySelector("[data-fix-fields]");
  var json = form.elements.event, preview = panel.querySelector("[data-fix-preview]");
  var KINDS = ["ron", "tsumo", "draw", "abort", "chombo", "penalty", "end"];
  var seq = null, ev = null, orig = null, timer = null, jsonEdited = false;

  function el(tag, attrs, kids) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") e.textContent = attrs[k];
      else if (k === "on") Object.keys(attrs.on).forEach(function (n) { e.addEventListener(n, attrs.on[n]); });
      else if (attrs[k] !== undefined && attrs[k] !== null && attrs[k] !== false) e.setAttribute(k, attrs[k]);
    });
    (kids || []).forEach(function (c) { if (c) e.appendChild(c); });
    return e;
  }
  function field(label, control) {
    // a group of checkboxes is not one control: its box is not a <label>
    var tag = control.tagName === "FIELDSET" ? "div" : "label";
    return el(tag, {"class": "fix-field"}, [el("span", {text: label}), control]);
  }
  function options(sel, list, value) {
    list.forEach(function (o) {
      var opt = el("option", {value: String(o[0]), text: o[1]});
      if (String(o[0]) === String(value)) opt.selected = true;
      sel.appendChild(opt);
    });
    return sel;
  }
  function seatSelect(value, onchange, none) {
    var list = D.names.map(function (n, i) { return [i, n]; });
    if (none) list.unshift(["", W.none]);
    return options(el("select", {on: {change: onchange}}), list, value === undefined ? "" : value);
  }
  function people(chosen, onchange, name) {
    var fs = el("fieldset", {"class": "checks", "data-name": name});
    D.names.forEach(function (n, i) {
      var cb = el("input", {type: "checkbox", value: String(i)});
      cb.checked = (chosen || []).indexOf(i) >= 0;
      cb.addEventListener("change", function () {
        onchange(Array.prototype.filter.call(fs.querySelectorAll("input"), function (c) { return c.checked; })
          .map(function (c) { return Number(c.value); }));
      });
      fs.appendChild(el("label", {"class": "check"}, [cb, el("span", {text: n})]));
    });
    return fs;
  }
  function number(value, min, max, onchange) {
    return el("input", {type: "number", inputmode: "numeric", min: min, max: max, value: value === undefined ? "" : value,
      on: {input: function (e) { onchange(e.target.value === "" ? null : Number(e.target.value)); }}});
  }
  function kindOf(e) {
    if (!e) return "ron";
    if (e.event === "win") return "from" in e ? "ron" : "tsumo";
    return e.event;
  }
  function hans(kind) {
    var seen = {}, out = [];
    (D.pairs[kind === "tsumo" ? "tsumo" : "ron"] || []).forEach(function (p) {
      if (!seen[p[0]]) { seen[p[0]] = true; out.push([p[0], p[0] + " " + W.han]); }
    });
    return out;
  }
  function fus(kind, han) {
    return (D.pairs[kind === "tsumo" ? "tsumo" : "ron"] || []).filter(function (p) { return p[0] === han && p[1]; })
      .map(function (p) { return [p[1], p[1] + " " + W.fu]; });
  }
  function winnerMode(w) {
    if (D.family === "mcr") return "fan";
    if (w.hand && !w.han && !w.yakuman) return "tiles";
    return w.yakuman ? "yakuman" : "hanfu";
  }

  // ---------------------------------------------------------------- the fields of one kind
  function winnerBox(w, i, kind) {
    var fs = el("fieldset", {"class": "winner"}, [el("legend", {text: W.winner + (ev.winners.length > 1 ? " " + (i + 1) : "")})]);
    fs.appendChild(field(W.winner, seatSelect(w.seat, function (e) { w.seat = Number(e.target.value); changed(); })));
    var mode = w._mode || winnerMode(w);
    w._mode = mode;
    if (D.family === "mcr") {
      fs.appendChild(field(W.fan, number(w.fan, 1, 999, function (v) { w.fan = v; changed(); })));
    } else {
      var modes = [["hanfu", W.by_hanfu], ["yakuman", W.yakuman]];
      if (w.hand) modes.push(["tiles", W.by_tiles]);
      fs.appendChild(field(W.what, options(el("select", {on: {change: function (e) { w._mode = e.target.value; render(); }}}), modes, mode)));
      if (mode === "hanfu") {
        var han = w.han || 1;
        fs.appendChild(field(W.han, options(el("select", {"data-testid": "fix-han-" + i, on: {change: function (e) {
          w.han = Number(e.target.value); var f = fus(kind, w.han); w.fu = f.length ? (f.some(function (x) { return x[0] === w.fu; }) ? w.fu : f[0][0]) : null; render(); }}}), hans(kind), han)));
        var f = fus(kind, han);
        if (D.use_fu && f.length) {
          fs.appendChild(field(W.fu, options(el("select", {"data-testid": "fix-fu-" + i, on: {change: function (e) { w.fu = Number(e.target.value); changed(); }}}), f, w.fu || f[0][0])));
        }
      } else if (mode === "yakuman") {
        var ys = []; for (var y = 1; y <= D.max_yakuman; y++) ys.push([y, W.yakuman + " ×" + y]);
        fs.appendChild(field(W.yakuman, options(el("select", {on: {change: function (e) { w.yakuman = Number(e.target.value); changed(); }}}), ys, w.yakuman || 1)));
      } else {
        w.hand = w.hand || {hand: "", win: ""};
        [["hand", W.hand], ["win", W.win_tile], ["dora", W.dora_tiles], ["ura", W.ura_tiles]].forEach(function (p) {
          fs.appendChild(field(p[1], el("input", {value: w.hand[p[0]] || "", spellcheck: "false",
            on: {input: function (e) { w.hand[p[0]] = e.target.value; changed(); }}})));
        });
      }
    }
    if (D.chips) fs.appendChild(field(W.chips, number(w.chips || 0, 0, 200, function (v) { w.chips = v; changed(); })));
    if (ev.winners.length > 1) {
      fs.appendChild(el("button", {type: "button", "class": "btn btn-small", text: W.remove_winner,
        on: {click: function () { ev.winners.splice(i, 1); render(); }}}));
    }
    return fs;
  }

  function render() {
    box.innerHTML = "";
    var kind = kindOf(ev);
    var bar = el("div", {"class": "kind-bar", role: "radiogroup"});
    KINDS.forEach(function (k) {
      bar.appendChild(el("button", {type: "button", "class": "btn btn-small" + (k === kind ? " on" : ""), "aria-pressed": String(k === kind),
        "data-kind": k, text: W[k], on: {click: function () { switchKind(k); }}}));
    });
    box.appendChild(bar);
    if (kind === "ron" || kind === "tsumo") {
      ev.winners.forEach(function (w, i) { box.appendChild(winnerBox(w, i, kind)); });
      if (kind === "ron") {
        box.appendChild(field(W.discarder, seatSelect(ev.from, function (e) { ev.from = Number(e.target.value); changed(); })));
        if (ev.winners.length < D.players - 1) {
          box.appendChild(el("button", {type: "button", "class": "btn btn-small", text: W.add_winner, on: {click: function () {
            var free = D.names.map(function (_, i) { return i; }).filter(function (i) {
              return i !== ev.from && !ev.winners.some(function (w) { return w.seat === i; }); });
            ev.winners.push({seat: free[0], han: 1, fu: 30}); render(); }}}));
        }
      }
      box.appendChild(field(W.riichi, people(ev.riichi, function (v) { ev.riichi = v; changed(); }, "riichi")));
    } else if (kind === "draw") {
      box.appendChild(field(W.tenpai, people(ev.tenpai, function (v) { ev.tenpai = v; changed(); }, "tenpai")));
      box.appendChild(field(W.riichi, people(ev.riichi, function (v) { ev.riichi = v; changed(); }, "riichi")));
      box.appendChild(field(W.nagashi, people(ev.nagashi, function (v) { ev.nagashi = v; changed(); }, "nagashi")));
      if (D.chombo_at_draw || (ev.chombo || []).length) {
        box.appendChild(field(W.chombo_at_draw, people(ev.chombo, function (v) { ev.chombo = v; changed(); }, "chombo")));
      }
    } else if (kind === "abort") {
      box.appendChild(field(W.kind, options(el("select", {on: {change: function (e) { ev.kind = e.target.value; changed(); }}}),
        D.abort_kinds.map(function (k) { return [k, W["abort." + k]]; }), ev.kind)));
      box.appendChild(field(W.riichi, people(ev.riichi, function (v) { ev.riichi = v; changed(); }, "riichi")));
    } else if (kind === "chombo") {
      box.appendChild(field(W.seat, seatSelect(ev.seat, function (e) { ev.seat = Number(e.target.value); changed(); })));
      box.appendChild(field(W.riichi, people(ev.riichi, function (v) { ev.riichi = v; changed(); }, "riichi")));
    } else if (kind === "penalty") {
      box.appendChild(field(W.seat, seatSelect(ev.seat, function (e) { ev.seat = Number(e.target.value); changed(); })));
      box.appendChild(field(W.kind, options(el("select", {on: {change: function (e) { ev.kind = e.target.value; render(); }}}),
        D.penalty_kinds.map(function (k) { return [k, W["penalty." + k]]; }), ev.kind)));
      if (ev.kind === "points") box.appendChild(field(W.points, number(ev.points, 1, 1000000, function (v) { ev.points = v; changed(); })));
      box.appendChild(field(W.to, seatSelect(ev.to, function (e) { ev.to = e.target.value === "" ? null : Number(e.target.value); changed(); }, true)));
    } else if (kind === "end") {
      box.appendChild(field(W.reason_end, options(el("select", {on: {change: function (e) { ev.reason = e.target.value || null; changed(); }}}),
        [["", W.none]].concat(D.end_reasons.map(function (k) { return [k, W["end." + k]]; })), ev.reason || "")));
    }
    changed();
  }

  function switchKind(k) {
    var riichi = ev.riichi || [];
    var firstWinner = (ev.winners && ev.winners[0]) || {seat: 0, han: 1, fu: 30};
    if (k === "ron" || k === "tsumo") {
      ev = {event: "win", winners: ev.winners || [firstWinner], riichi: riichi};
      if (k === "ron") ev.from = ev.winners[0].seat === 0 ? 1 : 0;
      if (k === "tsumo") ev.winners = ev.winners.slice(0, 1);
    } else if (k === "draw") ev = {event: "draw", tenpai: [], riichi: riichi, nagashi: []};
    else if (k === "abort") ev = {event: "abort", kind: D.abort_kinds[0], riichi: riichi};
    else if (k === "chombo") ev = {event: "chombo", seat: 0, riichi: riichi};
    else if (k === "penalty") ev = {event: "penalty", seat: 0, kind: D.penalty_kinds[0]};
    else ev = {event: "end"};
    render();
  }

  // ---------------------------------------------------------------- the event as recorded
  function clean(e) {
    var out = JSON.parse(JSON.stringify(e));
    if (out.event === "win") {
      out.winners = out.winners.map(function (w) {
        var m = w._mode; delete w._mode;
        if (m === "hanfu") { delete w.yakuman; delete w.fan; delete w.hand; if (!w.han) w.han = 1; if (!w.fu || !D.use_fu) delete w.fu; }
        else if (m === "yakuman") { delete w.han; delete w.fu; delete w.fan; delete w.hand; w.yakuman = w.yakuman || 1; }
        else if (m === "fan") { delete w.han; delete w.fu; delete w.yakuman; }
        else if (m === "tiles") { delete w.han; delete w.fu; delete w.yakuman; delete w.fan; if (w.hand) delete w.hand.riichi;
          ["dora", "ura"].forEach(function (k) { if (w.hand && !w.hand[k]) delete w.hand[k]; }); }
        if (!w.chips) delete w.chips;
        return w;
      });
    }
    ["riichi", "nagashi", "chombo"].forEach(function (k) { if (out[k] && !out[k].length) delete out[k]; });
    ["to", "reason", "points"].forEach(function (k) { if (out[k] === null || out[k] === undefined) delete out[k]; });
    return out;
  }

  function changed() {
    if (!jsonEdited) json.value = JSON.stringify(clean(ev));
    clearTimeout(timer);
    timer = setTimeout(askPreview, 300);
  }

  function askPreview() {
    var token = document.querySelector('meta[name="csrf-token"]').content;
    fetch(panel.dataset.preview.replace(/\/0\/preview$/, "/" + seq + "/preview"), {
      method: "POST", credentials: "same-origin",
      headers: {"Content-Type": "application/json", "Accept": "application/json", "X-CSRF-Token": token},
      body: JSON.stringify({kind: "replace", event: json.value})
    }).then(function (r) { return r.json(); }).then(function (body) {
      if (body.ok) { preview.innerHTML = body.html; preview.classList.remove("error"); }
      else {
        preview.innerHTML = "";
        preview.appendChild(el("p", {"class": "field-error", role: "alert", "data-testid": "fix-preview-error",
          text: W.preview_failed + ": " + body.error.message}));
      }
    }).catch(function () { /* offline for a moment: the next change asks again */ });
  }

  function open(s, event) {
    seq = s;
    orig = D.entries[String(s)];
    ev = JSON.parse(JSON.stringify(event || orig));
    jsonEdited = false;
    form.action = panel.dataset.correct.replace(/\/0\/correct$/, "/" + s + "/correct");
    form.elements.seq.value = String(s);
    panel.querySelector("[data-fix-title]").textContent = "#" + s;
    var row = document.querySelector('tr[data-seq="' + s + '"] td:nth-child(3)');
    panel.querySelector("[data-fix-old]").textContent = row ? row.textContent : "";
    panel.hidden = false;
    render();
    panel.scrollIntoView({behavior: "smooth", block: "start"});
  }

  json.addEventListener("input", function () {
    jsonEdited = true;
    clearTimeout(timer);
    timer = setTimeout(askPreview, 400);
  });
  document.querySelectorAll("[data-fix-seq]").forEach(function (b) {
    b.addEventListener("click", function () { open(Number(b.dataset.fixSeq)); });
  });
  panel.querySelector("[data-fix-cancel]").addEventListener("click", function () { panel.hidden = true; seq = null; });

  // A refused correction comes back with what was sent: open it again as it was.
  var again = panel.dataset.echoSeq;
  if (again) {
    var sent = null;
    try { sent = JSON.parse(json.value); } catch (e) { sent = null; }
    open(Number(again), sent && typeof sent === "object" ? sent : null);
  }
})();
