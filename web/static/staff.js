// Staff floor view: refresh every table card from floor.json every 2 seconds.
(function () {
  "use strict";
  var floor = document.getElementById("floor");
  if (!floor) return;
  var d = floor.dataset;
  function two(n) { return n === null || n === undefined ? "—" : ("0" + n).slice(-2); }
  function text(card, field, value) {
    var el = card.querySelector('[data-field="' + field + '"]');
    if (el && el.textContent !== value) el.textContent = value;
    return el;
  }
  function gameText(g) {
    if (!g) return d.tNoGame;
    if (g.error) return g.error;
    return (g.round || "") + " " + (g.honba || 0) + " · " + (g.names || []).join(" / ") +
      " · " + (g.scores || []).join(" / ");
  }
  function update(data) {
    var daemon = document.querySelector("[data-daemon]");
    if (daemon) {
      daemon.textContent = data.daemon.running ? d.tRunning : d.tNotRunning;
      daemon.parentNode.className = "daemon " + (data.daemon.running ? "ok" : "bad");
    }
    data.tables.forEach(function (t) {
      var card = floor.querySelector('[data-table="' + CSS.escape(String(t.table_id)) + '"]');
      if (!card) return;
      var link = text(card, "connected", t.connected ? d.tConnected : d.tDisconnected);
      if (link) link.className = "link " + (t.connected ? "ok" : "bad");
      var mode = two(t.mode);
      if (t.pending_mode !== null && t.pending_mode !== undefined) mode += " → " + two(t.pending_mode);
      text(card, "mode", mode);
      text(card, "cycle_state", t.cycle_label || "—");
      text(card, "lid", t.lid_label || "—");
      text(card, "errors", (t.error_words && t.error_words.length ? t.error_words.join(" ")
        : (t.last_error || "—")));
      text(card, "points", t.points && t.points.length ? t.points.map(function (p) {
        return p === null ? "—" : p; }).join(" / ") : "—");
      text(card, "game", gameText(t.game));
      text(card, "last_command", t.last_command ? t.last_command.message : "—");
      var ev = (t.events || [])[0];
      text(card, "last_event", ev ? (ev.message || ev.kind) : "—");
    });
  }
  function poll() {
    fetch(d.poll, {headers: {"Accept": "application/json"}, credentials: "same-origin"})
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (data) { if (data) update(data); })
      .catch(function () { /* offline for a moment: try again next tick */ })
      .then(function () { setTimeout(poll, 2000); });
  }
  setTimeout(poll, 2000);
})();
