// The tablet page: seats around the table, the entry panel with a payment preview that
// follows every tap, and a queue that keeps every submission until the server has it.
//
// Everything a player records goes into the tablet's queue first (queue.js, IndexedDB)
// with its idempotency key and the entry number it expects, then is sent in order. With
// the server answering, a hand is recorded in one request and the page shows the server's
// view of the game; without it, the hand stays queued, the running scores come from
// pricing.js, and the queue is sent when the server answers again. The service worker
// (/tablet/sw.js) keeps the page itself for a reload while offline.

import {createEntry, el, wordsOf} from "./entry.js";
import * as pricing from "./pricing.js";
import * as queue from "./queue.js";

const data = JSON.parse(document.getElementById("page-data").textContent);
const WORDS = JSON.parse(document.getElementById("words").textContent);
const w = wordsOf(WORDS);
const spec = data.spec || null;
const n = data.players || 0;
const base = "/api/tables/" + encodeURIComponent(data.table_id);
const $ = (sel, root) => (root || document).querySelector(sel);
const $$ = (sel, root) => Array.from((root || document).querySelectorAll(sel));
const RETRY_MS = [1000, 2000, 4000, 8000, 15000, 30000];
const TIMEOUT_MS = 10000;

let csrf = ($('meta[name="csrf-token"]') || {}).content || "";
let online = true;
let entries = [];           // this table's queue, oldest first
let known = null;           // the newest server view this tablet knows: {game_id, next_seq, state, ...}
let local = null;           // pricing state after the queued hands
let pending = [];           // queued hands' lines for the history
let retryAt = 0, retryN = 0, retryTimer = null, flushing = null;

// ------------------------------------------------------------------ helpers
function newKey() {
  if (window.crypto && crypto.randomUUID) { return crypto.randomUUID(); }
  const a = new Uint8Array(16); crypto.getRandomValues(a);
  return Array.from(a, (b) => ("0" + b.toString(16)).slice(-2)).join("");
}
function notice(msg, kind, whileOffline) {
  const box = $("#notice"); box.textContent = msg || ""; box.className = "notice " + (kind || ""); box.hidden = !msg;
  box.dataset.offline = whileOffline ? "1" : "";   // true only while the server is away
}
const fmt = (x) => x.toLocaleString("en-US");
const signed = (x) => (x > 0 ? "+" + fmt(x) : (x ? fmt(x) : "0"));
const names = () => data.names || [];

function setOnline(value) {
  online = value;
  const badge = $("#net-state");
  badge.hidden = value;
  badge.textContent = value ? "" : w("offline.offline");
  document.body.classList.toggle("offline", !value);
  if (value && $("#notice").dataset.offline === "1") { notice(""); }   // the server is back
}

/** One request with a time limit; a network failure rejects, any HTTP answer resolves. */
async function call(method, url, body) {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), TIMEOUT_MS);
  try {
    const r = await fetch(url, {method, credentials: "same-origin", signal: ctl.signal, cache: "no-store",
      headers: {"Content-Type": "application/json", "Accept": "application/json", "X-CSRF-Token": csrf},
      body: body === undefined ? undefined : JSON.stringify(body)});
    const json = await r.json().catch(() => ({}));
    if (r.status >= 500) { throw new Error("server " + r.status); }
    setOnline(true);
    return {status: r.status, json};
  } catch (e) {
    setOnline(false);
    throw e;
  } finally { clearTimeout(timer); }
}
async function freshCsrf() {
  const r = await call("GET", "/auth/csrf");
  if (r.json && r.json.csrf_token) { csrf = r.json.csrf_token; }
}
const errorOf = (res) => (res.json && res.json.error) || {message: "HTTP " + res.status, code: "http"};

// ------------------------------------------------------------------ seat words
function seatInfo(st) {
  const winds = st ? pricing.seatWinds(st, n) : [];
  return names().map((name, i) => ({seat: i, name, dealer: st ? st.dealer === i : false,
    wind_text: winds[i] ? w("offline.wind." + winds[i]) : ""}));
}
function roundWords(st) {
  const r = pricing.roundOf(st);
  let out = w("tablet.round_label", {wind: w("offline.wind." + r[0]), n: r.slice(1)});
  if (st.honba && spec.events.honba) { out += w("tablet.honba_label", {n: st.honba}); }
  return out;
}
const LIMITS = [[1, "mangan"], [1.5, "haneman"], [2, "baiman"], [3, "sanbaiman"], [4, "yakuman"]];
/** " 満貫" where a han (and fu) is paid as a limit, as the server's history line says it. */
function limitWords(x, tsumo) {
  try {
    const value = pricing.payValue(spec, pricing.handPay(spec, {han: x.han, fu: x.fu || 0, dealer: false, tsumo}));
    const mangan = pricing.payValue(spec, spec.price.mangan[tsumo ? "nt" : "nr"]);
    const hit = LIMITS.find(([k]) => value === mangan * k);
    return hit ? " " + w("tablet.limit." + hit[1]) : "";
  } catch (e) { return ""; }   // rules without a price for it: the line stays bare
}

/** What an event says, in history words (東2局1本場 ロン 中村←伊藤 3翻30符). */
function describe(ev, st) {
  const who = (seats) => seats.map((s) => names()[s]).join(w("tablet.name_join"));
  let text = ev.event;
  if (ev.event === "win") {
    const ws = ev.winners.map((x) => x.seat);
    const m = spec.family === "mcr" ? "_mcr" : "";   // the words of the MCR buttons
    text = ev.from === undefined ? w("tablet.h.tsumo" + m, {who: who(ws)}) : w("tablet.h.ron" + m, {who: who(ws), src: names()[ev.from]});
    for (const x of ev.winners) {
      if (ev.winners.length > 1) { text += " " + names()[x.seat]; }
      if (spec.family === "mcr") { text += " " + w("tablet.h.fan", {fan: x.fan || (x.hand ? "?" : 0)}); }
      else if (x.yakuman) { text += " " + (x.yakuman > 1 ? w("tablet.h.yakuman", {n: x.yakuman}) : w("tablet.limit.yakuman")); }
      else if (x.hand) { text += " " + w("entry.mode.tiles"); }
      else if (x.fu) { text += " " + w("tablet.h.han_fu", {han: x.han, fu: x.fu}) + limitWords(x, ev.from === undefined); }
      else { text += " " + w("tablet.h.han", {han: x.han}) + limitWords(x, ev.from === undefined); }
    }
  } else if (ev.event === "draw" && spec.family === "mcr") {
    text = w("tablet.h.draw_mcr");
  } else if (ev.event === "draw") {
    text = (ev.nagashi || []).length ? w("tablet.h.nagashi", {who: who(ev.nagashi)})
      : (!(ev.tenpai || []).length ? w("tablet.h.all_noten") : (ev.tenpai.length === n ? w("tablet.h.all_tenpai") : w("tablet.h.draw", {who: who(ev.tenpai)})));
  } else if (ev.event === "abort") { text = w("tablet.h.abort", {kind: w("tablet.kind." + ev.kind)}); }
  else if (ev.event === "chombo") { text = w("tablet.h.chombo", {who: names()[ev.seat]}); }
  if (ev.event === "draw" && (ev.chombo || []).length) { text += " " + w("tablet.h.chombo_at_draw", {who: who(ev.chombo)}); }
  if (ev.event === "abort" && ev.nukidora) { text += " " + w("tablet.h.kyuushu_nukidora", {who: names()[ev.seat], n: ev.nukidora}); }
  else if (ev.event === "penalty") { text = w("tablet.h.penalty", {who: names()[ev.seat], what: w("tablet.kind." + ev.kind)}); }
  else if (ev.event === "end") { return w("tablet.end_reason." + (ev.reason || "time")); }
  return st ? roundWords(st) + " " + text : text;
}

// ------------------------------------------------------------------ the running state
function riichiKey() { return "jantaku-riichi:" + data.game_id + ":" + (known ? known.next_seq + seqEntries().length : 0); }
function riichiSeats() { try { return JSON.parse(localStorage.getItem(riichiKey()) || "[]"); } catch (e) { return []; } }
/** Mark or clear a seat's riichi for the hand being played (kept until the hand is recorded). */
function setRiichi(seat, on) {
  const seatsOn = riichiSeats().filter((s) => s !== seat);
  if (on) { seatsOn.push(seat); seatsOn.sort(); }
  localStorage.setItem(riichiKey(), JSON.stringify(seatsOn));
  paintTable();
}
function seqEntries() { return entries.filter((e) => e.game_id === data.game_id && e.kind !== "confirm"); }

/** Local state = the newest known server state with every queued hand applied. */
function computeLocal() {
  pending = [];
  if (!known || !known.state || !spec) { local = null; return; }
  let st = pricing.fromServer(known.state, spec);
  for (const e of seqEntries()) {
    if (e.kind === "void") {
      // a hand whose answer never came, taken back: the server may or may not have it, so
      // the void of its key waits here, and the scores are shown without the hand
      pending.push({entry: e, text: w("offline.void_line", {hand: describe(e.target_event || {}, st)}), deltas: null});
      continue;
    }
    if (e.kind === "undo") {
      const before = known.undo_state && e === seqEntries()[0] ? pricing.fromServer(known.undo_state, spec) : null;
      pending.push({entry: e, text: w("offline.undo_line", {hand: known.last_hand || ""}), deltas: null});
      if (before) { st = before; }
      continue;
    }
    const ev = annotate(e.body.event);
    const res = pricing.apply(st, ev, spec);
    pending.push({entry: e, text: describe(e.body.event, st), deltas: res.priced ? res.deltas : null});
    st = res.state;
  }
  local = st;
}

/** The event with the chips the server will fill in (for the local ★ counts). */
function annotate(ev) {
  if (ev.event !== "win" || spec.family === "mcr") { return ev; }
  const tsumo = ev.from === undefined;
  return {...ev, winners: ev.winners.map((x) => (x.hand ? x : {...x, chips: pricing.winnerChips(spec, x, tsumo)}))};
}

function paintTable() {
  if (!local || !$("#table-area")) { return; }
  const st = local, winds = pricing.seatWinds(st, n);
  const riichi = riichiSeats(), deposit = spec.price.points.riichi_deposit;
  const shown = st.scores.map((s, i) => s - (riichi.indexOf(i) >= 0 ? Math.min(deposit, Math.max(s, 0)) : 0));
  const top = Math.max(...st.scores);
  const able = pricing.riichiAble(st, spec);
  for (let i = 0; i < n; i++) {
    const card = $(`.seat-card[data-seat="${i}"]`);
    card.classList.toggle("dealer", st.dealer === i);
    card.classList.toggle("in-riichi", riichi.indexOf(i) >= 0);
    $(".wind", card).textContent = w("offline.wind." + winds[i]);
    $(".score", card).textContent = fmt(shown[i]);
    // the gap to the leader, named: a bare "-8,000" reads as a payment
    $(".gap", card).textContent = st.scores[i] - top ? w("tablet.gap_to_top", {points: fmt(top - st.scores[i])}) : "";
    const chips = $(".chips", card);
    if (chips) { chips.textContent = spec.chips.enabled && st.chips[i] ? "★" + (st.chips[i] > 0 ? "+" : "") + st.chips[i] : ""; }
    const btn = $(".riichi-toggle", card);
    if (btn) {
      const on = riichi.indexOf(i) >= 0;
      btn.setAttribute("aria-pressed", on ? "true" : "false"); btn.classList.toggle("on", on);
      btn.disabled = !on && able.indexOf(i) < 0;
    }
  }
  const sticks = st.kyoutaku + riichi.reduce((a, s) => a + Math.min(deposit, Math.max(st.scores[s], 0)), 0);
  $('[data-testid="center-round"]').textContent = pricing.roundOf(st) ? w("tablet.round_label", {wind: w("offline.wind." + pricing.roundOf(st)[0]), n: st.dealer + 1}) : "";
  const round = $('[data-testid="round"]');
  if (round) { round.textContent = $('[data-testid="center-round"]').textContent; }
  const honba = $('[data-testid="honba"]');
  if (honba) { honba.textContent = w("tablet.honba_n", {n: st.honba}); }
  const k = $('[data-testid="kyoutaku"]');
  if (k) { k.textContent = w("tablet.sticks_points", {points: fmt(sticks)}); }
  const undo = $('.action[data-action="undo"]');
  if (undo) { undo.disabled = !(data.can_undo || seqEntries().length); }
}

// ------------------------------------------------------------------ seats around the table
const POSITIONS = {4: ["bottom", "right", "top", "left"], 3: ["bottom", "right", "left"]};
function sideKey() { return "jantaku-side:" + data.table_id; }
function paintSides() {
  const area = $("#table-area");
  if (!area) { return; }
  const own = Number(localStorage.getItem(sideKey()) || 0) % n;
  for (const card of $$(".seat-card", area)) {
    const s = Number(card.dataset.seat), pos = POSITIONS[n][((s - own) % n + n) % n];
    card.classList.remove("pos-bottom", "pos-right", "pos-top", "pos-left");
    card.classList.add("pos-" + pos);
    card.classList.toggle("own-side", pos === "bottom");
  }
}

// ------------------------------------------------------------------ the queue on screen
function paintQueue() {
  const open = seqEntries().length + entries.filter((e) => e.kind === "confirm").length;
  const badge = $("#queue-badge");
  badge.hidden = !entries.length;
  badge.textContent = w("offline.waiting", {n: open});
  badge.classList.toggle("blocked", entries.some((e) => e.status !== "queued"));
  const box = $("#queue");
  box.hidden = !entries.length;
  const title = $("#queue-title");
  title.textContent = w("offline.waiting", {n: open}) + " ";
  if (entries.some((e) => e.status === "queued")) {
    title.appendChild(el("button", {type: "button", class: "btn small", "data-testid": "send-now",
      on: {click: () => { retryN = 0; flush(); }}}, [w("offline.send_now")]));
  }
  const list = $("#queue-list");
  list.innerHTML = "";
  for (const e of entries) {
    const line = pending.find((p) => p.entry === e);
    const text = e.kind === "confirm" ? w("offline.confirm_line", {who: names()[e.body.seat] || ""})
      : (line ? line.text : describe(e.body.event || {event: "undo"}, null));
    const li = el("li", {class: "q-" + e.status, "data-testid": "queued-" + e.id}, [
      el("div", {class: "q-line"}, [el("b", {text: w("offline.status." + e.status)}), " " + text]),
      line && line.deltas ? el("div", {class: "h-deltas"}, line.deltas.map((d, i) =>
        el("span", {class: "delta " + (d > 0 ? "plus" : d < 0 ? "minus" : ""), text: names()[i] + " " + signed(d)}))) : null,
    ]);
    if (e.error) { li.appendChild(el("p", {class: "notice error", "data-testid": "queued-error-" + e.id, text: e.error.message})); }
    const actions = el("div", {class: "row q-actions"});
    if (e.status === "refused" && e.kind === "hand") {
      actions.appendChild(el("button", {type: "button", class: "btn", "data-testid": "queued-edit-" + e.id,
        on: {click: () => editEntry(e)}}, [w("offline.edit")]));
    }
    if (e.status === "conflict") {
      if (e.conflict && e.conflict.server_lines) {
        li.appendChild(el("div", {class: "q-server"}, [el("b", {text: w("offline.server_now")}),
          el("ul", {}, e.conflict.server_lines.map((t) => el("li", {text: t})))]));
      }
      if (e.conflict && e.conflict.live) {
        actions.appendChild(el("button", {type: "button", class: "btn primary", "data-testid": "queued-after-" + e.id,
          on: {click: () => recordAfter(e)}}, [w("offline.record_after")]));
      }
    }
    if (e.status !== "queued") {
      actions.appendChild(el("button", {type: "button", class: "btn", "data-testid": "queued-drop-" + e.id,
        on: {click: (ev) => dropEntry(e, ev.currentTarget)}}, [w("offline.drop")]));
    }
    if (actions.childNodes.length) { li.appendChild(actions); }
    list.appendChild(li);
  }
}

async function reloadQueue() {
  entries = await queue.list(data.table_id);
  computeLocal();
  paintTable();
  paintQueue();
}

// ------------------------------------------------------------------ sending
function schedule() {
  clearTimeout(retryTimer);
  const wait = RETRY_MS[Math.min(retryN, RETRY_MS.length - 1)];
  retryN += 1;
  retryAt = Date.now() + wait;
  document.body.dataset.tries = String(Number(document.body.dataset.tries || 0) + 1);
  retryTimer = setTimeout(() => flush(), wait);
}

function urlOf(e) {
  if (e.kind === "undo") { return base + "/undo"; }
  if (e.kind === "void") { return base + "/void"; }
  if (e.kind === "confirm") { return base + "/games/" + e.game_id + "/confirm"; }
  return base + "/hands";
}

/** Send the queue in order; resolves true when everything was stored. */
function flush() {
  if (flushing) { return flushing; }
  flushing = (async () => {
    try {
      entries = await queue.list(data.table_id);
      if (!entries.length) { return true; }
      await freshCsrf();
      let sent = 0;
      for (const e of entries) {
        if (e.status !== "queued") { return false; }
        const res = await sendOne(e);
        if (!res) {
          // the game this page shows is over on the server: show what the server has (the
          // queue, kept on this tablet, is shown on every screen)
          if (e.conflict && !e.conflict.live && data.status === "live") { location.reload(); }
          return false;
        }
        sent += 1;
      }
      retryN = 0;
      if (sent) { location.reload(); }
      return true;
    } catch (err) {
      schedule();
      return false;
    } finally {
      flushing = null;
      await reloadQueue();
    }
  })();
  return flushing;
}

async function sendOne(e, retried) {
  if (e.kind === "hand" && !e.sent) {
    // from now on the server may have it, answer or not: an undo must void its key
    e.sent = true;
    await queue.put(e);
  }
  const res = await call("POST", urlOf(e), e.body);
  if (res.status === 200 || res.status === 201) {
    await queue.remove(e.id);
    if (e.kind !== "confirm" && known && e.game_id === known.game_id) {
      const next = typeof res.json.next_seq === "number" ? res.json.next_seq : e.body.expected_seq + 1;
      known = {...known, next_seq: next, state: res.json.state || known.state, stale: !res.json.state};
      await queue.saveView(known);
      if (e.kind === "void") { await renumberAfter(e, next); }
    }
    return true;
  }
  const error = errorOf(res);
  if ((res.status === 400 || res.status === 403) && /^csrf/.test(error.code || "") && !retried) {
    await freshCsrf();
    return sendOne(e, true);
  }
  if (res.status === 409) {
    e.status = "conflict"; e.error = error;
    e.conflict = await conflictInfo();
  } else if (res.status === 401 || res.status === 403) {
    notice(error.message, "error");
    return false;
  } else {
    e.status = "refused"; e.error = error;
  }
  await queue.put(e);
  return false;
}

/** The entries after ``e`` take the entry numbers from ``next`` on: a void of a key takes
 * one number whether or not the hand it voids had taken one before it. */
async function renumberAfter(e, next) {
  let seq = next;
  for (const x of seqEntries()) {
    if (x.id <= e.id) { continue; }
    if (x.kind !== "void") { x.body = {...x.body, expected_seq: seq}; await queue.put(x); }
    seq += 1;
  }
}

/** What the server has now, to show beside a queued entry that no longer fits. */
async function conflictInfo() {
  try {
    const res = await call("GET", base);
    const game = res.json.game;
    if (!game) { return {live: false, server_lines: []}; }
    const events = game.events || [];
    const hands = (game.replay && game.replay.hands) || [];
    const lines = hands.slice(-3).map((h) => {
      const ev = (events[h.event - 1] || {}).event || {};
      return describe(ev, null) + "  " + (h.deltas || []).map((d, i) => names()[i] + " " + signed(d)).join(" ");
    });
    return {live: game.game.status === "live" && game.game.id === data.game_id, next_seq: game.next_seq,
      server_lines: lines};
  } catch (err) { return {live: false, server_lines: []}; }
}

async function recordAfter(e) {
  const info = await conflictInfo();
  if (!info.live) { e.conflict = info; await queue.put(e); await reloadQueue(); return; }
  // this entry and every later one take the entry numbers after the server's last
  let seq = info.next_seq;
  for (const x of seqEntries()) {
    if (x.id < e.id) { continue; }
    if (x.kind !== "void") { x.body = {...x.body, expected_seq: seq}; }   // the server numbers a void
    seq += 1;
    if (x.id === e.id) { x.status = "queued"; x.error = null; x.conflict = null; }
    await queue.put(x);
  }
  known = {...known, next_seq: info.next_seq, stale: true};
  await queue.saveView(known);
  retryN = 0;
  flush();
}

const armed = new Set();
async function dropEntry(e, button) {
  if (!armed.has(e.id)) {   // a second tap confirms: nothing is thrown away by one slip
    armed.add(e.id);
    button.textContent = w("offline.drop_confirm");
    button.classList.add("danger");
    return;
  }
  armed.delete(e.id);
  await queue.remove(e.id);
  // the entries after it move up one place
  for (const x of seqEntries()) {
    if (x.id > e.id && e.kind !== "confirm" && x.kind !== "void" && x.status === "queued") {
      x.body = {...x.body, expected_seq: x.body.expected_seq - 1};
      await queue.put(x);
    }
  }
  await reloadQueue();
  flush();
}

async function enqueue(kind, body, extra) {
  const seq = known ? known.next_seq + seqEntries().length : data.next_seq;
  const entry = {table_id: data.table_id, game_id: data.game_id, kind,
    body: {...body, idempotency_key: newKey(), game_id: data.game_id,
      ...(kind === "confirm" || kind === "void" ? {} : {expected_seq: seq})},
    ...(extra || {})};
  if (kind === "confirm") { delete entry.body.game_id; delete entry.body.idempotency_key; }
  entry.id = await queue.add(entry);
  return entry;
}

// ------------------------------------------------------------------ the entry panel
const panel = {kind: null, form: null, check: null, checkSeq: 0, result: null, editing: null};

function openPanel(kind) {
  panel.kind = kind; panel.editing = null; panel.result = null;
  const body = $("#panel-body"); body.innerHTML = "";
  $("#panel-title").textContent = actionLabel(kind);
  $("#panel-error").hidden = true;
  const rec = $("#panel-record");
  rec.textContent = w("tablet.record");
  if (kind === "undo") {
    const last = seqEntries().length ? pending[pending.length - 1].text : data.last_hand;
    body.appendChild(el("p", {class: "confirm-text", text: w("tablet.undo_confirm")}));
    body.appendChild(el("p", {class: "confirm-hand", "data-testid": "undo-hand", text: last || ""}));
    rec.textContent = w("tablet.undo_do");
    rec.disabled = false;
    $("#panel-preview").innerHTML = "";
    panel.form = null;
  } else {
    const st = local || (known && known.state ? pricing.fromServer(known.state, spec) : null);
    panel.form = createEntry(body, {kind, spec, words: WORDS, seats: seatInfo(st), lang: data.lang,
      riichi: riichiSeats, setRiichi: spec.events.riichi ? setRiichi : null,
      state: {houki: st ? st.houki : [], yame_offer: st ? st.yame_offer : "",
        riichi_able: st ? pricing.riichiAble(st, spec) : null},
      onChange: refresh});
    if (kind === "end") { rec.textContent = w("tablet.end_do"); }
    refresh();
  }
  $("#panel-backdrop").hidden = false;
  document.body.classList.add("panel-open");
}
function actionLabel(kind) {
  const btn = $(`.action[data-action="${kind}"]`);
  return btn ? btn.textContent.trim() : w("tablet." + kind);
}
function closePanel() {
  $("#panel-backdrop").hidden = true; document.body.classList.remove("panel-open");
  panel.form = null; panel.kind = null; panel.editing = null;
}
function panelError(msg) { const e = $("#panel-error"); e.textContent = msg || ""; e.hidden = !msg; }

/** Field path of a refusal in player words: "和了者 東 青木 — 翻". */
function fieldWords(path) {
  if (!path) { return ""; }
  const m = /winners\[(\d+)\](?:\.(\w+))?/.exec(path);
  if (m && panel.form) {
    const ev = panel.form.read().event, x = ev.winners && ev.winners[Number(m[1])];
    const who = x ? seatInfo(local).find((s) => s.seat === x.seat) : null;
    const part = m[2] && WORDS["tablet.field." + m[2]] ? " — " + w("tablet.field." + m[2]) : "";
    return (who ? w("tablet.field.winner", {who: who.wind_text + " " + who.name}) : "") + part;
  }
  const last = path.split(".").pop().replace(/\[\d+\]$/, "");
  return WORDS["tablet.field." + last] ? w("tablet.field." + last) : path;
}
function refusalText(error) {
  if (error.field && error.message.indexOf(error.field + ": ") === 0) {
    return fieldWords(error.field) + ": " + error.message.slice(error.field.length + 2);
  }
  return error.message;
}

function showPreview(deltas, note) {
  const box = $("#panel-preview"); box.innerHTML = "";
  if (!deltas) { box.appendChild(el("p", {class: "hint", "data-testid": "preview-hint", text: note || w("tablet.preview_hint")})); return; }
  const grid = el("div", {class: "preview-grid"});
  names().forEach((name, i) => {
    const d = deltas[i] || 0;
    grid.appendChild(el("div", {class: "pv", "data-testid": "preview-" + i}, [el("span", {class: "pv-name", text: name}),
      el("span", {class: "num " + (d > 0 ? "plus" : d < 0 ? "minus" : ""), text: signed(d)})]));
  });
  box.appendChild(grid);
  if (note) { box.appendChild(el("p", {class: "hint small", text: note})); }
}

/** The settlement the end would make: each seat's place and settled result (the end
    itself moves no points, so its payments would all read 0). */
function showFinal(final) {
  const box = $("#panel-preview"); box.innerHTML = "";
  const grid = el("div", {class: "preview-grid"});
  names().forEach((name, i) => {
    const r = final.result[i] || 0, text = (final.shown || [])[i] || String(r);
    grid.appendChild(el("div", {class: "pv", "data-testid": "final-row-" + i}, [el("span", {class: "pv-name", text: name}),
      el("span", {class: "final " + (r > 0 ? "plus" : r < 0 ? "minus" : ""), "data-testid": "final-" + i,
        text: w("tablet.final_line", {rank: final.ranks[i], result: text})})]));
  });
  box.appendChild(grid);
  box.appendChild(el("p", {class: "hint small", "data-testid": "final-note", text: w("tablet.final_note")}));
}

function chipsNote(ev) {
  if (ev.event === "win" && spec.family === "mcr") {      // the fan each winner is paid on
    return ev.winners.filter((x) => x.fan).map((x) => names()[x.seat] + " " +
      w("entry.total_fan", {fan: x.fan, flowers: x.flowers || 0})).join(" ");
  }
  if (ev.event !== "win" || !spec.chips.enabled) { return ""; }
  const tsumo = ev.from === undefined;
  const parts = ev.winners.filter((x) => !x.hand).map((x) => ({seat: x.seat, c: pricing.winnerChips(spec, x, tsumo)}))
    .filter((x) => x.c).map((x) => names()[x.seat] + " ★" + x.c + (tsumo ? w("offline.chips_each") : ""));
  return parts.join(" ");
}

/** After every tap: the preview from this tablet at once, then the server's check. */
function refresh() {
  if (!panel.form) { return; }
  const {event, problems} = panel.form.read();
  panelError("");
  panel.result = null;
  const rec = $("#panel-record");
  if (problems.length) {
    showPreview(null, problems[0].text);
    rec.disabled = true;
    return;
  }
  const res = local ? pricing.apply(local, annotate(event), spec) : {priced: false};
  panel.local = res;
  const note = [chipsNote(event), res.priced ? "" : (res.reason === "tiles" && !online ? w("entry.offline_tiles") : "")]
    .filter(Boolean).join(" ");
  if (event.event === "end") { showPreview(null, w("tablet.checking")); }
  else { showPreview(res.priced ? res.deltas : null, res.priced ? note : (note || w("tablet.checking"))); }
  rec.disabled = false;
  serverCheck(event);
}

function serverCheck(event) {
  const seq = ++panel.checkSeq;
  const box = $("#panel-preview");
  box.dataset.checked = "0";
  panel.check = (async () => {
    if (!online && retryN > 0) {
      if (panel.local && !panel.local.priced) { showPreview(null, w("entry.offline_tiles")); }
      box.dataset.checked = "1";
      return {offline: true};
    }
    let res;
    try { res = await call("POST", base + "/preview", {event}); } catch (e) {
      if (seq === panel.checkSeq) {
        if (panel.local && !panel.local.priced) { showPreview(null, w("entry.offline_tiles")); }
        box.dataset.checked = "1";
      }
      return {offline: true};
    }
    if (seq !== panel.checkSeq) { return {stale: true}; }
    box.dataset.checked = "1";
    if (res.status === 200) {
      const p = res.json.preview || {};
      if (event.event === "end" && p.final && p.final.result) { showFinal(p.final); }
      else { showPreview(p.deltas, chipsNote(res.json.event || event)); }
      return {ok: true, event: res.json.event || event};
    }
    const error = errorOf(res);
    if (/^csrf/.test(error.code || "")) { await freshCsrf().catch(() => {}); return {offline: true}; }
    box.innerHTML = "";   // the refusal is the answer: nothing is being checked any more
    panelError(refusalText(error));
    $("#panel-record").disabled = true;
    return {refused: error};
  })();
  return panel.check;
}

async function record() {
  const rec = $("#panel-record");
  rec.disabled = true;
  if (panel.kind === "undo") { await recordUndo(); return; }
  const {event, problems} = panel.form.read();
  if (problems.length) { panelError(problems[0].text); return; }
  const check = panel.check ? await panel.check : {offline: true};
  if (check.stale) { refresh(); return; }
  if (check.refused) { return; }
  rec.textContent = w("tablet.sending");
  if (panel.editing) {
    const e = panel.editing;
    e.body = {...e.body, event, idempotency_key: newKey()};
    e.status = "queued"; e.error = null;
    await queue.put(e);
  } else {
    await enqueue("hand", {event});
    localStorage.removeItem(riichiKey());
  }
  await afterSubmit();
}

async function recordUndo() {
  if (flushing) { await flushing; }   // a hand on its way: take back what it came to
  entries = await queue.list(data.table_id);
  const last = seqEntries()[seqEntries().length - 1];
  if (last && last.kind === "hand" && last.status === "queued" && !last.sent) {
    // never sent: the server cannot have it, so taking it back is taking it out of the queue
    await queue.remove(last.id);
    closePanel();
    await reloadQueue();
    return;
  }
  if (last && last.kind === "hand" && last.status === "queued") {
    // sent, and no answer came: it may be stored. The undo voids its key, which the server
    // does whether the hand arrived or not (and refuses the hand if it arrives later). The
    // void is kept first, so a crash between the two steps still voids the hand.
    await enqueue("void", {target_key: last.body.idempotency_key}, {target_event: last.body.event});
    await queue.remove(last.id);
    await afterSubmit(w("offline.void_kept"));
    return;
  }
  await enqueue("undo", {});
  await afterSubmit();
}

async function afterSubmit(kept) {
  await reloadQueue();
  const ok = await flush();
  if (ok) { return; }  // reloading
  const e = (await queue.list(data.table_id)).slice(-1)[0];
  if (e && e.status === "refused" && panel.form) {
    panel.editing = e;
    panelError(refusalText(e.error));
    $("#panel-record").textContent = w("tablet.record");
    return;
  }
  closePanel();
  if (e && e.status === "queued") { notice(kept || w("offline.kept"), "warn", true); }
}

function editEntry(e) {
  openPanel(e.body.event.event === "win" ? (e.body.event.from === undefined ? "tsumo" : "ron") : e.body.event.event);
  panel.editing = e;
  panel.form.load(e.body.event);
  panelError(refusalText(e.error || {message: ""}));
}

// ------------------------------------------------------------------ start, confirm, new game
function wireStart() {
  if (!$("#start-rules")) { return; }
  const startKey = newKey();
  const players = () => Number($("#start-rules").selectedOptions[0].dataset.players || 4);
  const paintSeats = () => { for (const p of $$(".seat-picker")) { p.hidden = Number(p.dataset.seat) >= players(); } };
  $("#start-rules").addEventListener("change", paintSeats); paintSeats();
  $("#add-guest").addEventListener("click", async () => {
    const name = $("#guest-name").value.trim();
    try {
      await freshCsrf();
      const res = await call("POST", base + "/guests", {name});
      if (res.status !== 201) { notice(refusalText(errorOf(res)), "error"); return; }
      const p = res.json.player;
      let empty = null;
      for (const s of $$(".start-player")) {
        s.appendChild(el("option", {value: String(p.id), text: p.name + " (" + w("tablet.guest") + ")"}));
        if (!empty && !s.value && !s.closest(".seat-picker").hidden) { empty = s; }
      }
      if (empty) { empty.value = String(p.id); }
      $("#guest-name").value = "";
    } catch (e) { notice(w("offline.need_server"), "error", true); }
  });
  $("#start-game").addEventListener("click", async () => {
    const ids = $$(".start-player").slice(0, players()).map((s) => (s.value ? Number(s.value) : null));
    if (ids.indexOf(null) >= 0) { notice(w("offline.pick_players", {n: players()}), "error"); return; }
    const btn = $("#start-game"); btn.disabled = true;
    try {
      await freshCsrf();
      const res = await call("POST", base + "/games", {players: ids, rule_set: $("#start-rules").value, idempotency_key: startKey});
      if (res.status === 201 || res.status === 200) { location.reload(); return; }
      notice(refusalText(errorOf(res)), "error");
    } catch (e) { notice(w("offline.need_server"), "error", true); }
    btn.disabled = false;
  });
}

function wireSettlement() {
  const again = $("#new-game");
  if (again) {
    again.addEventListener("click", () => {
      const same = data.again || {}, rules = $("#start-rules");
      if (rules && same.rule_set && $(`#start-rules option[value="${same.rule_set}"]`)) {
        rules.value = same.rule_set;
        rules.dispatchEvent(new Event("change"));
      }
      (same.players || []).forEach((pid, i) => {
        const pick = $(`.start-player[data-seat="${i}"]`);
        if (pick && $(`option[value="${pid}"]`, pick)) { pick.value = String(pid); }
      });
      $("#start").hidden = false; $("#start").scrollIntoView();
    });
  }
  for (const b of $$(".confirm-result")) {
    b.addEventListener("click", async () => {
      b.disabled = true;
      await enqueue("confirm", {seat: Number(b.dataset.seat)});
      b.replaceWith(el("span", {class: "ok pending", text: "✓ " + w("offline.status.queued")}));
      await reloadQueue();
      flush();
    });
  }
}

// ------------------------------------------------------------------ the table's own reading
let mismatchSeen = 0;
function paintReading(reading) {
  const warn = $("#ic-mismatch");
  if (!warn || !reading || !spec || !spec.sticks) { return; }
  for (let i = 0; i < n; i++) {
    const box = $(`[data-testid="ic-${i}"]`);
    const pts = reading.points && reading.points[i];
    if (!box || pts === null || pts === undefined) { continue; }
    const diff = reading.differences ? reading.differences[i] : 0;
    box.textContent = w("tablet.ic_points") + " " + fmt(pts) + (diff ? " (" + signed(diff) + ")" : "");
    box.classList.toggle("ic-diff", !!diff);
  }
  // sticks move while the players pay: a difference counts once it has lasted two readings
  mismatchSeen = reading.mismatch ? mismatchSeen + 1 : 0;
  warn.hidden = mismatchSeen < 2;
}

async function poll() {
  // hands still to send hold the page as it is; entries waiting for a person do not keep
  // a game that is over on screen
  const sending = entries.some((e) => e.status === "queued") || flushing;
  if (!$("#panel-backdrop").hidden || sending || document.hidden) { return; }
  try {
    const res = await call("GET", base);
    const game = res.json.game;
    const over = data.game_id && (!game || game.game.id !== data.game_id || game.game.status !== "live");
    if (over || (game && data.game_id && !entries.length && game.next_seq !== data.next_seq)) { location.reload(); return; }
    paintReading(res.json.reading);
  } catch (e) { /* offline: the badge says so */ }
}

// ------------------------------------------------------------------ start up
async function main() {
  if ("serviceWorker" in navigator) {
    navigator.serviceWorker.register("/tablet/sw.js?v=" + data.version, {scope: "/tablet/"}).catch(() => {});
  }
  const flash = sessionStorage.getItem("jantaku-notice");
  if (flash) { sessionStorage.removeItem("jantaku-notice"); notice(flash, "warn"); }
  wireStart();
  wireSettlement();
  if (data.game_id && data.state) {
    known = {table_id: data.table_id, game_id: data.game_id, next_seq: data.next_seq, state: data.state,
      undo_state: data.undo_state || null, last_hand: data.last_hand};
    const saved = await queue.loadView(data.table_id).catch(() => null);
    if (saved && saved.game_id === data.game_id && saved.next_seq > data.next_seq && saved.state) { known = saved; }
    else { await queue.saveView(known); }
  }
  await reloadQueue();
  paintSides();
  for (const b of $$(".riichi-toggle")) {
    b.addEventListener("click", () => { const s = Number(b.dataset.seat); setRiichi(s, riichiSeats().indexOf(s) < 0); });
  }
  const rotate = $("#rotate");
  if (rotate) {
    rotate.addEventListener("click", () => {
      localStorage.setItem(sideKey(), String((Number(localStorage.getItem(sideKey()) || 0) + 1) % n));
      paintSides();
    });
  }
  for (const b of $$(".action")) { b.addEventListener("click", () => openPanel(b.dataset.action)); }
  $("#panel-cancel").addEventListener("click", closePanel);
  $("#panel-record").addEventListener("click", record);
  $("#queue-badge").addEventListener("click", () => $("#queue").scrollIntoView());
  window.addEventListener("online", () => { retryN = 0; flush(); });
  document.addEventListener("visibilitychange", () => { if (!document.hidden && entries.length) { retryN = 0; flush(); } });
  if (entries.length) { flush(); }
  if (data.status === "live") { setInterval(poll, 3000); }
  document.body.dataset.ready = "1";
}

main();
