// The tablet page: entry panels, payment preview, submit-exactly-once.
// Plain script, no build step, no network beyond this server.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("page-data").textContent);
  var L = JSON.parse(document.getElementById("i18n").innerHTML);
  var csrfMeta = document.querySelector('meta[name="csrf-token"]');
  var csrf = csrfMeta ? csrfMeta.content : "";
  var base = "/api/tables/" + encodeURIComponent(data.table_id);
  var $ = function (sel, root) { return (root || document).querySelector(sel); };
  var $$ = function (sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); };

  // ------------------------------------------------------------------ helpers
  function newKey() {
    if (window.crypto && crypto.randomUUID) { return crypto.randomUUID(); }
    var a = new Uint8Array(16); crypto.getRandomValues(a);
    return Array.prototype.map.call(a, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }
  function el(tag, attrs, children) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") { e.textContent = attrs[k]; } else if (k === "class") { e.className = attrs[k]; }
      else { e.setAttribute(k, attrs[k]); }
    });
    (children || []).forEach(function (c) { e.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
    return e;
  }
  function notice(msg, kind) {
    var n = $("#notice"); n.textContent = msg; n.className = "notice " + (kind || ""); n.hidden = !msg;
  }
  function names() { return data.names || []; }
  function seatSelect(cls, allowNone, exclude) {
    var s = el("select", {"class": "big " + cls});
    if (allowNone) { s.appendChild(el("option", {value: "", text: L.none})); }
    names().forEach(function (n, i) { if (i !== exclude) { s.appendChild(el("option", {value: String(i), text: n})); } });
    return s;
  }
  function field(label, input) { return el("label", {"class": "field"}, [label, input]); }

  // One request; network failures and 5xx are retried with the SAME body (and so the
  // same idempotency key) until the server gives a real answer.
  function send(method, url, body, retries) {
    var attempt = 0;
    retries = retries === undefined ? 6 : retries;
    function once() {
      return fetch(url, {method: method, credentials: "same-origin",
        headers: {"Content-Type": "application/json", "Accept": "application/json", "X-CSRF-Token": csrf},
        body: body === undefined ? undefined : JSON.stringify(body)})
        .then(function (r) {
          if (r.status >= 500 && attempt < retries) { throw new Error("server " + r.status); }
          return r.json().catch(function () { return {ok: false, error: {message: "HTTP " + r.status}}; })
            .then(function (j) { notice(""); return {status: r.status, json: j}; });
        })
        .catch(function (err) {
          if (attempt >= retries) { throw err; }
          attempt += 1; notice(L.offline, "warn");
          return new Promise(function (res) { setTimeout(res, Math.min(4000, 300 * Math.pow(2, attempt))); }).then(once);
        });
    }
    return once();
  }
  function errorText(res) { return (res.json && res.json.error && res.json.error.message) || ("HTTP " + res.status); }
  function reloadWith(msg) { if (msg) { sessionStorage.setItem("jantaku-notice", msg); } location.reload(); }
  var pending = sessionStorage.getItem("jantaku-notice");
  if (pending) { sessionStorage.removeItem("jantaku-notice"); notice(pending, "warn"); }

  // ------------------------------------------------------------------ riichi toggles
  var riichiKey = "jantaku-riichi:" + data.game_id + ":" + data.next_seq;
  function riichiSeats() { try { return JSON.parse(localStorage.getItem(riichiKey) || "[]"); } catch (e) { return []; } }
  function paintRiichi() {
    var on = riichiSeats();
    $$(".riichi-toggle").forEach(function (b) {
      var active = on.indexOf(Number(b.dataset.seat)) >= 0;
      b.setAttribute("aria-pressed", active ? "true" : "false"); b.classList.toggle("on", active);
    });
  }
  $$(".riichi-toggle").forEach(function (b) {
    b.addEventListener("click", function () {
      var on = riichiSeats(), s = Number(b.dataset.seat), i = on.indexOf(s);
      if (i >= 0) { on.splice(i, 1); } else { on.push(s); on.sort(); }
      localStorage.setItem(riichiKey, JSON.stringify(on)); paintRiichi();
    });
  });
  paintRiichi();

  // ------------------------------------------------------------------ start a game
  function startPlayers() { var o = $("#start-rules").selectedOptions[0]; return Number(o.dataset.players || 4); }
  function paintSeats() {
    var n = startPlayers();
    $$(".seat-picker").forEach(function (p) { p.hidden = Number(p.dataset.seat) >= n; });
  }
  if ($("#start-rules")) {
    $("#start-rules").addEventListener("change", paintSeats); paintSeats();
    $("#add-guest").addEventListener("click", function () {
      var name = $("#guest-name").value.trim();
      send("POST", base + "/guests", {name: name}).then(function (res) {
        if (res.status !== 201) { notice(errorText(res), "error"); return; }
        var p = res.json.player;
        var empty = null;
        $$(".start-player").forEach(function (s) {
          s.appendChild(el("option", {value: String(p.id), text: p.name + " (" + L.guest + ")"}));
          if (!empty && !s.value && !s.closest(".seat-picker").hidden) { empty = s; }
        });
        if (empty) { empty.value = String(p.id); }
        $("#guest-name").value = "";
      });
    });
    $("#start-game").addEventListener("click", function () {
      var n = startPlayers(), ids = [];
      $$(".start-player").slice(0, n).forEach(function (s) { ids.push(s.value ? Number(s.value) : null); });
      if (ids.indexOf(null) >= 0) { notice(L.seat + ": " + L.none, "error"); return; }
      var btn = $("#start-game"); btn.disabled = true;
      send("POST", base + "/games", {players: ids, rule_set: $("#start-rules").value, idempotency_key: startKey})
        .then(function (res) {
          if (res.status === 201 || res.status === 200) { reloadWith(""); return; }
          btn.disabled = false; notice(errorText(res), "error");
        }, function () { btn.disabled = false; notice(L.offline, "error"); });
    });
  }
  var startKey = newKey();
  if ($("#new-game")) {
    $("#new-game").addEventListener("click", function () { $("#start").hidden = false; $("#start").scrollIntoView(); });
  }
  $$(".confirm-result").forEach(function (b) {
    b.addEventListener("click", function () {
      b.disabled = true;
      send("POST", base + "/games/" + data.game_id + "/confirm", {seat: Number(b.dataset.seat)}).then(function (res) {
        if (res.status === 200) { reloadWith(""); } else { b.disabled = false; notice(errorText(res), "error"); }
      });
    });
  });

  // ------------------------------------------------------------------ tiles keyboard
  var SUITS = ["m", "p", "s", "z"];
  function tilesToStr(tiles) {
    var order = function (t) { return SUITS.indexOf(t[1]) * 10 + (t[0] === "0" ? 5.5 : Number(t[0])); };
    var sorted = tiles.slice().sort(function (a, b) { return order(a) - order(b); });
    var out = "", digits = "", suit = "";
    sorted.forEach(function (t) {
      if (t[1] !== suit && digits) { out += digits + suit; digits = ""; }
      suit = t[1]; digits += t[0];
    });
    return digits ? out + digits + suit : out;
  }
  function tileKeyboard(state, onChange) {
    var wrap = el("div", {"class": "tilepad"});
    var targets = [["hand", L.hand_tiles], ["win", L.win_tile], ["dora", L.dora], ["ura", L.ura]];
    var shown = el("div", {"class": "tile-fields"});
    var cur = "hand";
    state.melds = [];
    // Where a tap goes: a named field, or "meld:i" for the i-th called set.
    function list(name) { return name.indexOf("meld:") === 0 ? state.melds[Number(name.slice(5))].tiles : state[name]; }
    function paint() {
      shown.innerHTML = "";
      var all = targets.concat(state.melds.map(function (m, i) { return ["meld:" + i, L.melds[m.type]]; }));
      all.forEach(function (t) {
        var b = el("button", {type: "button", "class": "btn tile-target" + (cur === t[0] ? " on" : ""), "data-target": t[0]},
          [t[1] + ": " + (tilesToStr(list(t[0])) || "—")]);
        b.addEventListener("click", function () { cur = t[0]; paint(); });
        shown.appendChild(b);
      });
    }
    wrap.appendChild(shown);
    var meldRow = el("div", {"class": "row meld-buttons"});
    ["chi", "pon", "minkan", "ankan"].forEach(function (type) {
      var b = el("button", {type: "button", "class": "btn add-meld", "data-meld": type}, ["+ " + L.melds[type]]);
      b.addEventListener("click", function () {
        state.melds.push({type: type, tiles: []}); cur = "meld:" + (state.melds.length - 1); paint(); onChange();
      });
      meldRow.appendChild(b);
    });
    wrap.appendChild(meldRow);
    var keys = el("div", {"class": "tile-keys"});
    SUITS.forEach(function (s) {
      var digits = s === "z" ? "1234567" : "1234567890";
      digits.split("").forEach(function (d) {
        var label = s === "z" ? L.honours[Number(d) - 1] : (d === "0" ? "5" + s + "★" : d + s);
        var b = el("button", {type: "button", "class": "tile-key suit-" + s + (d === "0" ? " red" : ""), "data-tile": d + s,
          title: d + s}, [label]);
        b.addEventListener("click", function () {
          if (cur === "win") { state.win = [d + s]; } else { list(cur).push(d + s); }
          paint(); onChange();
        });
        keys.appendChild(b);
      });
    });
    var back = el("button", {type: "button", "class": "tile-key back", "data-tile": "back"}, ["⌫"]);
    back.addEventListener("click", function () { list(cur).pop(); paint(); onChange(); });
    keys.appendChild(back);
    wrap.appendChild(keys);
    paint();
    return wrap;
  }

  // ------------------------------------------------------------------ win entry
  function hanOptions(tsumo) {
    var pairs = (data.pairs || {})[tsumo ? "tsumo" : "ron"] || [];
    var hans = [];
    pairs.forEach(function (p) { if (hans.indexOf(p[0]) < 0) { hans.push(p[0]); } });
    if (!hans.length) { for (var h = 1; h <= 13; h++) { hans.push(h); } }
    return {pairs: pairs, hans: hans.sort(function (a, b) { return a - b; })};
  }
  function winnerBlock(tsumo, panel) {
    var opts = hanOptions(tsumo);
    var box = el("fieldset", {"class": "winner"});
    var seat = seatSelect("winner-seat", false);
    box.appendChild(field(L.winner, seat));
    var mode = el("div", {"class": "row mode"});
    var bHanfu = el("button", {type: "button", "class": "btn on", "data-mode": "hanfu"}, [L.by_hanfu]);
    var bTiles = el("button", {type: "button", "class": "btn", "data-mode": "tiles"}, [L.by_tiles]);
    mode.appendChild(bHanfu); mode.appendChild(bTiles); box.appendChild(mode);
    var hanfu = el("div", {"class": "hanfu"});
    var han = el("select", {"class": "big han"});
    opts.hans.forEach(function (h) { han.appendChild(el("option", {value: String(h), text: h + " " + L.han})); });
    var fu = el("select", {"class": "big fu"});
    function paintFu() {
      fu.innerHTML = "";
      opts.pairs.filter(function (p) { return p[0] === Number(han.value) && p[1]; })
        .forEach(function (p) { fu.appendChild(el("option", {value: String(p[1]), text: p[1] + " " + L.fu})); });
      fu.closest("label").hidden = !fu.options.length;
    }
    var yakuman = el("select", {"class": "big yakuman"});
    for (var y = 0; y <= 6; y++) { yakuman.appendChild(el("option", {value: String(y), text: y ? y + "× " + L.yakuman : L.none})); }
    hanfu.appendChild(field(L.han, han)); hanfu.appendChild(field(L.fu, fu)); hanfu.appendChild(field(L.yakuman, yakuman));
    box.appendChild(hanfu);
    han.addEventListener("change", paintFu);
    var tiles = {hand: [], win: [], dora: [], ura: []};
    var pad = tileKeyboard(tiles, panel.dirty); pad.hidden = true; box.appendChild(pad);
    var extra = el("div", {"class": "row"});
    var chips = el("input", {type: "number", "class": "big chips", min: "0", max: "99", value: "0"});
    if (data.chips) { extra.appendChild(field(L.chips, chips)); }
    var pao = seatSelect("pao", true); extra.appendChild(field(L.pao, pao));
    box.appendChild(extra);
    [bHanfu, bTiles].forEach(function (b) {
      b.addEventListener("click", function () {
        var t = b.dataset.mode === "tiles"; bTiles.classList.toggle("on", t); bHanfu.classList.toggle("on", !t);
        pad.hidden = !t; hanfu.hidden = t; panel.dirty();
      });
    });
    setTimeout(paintFu, 0);
    box.read = function () {
      var w = {seat: Number(seat.value)};
      if (!pad.hidden) {
        w.hand = {hand: tilesToStr(tiles.hand.concat(tiles.win)), win: tiles.win[0] || "",
          tsumo: tsumo, riichi: riichiSeats().indexOf(w.seat) >= 0};
        var melds = tiles.melds.filter(function (m) { return m.tiles.length; });
        if (melds.length) {
          w.hand.melds = melds.map(function (m) { return {type: m.type, tiles: tilesToStr(m.tiles)}; });
        }
        if (tiles.dora.length) { w.hand.dora = tilesToStr(tiles.dora); }
        if (tiles.ura.length) { w.hand.ura = tilesToStr(tiles.ura); }
      } else if (Number(yakuman.value) > 0) {
        w.yakuman = Number(yakuman.value);
      } else {
        w.han = Number(han.value); if (fu.options.length) { w.fu = Number(fu.value); }
      }
      if (data.chips && Number(chips.value)) { w.chips = Number(chips.value); }
      if (pao.value !== "") { w.pao = Number(pao.value); }
      return w;
    };
    return box;
  }

  // ------------------------------------------------------------------ the entry panel
  var panel = {event: null, key: null, builder: null, previewed: false};
  panel.dirty = function () { panel.previewed = false; $("#panel-record").disabled = panel.needsPreview; $("#panel-preview").hidden = true; };
  function checkboxes(cls) {
    var row = el("div", {"class": "row checks"});
    names().forEach(function (n, i) {
      var c = el("input", {type: "checkbox", "class": cls, value: String(i)});
      c.addEventListener("change", panel.dirty);
      row.appendChild(el("label", {"class": "check"}, [c, " " + n]));
    });
    return row;
  }
  function checked(cls) { return $$("." + cls + ":checked", $("#panel-body")).map(function (c) { return Number(c.value); }); }

  var BUILDERS = {
    ron: function (body) {
      var winners = el("div", {"class": "winners"});
      winners.appendChild(winnerBlock(false, panel));
      var add = el("button", {type: "button", "class": "btn add-winner"}, [L.add_winner]);
      add.addEventListener("click", function () { winners.appendChild(winnerBlock(false, panel)); panel.dirty(); });
      var from = seatSelect("discarder", false);
      body.appendChild(winners); body.appendChild(add); body.appendChild(field(L.discarder, from));
      return function () {
        return {event: "win", winners: $$(".winner", body).map(function (w) { return w.read(); }),
          from: Number(from.value), riichi: riichiSeats()};
      };
    },
    tsumo: function (body) {
      var w = winnerBlock(true, panel); body.appendChild(w);
      return function () { return {event: "win", winners: [w.read()], riichi: riichiSeats()}; };
    },
    draw: function (body) {
      body.appendChild(el("h3", {text: L.tenpai})); body.appendChild(checkboxes("tenpai"));
      body.appendChild(el("h3", {text: L.nagashi})); body.appendChild(checkboxes("nagashi"));
      return function () {
        var e = {event: "draw", tenpai: checked("tenpai"), riichi: riichiSeats()};
        var n = checked("nagashi"); if (n.length) { e.nagashi = n; }
        return e;
      };
    },
    abort: function (body) {
      var kind = el("select", {"class": "big abort-kind"});
      L.abort_kinds.forEach(function (k) { kind.appendChild(el("option", {value: k, text: L.kinds[k]})); });
      body.appendChild(field(L.kind, kind));
      return function () { return {event: "abort", kind: kind.value, riichi: riichiSeats()}; };
    },
    chombo: function (body) {
      var s = seatSelect("chombo-seat", false); body.appendChild(field(L.seat, s));
      return function () { return {event: "chombo", seat: Number(s.value)}; };
    },
    penalty: function (body) {
      var s = seatSelect("penalty-seat", false), kind = el("select", {"class": "big penalty-kind"});
      L.penalty_kinds.forEach(function (k) { kind.appendChild(el("option", {value: k, text: L.kinds[k]})); });
      var pts = el("input", {type: "number", "class": "big penalty-points", step: "100", value: "1000"});
      var to = seatSelect("penalty-to", true);
      body.appendChild(field(L.seat, s)); body.appendChild(field(L.kind, kind)); body.appendChild(field(L.points, pts));
      body.appendChild(field(L.to, to));
      return function () {
        var e = {event: "penalty", seat: Number(s.value), kind: kind.value};
        if (kind.value === "points") { e.points = Number(pts.value); if (to.value !== "") { e.to = Number(to.value); } }
        return e;
      };
    },
    end: function (body) { body.appendChild(el("p", {text: L.confirm_end})); return function () { return {event: "end"}; }; },
    undo: function (body) { body.appendChild(el("p", {text: L.confirm_undo})); return null; }
  };

  function openPanel(action) {
    var body = $("#panel-body"); body.innerHTML = "";
    $("#panel-title").textContent = L[action]; $("#panel-error").hidden = true; $("#panel-preview").hidden = true;
    panel.action = action; panel.builder = BUILDERS[action](body);
    panel.needsPreview = !!panel.builder;
    $("#panel-preview-btn").hidden = !panel.builder;
    $("#panel-record").disabled = panel.needsPreview; panel.key = newKey(); panel.sent = null;
    body.addEventListener("change", panel.dirty);
    $("#panel-backdrop").hidden = false;
  }
  function closePanel() { $("#panel-backdrop").hidden = true; panel.builder = null; }
  function panelError(msg) { var e = $("#panel-error"); e.textContent = msg; e.hidden = !msg; }

  function showPreview(res) {
    var box = $("#panel-preview"); box.innerHTML = "";
    var p = res.json.preview || {};
    var deltas = p.deltas || (p.hand && p.hand.deltas) || [];
    var tbl = el("table", {"class": "sheet preview-table"});
    names().forEach(function (n, i) {
      var d = deltas[i] || 0;
      tbl.appendChild(el("tr", {"data-testid": "preview-" + i}, [el("td", {text: n}),
        el("td", {"class": "num " + (d > 0 ? "plus" : d < 0 ? "minus" : ""), text: (d > 0 ? "+" : "") + d.toLocaleString()})]));
    });
    box.appendChild(tbl);
    (p.winners || p.results || []).forEach(function (w) {
      var yaku = (w.yaku || []).map(function (y) { return y.name + " " + y.han; }).join(", ");
      if (yaku || w.han) { box.appendChild(el("p", {"class": "yaku", text: (names()[w.seat] || "") + ": " + (w.han ? w.han + L.han + " " : "") + (w.fu ? w.fu + L.fu + " " : "") + yaku})); }
    });
    box.hidden = false;
  }

  // Tile-entered winners: show the engine's yaku, fu and value line by line.
  function showYaku(ev) {
    (ev.winners || []).forEach(function (w) {
      if (!w.hand) { return; }
      send("POST", base + "/score-hand", {hand: w.hand}, 0).then(function (res) {
        var r = res.json.result || {};
        var text = r.ok ? (r.yaku || []).map(function (y) { return y.name + " " + y.han; }).join(", ") +
          " — " + r.han + L.han + (r.fu ? " " + r.fu + L.fu : "") + " " + (r.value || "")
          : (r.error && r.error.message) || errorText(res);
        $("#panel-preview").appendChild(el("p", {"class": "yaku", "data-testid": "yaku-" + w.seat,
          text: (names()[w.seat] || "") + ": " + text}));
        if (r.ok && r.fu_detail && r.fu_detail.length) {   // fu with their reasons, line by line
          $("#panel-preview").appendChild(el("ul", {"class": "fu-detail", "data-testid": "fu-" + w.seat},
            r.fu_detail.map(function (f) { return el("li", {text: f[0] + ": " + f[1] + " " + L.fu}); })));
        }
      });
    });
  }

  $$(".action").forEach(function (b) { b.addEventListener("click", function () { openPanel(b.dataset.action); }); });
  if ($("#panel-cancel")) { $("#panel-cancel").addEventListener("click", closePanel); }
  if ($("#panel-preview-btn")) {
    $("#panel-preview-btn").addEventListener("click", function () {
      var ev;
      try { ev = panel.builder(); } catch (e) { panelError(String(e)); return; }
      panelError("");
      send("POST", base + "/preview", {event: ev}).then(function (res) {
        if (res.status !== 200) { panelError(errorText(res)); return; }
        panel.event = res.json.event || ev; panel.key = newKey(); panel.previewed = true;
        showPreview(res); $("#panel-record").disabled = false;
        showYaku(panel.event);
      }, function () { panelError(L.offline); });
    });
  }
  if ($("#panel-record")) {
    $("#panel-record").addEventListener("click", function () {
      var btn = $("#panel-record"); btn.disabled = true;
      var url = base + (panel.action === "undo" ? "/undo" : "/hands");
      var body = {expected_seq: data.next_seq, idempotency_key: panel.key, game_id: data.game_id};
      if (panel.action !== "undo") { body.event = panel.event; }
      send("POST", url, body).then(function (res) {
        if (res.status === 201 || res.status === 200) {
          localStorage.removeItem(riichiKey); reloadWith(""); return;
        }
        if (res.status === 409) { reloadWith(errorText(res)); return; }
        btn.disabled = false; panelError(errorText(res));
      }, function () { btn.disabled = false; panelError(L.offline); });
    });
  }

  // Pick up hands recorded from another tablet while nobody is entering anything.
  if (data.status === "live") {
    setInterval(function () {
      if (!$("#panel-backdrop").hidden) { return; }
      fetch(base, {headers: {"Accept": "application/json"}, credentials: "same-origin"}).then(function (r) { return r.json(); })
        .then(function (j) { if (j.game && j.game.next_seq !== data.next_seq) { location.reload(); } }).catch(function () {});
    }, 15000);
  }
})();
