// Prices a hand and moves the game on, on the tablet, without asking the server.
//
// The server's engine (scoring/game.py) is the authority: every event the tablet records
// is checked and priced there. This module does the same arithmetic from the price list
// and switches the server sends (club/entry.py: entry_spec().price), so the payment
// preview and the running scores still work while the club's box cannot be reached, and a
// queue of hands entered offline shows what the scores will be. A test replays random games
// through both and compares every figure (tests/web/test_tablet_offline.py).
//
// A winner entered as tiles cannot be priced here (the hand scorer is Python): such an
// event comes back with priced = false and the scores stay as they were until the server
// answers.

const WINDS = "ESWN";

export class Unpriced extends Error {
  constructor(reason) { super(reason); this.reason = reason; }
}

/** The local state of a game from the server's state (GameState.to_dict()). */
export function fromServer(state, spec) {
  const n = spec.players;
  return {
    scores: state.scores.slice(), wind: WINDS.indexOf(state.round[0]), dealer: state.dealer,
    honba: state.honba, kyoutaku: state.kyoutaku, houki: (state.houki || []).slice(),
    extension: !!state.extension, finished: !!state.finished, end_reason: state.end_reason || "",
    yame_offer: state.yame_offer || "", chips: (state.chips || new Array(n).fill(0)).slice(),
    deposits: [], yakuman_end: false,
  };
}

/** Round label of a local state: "E1", "S4" ... */
export function roundOf(st) { return WINDS[st.wind] + (st.dealer + 1); }

/** Each seat's wind letter this hand. */
export function seatWinds(st, n) {
  const out = [];
  for (let s = 0; s < n; s++) { out.push(WINDS[((s - st.dealer) % n + n) % n]); }
  return out;
}

/** Seats that may declare riichi now. */
export function riichiAble(st, spec) {
  if (st.finished || spec.family === "mcr") { return []; }
  const out = [];
  for (let s = 0; s < spec.players; s++) {
    if (st.houki.indexOf(s) < 0 && riichiOk(spec, st.scores[s])) { out.push(s); }
  }
  return out;
}

function riichiOk(spec, have) {
  const p = spec.price;
  return p.game.riichi_short === "all_in" ? have >= 0 : have >= p.points.riichi_deposit;
}

function clone(st) {
  return {...st, scores: st.scores.slice(), houki: st.houki.slice(), chips: st.chips.slice(),
    deposits: st.deposits.slice()};
}

const zeros = (n) => new Array(n).fill(0);
const add = (a, b) => a.map((x, i) => x + b[i]);
const up100 = (x) => Math.ceil(x / 100) * 100;

// ---------------------------------------------------------------- one hand's payment
/** The payment of one priced hand: {ron} | {dealer, non_dealer} | {all}. */
export function handPay(spec, {han = 0, fu = 0, yakuman = 0, dealer, tsumo, dora = 0}) {
  const p = spec.price;
  const cell = p.table[(dealer ? "d" : "n") + (tsumo ? "t" : "r")];
  let pay;
  if (yakuman) {
    pay = cell["y" + Math.min(yakuman, spec.max_yakuman)];
  } else {
    const h = Math.min(han, 13);
    pay = cell[h + "/" + (h >= 5 || !spec.use_fu ? 0 : fu)];
  }
  if (!pay) { throw new Unpriced("han_fu_pair"); }
  return addDora(spec, pay, dora);
}

function addDora(spec, pay, dora) {
  const per = spec.price.points.dora_per_tile;
  if (!per || !dora) { return pay; }
  if ("ron" in pay) { return {ron: pay.ron + per * dora}; }
  const each = up100(per * dora / (spec.players - 1));
  const out = {};
  for (const k of Object.keys(pay)) { out[k] = pay[k] + each; }
  return out;
}

/** What a hand's pay dict adds up to (honba and sticks excluded). */
export function payValue(spec, pay) {
  const payers = spec.players - 1;
  if ("ron" in pay) { return pay.ron; }
  if ("all" in pay) { return pay.all * payers; }
  return pay.dealer + pay.non_dealer * (payers - 1);
}

function spread(pay, n, winner, dealer, src) {
  const d = zeros(n);
  if (src !== null && src !== undefined) {
    d[src] -= pay.ron; d[winner] += pay.ron; return d;
  }
  for (let s = 0; s < n; s++) {
    if (s === winner) { continue; }
    const amount = "all" in pay ? pay.all : (s === dealer ? pay.dealer : pay.non_dealer);
    d[s] -= amount; d[winner] += amount;
  }
  return d;
}

function honbaBonus(spec, honba, tsumo, yakuless) {
  const pts = spec.price.points;
  const payers = tsumo ? spec.players - 1 : 1;
  if (yakuless && !pts.honba_on_yakuless_win) { honba = 0; }
  const each = honba * (tsumo ? pts.honba_tsumo_each : pts.honba_ron);
  return {each, total: each * payers};
}

function honbaPay(spec, honba, winner, payer, yakuless) {
  const n = spec.players, d = zeros(n);
  if (!spec.price.game.honba) { return d; }
  const bonus = honbaBonus(spec, honba, payer === null, yakuless);
  const payers = payer !== null ? [payer] : [...Array(n).keys()].filter((s) => s !== winner);
  for (const s of payers) { d[s] -= payer === null ? bonus.each : bonus.total; }
  d[winner] += bonus.total;
  return d;
}

function takeRiichi(st, spec, seats, deltas) {
  if (seats.length && spec.family === "mcr") { throw new Unpriced("mcr_riichi"); }
  const deposit = spec.price.points.riichi_deposit;
  for (const s of seats) {
    const have = st.scores[s] + deltas[s];
    if (!riichiOk(spec, have)) { throw new Unpriced("riichi_short"); }
    const amount = Math.min(deposit, Math.max(have, 0));
    deltas[s] -= amount; st.kyoutaku += amount; st.deposits.push([s, amount]);
  }
}

// ---------------------------------------------------------------- chips
function ronChips(spec, x) { return Math.floor(x * spec.chips.yakuman_ron_factor + 0.5); }

/** Chips (★) each payer owes for one win: scoring/chips.py award_chips, "each". */
export function winChips(spec, f) {
  const c = spec.chips;
  if (!c.enabled) { return 0; }
  let each = c.ura * (f.ura || 0);
  if (!f.open || !c.aka_closed_only) {
    each += c.aka * (f.aka || 0);
    if (c.reds && (f.aka || 0) >= c.reds) { each += c.all_star; }
  }
  if (f.ippatsu) { each += c.ippatsu; }
  if (f.pocchi) { each += c.pocchi; }
  let limit = f.yakuman ? c.yakuman_tsumo : (f.kazoe ? c.kazoe_tsumo : 0);
  if (!f.tsumo) { limit = ronChips(spec, limit); }
  return each + limit;
}

/** The chips a han/fu winner earns from what was entered (as the server fills them in). */
export function winnerChips(spec, w, tsumo) {
  if ("chips" in w) { return w.chips; }
  const ids = (w.yaku || []).map((y) => y.id);
  const yakuman = w.yakuman || 0;
  return winChips(spec, {ura: w.ura, aka: w.aka, ippatsu: w.ippatsu || ids.indexOf("ippatsu") >= 0,
    pocchi: w.pocchi, yakuman, kazoe: !yakuman && (w.han || 0) >= 13 && spec.kazoe,
    tsumo, open: !!w.open});
}

function limitChips(spec, yakuman, kazoe) {
  const c = spec.chips;
  if (!c.enabled) { return 0; }
  if (yakuman) { return c.yakuman_tsumo; }
  return kazoe ? c.kazoe_tsumo : 0;
}

// ---------------------------------------------------------------- win
function readWinner(st, spec, w, src) {
  if (w.seat === src) { throw new Unpriced("ron_own_discard"); }
  if (st.houki.indexOf(w.seat) >= 0) { throw new Unpriced("houki_win"); }
  if (w.hand) { throw new Unpriced("tiles"); }
  const tsumo = src === null;
  const chips = spec.family === "mcr" ? (w.chips || 0) : winnerChips(spec, w, tsumo);
  if (spec.family === "mcr") {
    const total = w.fan !== undefined ? w.fan : (w.han || 0);
    if (total - (w.flowers || 0) < spec.mcr_minimum) { throw new Unpriced("mcr_below_minimum"); }
    if (spec.mcr_maximum && total - (w.flowers || 0) > spec.mcr_maximum) { throw new Unpriced("mcr_above_maximum"); }
    return {seat: w.seat, mcr: total, chips, yakuman: 0, pao: null, yakuless: false, limit: 0};
  }
  const han = w.han || 0, yakuman = w.yakuman || 0, fu = w.fu || 0;
  const pay = handPay(spec, {han, fu, yakuman, dealer: w.seat === st.dealer, tsumo, dora: w.dora || 0});
  const pao = w.pao === undefined ? null : w.pao;
  if (pao !== null && (!spec.price.game.pao || pao === w.seat)) { throw new Unpriced("pao"); }
  const limit = limitChips(spec, !!yakuman, han >= 13 && spec.kazoe);
  return {seat: w.seat, pay, yakuman, chips, pao, yakuless: han === 0 && !yakuman,
    limit: Math.min(chips, limit)};
}

function paoSplit(d, winner, pao, src) {
  const value = d[winner], out = zeros(d.length);
  if (src === null) { out[pao] = -value; } else {
    const half = Math.floor(value / 2 / 100) * 100;
    out[pao] = -half; out[src] = -(value - half);
  }
  out[winner] = value;
  return out;
}

function handPart(st, spec, w, src) {
  const n = spec.players;
  if (w.pao === null || w.pao === src) { return spread(w.pay, n, w.seat, st.dealer, src); }
  if (w.yakuman <= 1) { return paoSplit(spread(w.pay, n, w.seat, st.dealer, src), w.seat, w.pao, src); }
  const kw = {dealer: w.seat === st.dealer, tsumo: src === null};
  const one = spread(handPay(spec, {...kw, yakuman: 1}), n, w.seat, st.dealer, src);
  const rest = spread(handPay(spec, {...kw, yakuman: w.yakuman - 1}), n, w.seat, st.dealer, src);
  return add(paoSplit(one, w.seat, w.pao, src), rest);
}

function mcrDeltas(spec, total, winner, src) {
  const d = zeros(spec.players);
  for (let s = 0; s < spec.players; s++) {
    if (s === winner) { continue; }
    const owed = src === null || src === s ? 8 + total : 8;
    d[s] -= owed; d[winner] += owed;
  }
  return d;
}

function winDeltas(st, spec, w, src, first) {
  if (w.mcr !== undefined) { return mcrDeltas(spec, w.mcr, w.seat, src); }
  let d = handPart(st, spec, w, src);
  if (!first) { return d; }
  if (w.pao !== null && src === null && spec.price.game.honba) {
    const bonus = honbaBonus(spec, st.honba, false, w.yakuless).total;
    d[w.pao] -= bonus; d[w.seat] += bonus;
  } else {
    d = add(d, honbaPay(spec, st.honba, w.seat, src, w.yakuless));
  }
  d[w.seat] += st.kyoutaku;
  return d;
}

function winChipMoves(st, spec, w, src) {
  if (!w.chips) { return; }
  let moves = src !== null ? [[src, w.chips]]
    : [...Array(spec.players).keys()].filter((s) => s !== w.seat).map((s) => [s, w.chips]);
  if (src === null && w.pao !== null) {
    moves = [[w.pao, w.chips - w.limit + ronChips(spec, w.limit)]];
  }
  for (const [s, c] of moves) { st.chips[s] -= c; st.chips[w.seat] += c; }
}

function orderWinners(st, spec, winners, src) {
  const g = spec.price.game, n = spec.players;
  if (src === null) {
    if (winners.length !== 1) { throw new Unpriced("tsumo_winners"); }
    return winners;
  }
  const sorted = winners.slice().sort((a, b) => ((a.seat - src + n) % n) - ((b.seat - src + n) % n));
  if (sorted.length > 1 && g.multi_ron === "atamahane") { throw new Unpriced("atamahane"); }
  if (sorted.length === 3 && g.multi_ron === "double") { throw new Unpriced("sanchahou"); }
  return sorted;
}

function onWin(st, spec, ev) {
  const src = ev.from === undefined ? null : ev.from;
  const riichi = ev.riichi || [];
  const winners = orderWinners(st, spec, ev.winners.map((w) => readWinner(st, spec, w, src)), src);
  let deltas = zeros(spec.players);
  takeRiichi(st, spec, riichi, deltas);
  winners.forEach((w, i) => {
    deltas = add(deltas, winDeltas(st, spec, w, src, i === 0));
    winChipMoves(st, spec, w, src);
  });
  st.kyoutaku = 0;
  const first = winners[0];
  if (winners.some((w) => w.yakuman) && spec.price.game.yakuman_ends_game) { st.yakuman_end = true; }
  const renchan = first.seat === st.dealer && spec.price.game.renchan !== "never";
  const honbaUp = renchan || (first.yakuless && !spec.price.points.honba_on_yakuless_win);
  return {deltas, renchan, honbaUp, yame: "agari_yame"};
}

// ---------------------------------------------------------------- draws and penalties
function notenDeltas(spec, tenpai) {
  const n = spec.players, total = spec.price.points.noten_total;
  const k = tenpai.length;
  if (k === 0 || k === n || !total) { return zeros(n); }
  const gain = Math.floor(total / k), loss = Math.floor(total / (n - k));
  return [...Array(n).keys()].map((s) => (tenpai.indexOf(s) >= 0 ? gain : -loss));
}

function limitPay(spec, yakuman, dealer) {
  const key = (dealer ? "d" : "n") + "t";
  return yakuman ? spec.price.table[key].y1 : spec.price.mangan[key];
}

function nagashiDeltas(st, spec, seats) {
  const yakuman = spec.price.game.nagashi === "yakuman";
  let d = zeros(spec.players);
  for (const s of seats) {
    d = add(d, spread(limitPay(spec, yakuman, s === st.dealer), spec.players, s, st.dealer, null));
  }
  return d;
}

function onDraw(st, spec, ev) {
  const g = spec.price.game, n = spec.players;
  const tenpai = ev.tenpai || [], riichi = ev.riichi || [], nagashi = ev.nagashi || [];
  if (nagashi.length && g.nagashi === "none") { throw new Unpriced("no_nagashi"); }
  if (nagashi.length && g.nagashi_as === "win") {
    let deltas = zeros(n);
    takeRiichi(st, spec, riichi, deltas);
    deltas = add(deltas, nagashiDeltas(st, spec, nagashi));
    const first = nagashi.slice().sort((a, b) => ((a - st.dealer + n) % n) - ((b - st.dealer + n) % n))[0];
    deltas = add(deltas, honbaPay(spec, st.honba, first, null, false));
    deltas[first] += st.kyoutaku;
    st.kyoutaku = 0;
    const renchan = first === st.dealer && g.renchan !== "never";
    return {deltas, renchan, honbaUp: renchan, yame: "agari_yame"};
  }
  if (tenpai.some((s) => st.houki.indexOf(s) >= 0)) { throw new Unpriced("houki_tenpai"); }
  // a chombo deferred to the draw (流局時チョンボ): the offenders are noten
  const deferred = ev.chombo || [];
  if (deferred.length && !g.chombo_at_draw) { throw new Unpriced("no_chombo_at_draw"); }
  if (deferred.some((s) => tenpai.indexOf(s) >= 0)) { throw new Unpriced("chombo_at_draw_tenpai"); }
  const notenRiichi = riichi.filter((s) => tenpai.indexOf(s) < 0 && deferred.indexOf(s) < 0);
  if (notenRiichi.length && g.riichi_noten_chombo) {
    let deltas = zeros(n);
    voidedRiichi(st, spec, riichi, deltas);
    for (const s of notenRiichi) { deltas = add(deltas, chomboDeltas(st, spec, s)); }
    return {deltas, chombo: true};
  }
  let deltas = zeros(n);
  takeRiichi(st, spec, riichi, deltas);
  deltas = add(deltas, nagashi.length ? nagashiDeltas(st, spec, nagashi) : notenDeltas(spec, tenpai));
  const renchan = g.renchan === "tenpai" && tenpai.indexOf(st.dealer) >= 0;
  return {deltas, renchan, honbaUp: true, yame: "tenpai_yame"};
}

// the sticks of a hand a chombo voids: given back with the hand's deposits, or left on the
// table for the next winner (game.chombo_returns_riichi)
function voidedRiichi(st, spec, seats, deltas) {
  const before = st.deposits.length;
  takeRiichi(st, spec, seats, deltas);
  if (!spec.price.game.chombo_returns_riichi) { st.deposits.splice(before); }
}

function onChombo(st, spec, ev) {
  const deltas = zeros(spec.players);
  voidedRiichi(st, spec, ev.riichi || [], deltas);
  return {deltas: add(deltas, chomboDeltas(st, spec, ev.seat)), chombo: true};
}

function onAbort(st, spec, ev) {
  const g = spec.price.game;
  if (g.abortive_draws.indexOf(ev.kind) < 0) { throw new Unpriced("abort_not_in_rules"); }
  if ((ev.seat !== undefined || ev.nukidora !== undefined) && ev.kind !== "kyuushu") {
    throw new Unpriced("abort_seat_kind");
  }
  if (ev.nukidora && spec.nukidora === "none") { throw new Unpriced("no_nukidora"); }
  if (ev.nukidora && !g.kyuushu_after_nukidora) { throw new Unpriced("kyuushu_after_nukidora"); }
  const riichi = ev.riichi || [];
  if (ev.kind === "suucha_riichi" && riichi.length !== spec.players) { throw new Unpriced("suucha_riichi_seats"); }
  const deltas = zeros(spec.players);
  takeRiichi(st, spec, riichi, deltas);
  return {deltas, renchan: g.abort_renchan && g.renchan !== "never", honbaUp: true, yame: ""};
}

function chomboDeltas(st, spec, seat) {
  const g = spec.price.game, n = spec.players;
  if (g.chombo === "none") { throw new Unpriced("no_chombo"); }
  if (g.chombo === "victory_points") { return zeros(n); }
  const pay = g.chombo === "each" ? {all: g.chombo_points} : limitPay(spec, false, seat === st.dealer);
  return spread(pay, n, seat, st.dealer, null).map((x) => -x);
}

function onPenalty(st, spec, ev) {
  const g = spec.price.game, n = spec.players, seat = ev.seat;
  let d = zeros(n);
  if (ev.kind === "deposit_1000") {
    if (!g.deposit_penalty) { throw new Unpriced("no_deposit_penalty"); }
    const amount = g.deposit_penalty_short === "all_in"
      ? Math.min(g.deposit_penalty, Math.max(st.scores[seat], 0)) : g.deposit_penalty;
    d[seat] -= amount; st.kyoutaku += amount; st.deposits.push([seat, amount]);
  } else if (ev.kind === "agari_houki") {
    if (!g.agari_houki) { throw new Unpriced("no_agari_houki"); }
    if (st.houki.indexOf(seat) < 0) { st.houki.push(seat); }
  } else {
    const pts = ev.points;
    if (ev.to !== undefined && ev.to !== null) {
      if (ev.to === seat) { throw new Unpriced("penalty_to_self"); }
      d[seat] = -pts; d[ev.to] = pts;
    } else {
      if (pts % (n - 1)) { throw new Unpriced("penalty_split"); }
      d = d.map((_, s) => (s === seat ? -pts : pts / (n - 1)));
    }
  }
  return {deltas: d, penalty: true};
}

function onEnd(st, spec, ev) {
  const reason = ev.reason || "time";
  if (reason !== "time" && st.yame_offer !== reason) { throw new Unpriced("yame_not_now"); }
  finish(st, reason);
  return {deltas: zeros(spec.players)};
}

// ---------------------------------------------------------------- progression
function finalWind(st, spec) {
  if (st.extension) { return 2; }
  return {tonpuu: 0, hanchan: 1, issou: 3}[spec.price.game.length];
}

function isLastHand(st, spec) { return st.wind === finalWind(st, spec) && st.dealer === spec.players - 1; }

function pointsEnd(st, spec) {
  const g = spec.price.game;
  if (st.yakuman_end) { return "yakuman"; }
  if (g.bust && st.scores.some((s) => s < 0)) { return "bust"; }
  if (g.end_at_points && st.scores.some((s) => s >= g.end_at_points)) { return "points"; }
  if (st.extension && st.scores.some((s) => s >= g.extension_target)) { return "extension_target"; }
  return "";
}

function rankOf(scores, seat, ties) {
  let rank = 1;
  scores.forEach((s, i) => {
    if (i === seat) { return; }
    if (s > scores[seat] || (ties === "seat" && s === scores[seat] && i < seat)) { rank += 1; }
  });
  return rank;
}

function goesWest(st, spec) {
  const target = spec.price.game.extension_target;
  return !!target && !st.extension && st.scores.every((s) => s < target);
}

function finish(st, reason) { st.finished = true; st.end_reason = reason; }

function advance(st, spec, renchan, honbaUp, yame) {
  const g = spec.price.game;
  st.honba = honbaUp && g.honba ? st.honba + 1 : 0;
  const reason = pointsEnd(st, spec);
  if (reason) { finish(st, reason); return; }
  const last = isLastHand(st, spec);
  if (renchan) {
    const mode = yame ? g[yame] : "forbidden";
    if (last && rankOf(st.scores, st.dealer, spec.price.ties) === 1 && mode !== "forbidden") {
      if (goesWest(st, spec) && g.extension_over_yame) {
        if (mode === "forced") { st.extension = true; st.wind = 2; st.dealer = 0; }
        return;
      }
      if (mode === "forced") { finish(st, yame); return; }
      st.yame_offer = yame;
    }
    return;
  }
  if (!last) {
    st.dealer += 1;
    if (st.dealer === spec.players) { st.dealer = 0; st.wind += 1; }
    return;
  }
  if (goesWest(st, spec)) { st.extension = true; st.wind = 2; st.dealer = 0; return; }
  finish(st, "last_hand");
}

const HANDLERS = {win: onWin, draw: onDraw, abort: onAbort, chombo: onChombo, penalty: onPenalty,
  end: onEnd};

/**
 * Apply one event to a local state: {state, deltas, priced}. The given state is left as it
 * was. An event this module cannot price (tiles, or one the engine would refuse) comes back
 * with priced = false, the state unchanged and the engine's reason code.
 */
export function apply(state, event, spec) {
  const st = clone(state), before = state.scores.slice();
  if (st.finished) { return {state, deltas: zeros(spec.players), priced: false, reason: "game_over"}; }
  let out;
  try {
    out = HANDLERS[event.event](st, spec, event);
  } catch (e) {
    if (e instanceof Unpriced) { return {state, deltas: zeros(spec.players), priced: false, reason: e.reason}; }
    throw e;
  }
  st.scores = add(st.scores, out.deltas);
  if (out.chombo) {
    for (const [s, amount] of st.deposits) { st.scores[s] += amount; st.kyoutaku -= amount; }
    st.deposits = []; st.houki = []; st.yame_offer = "";
    const reason = pointsEnd(st, spec);
    if (reason) { finish(st, reason); }
  } else if ("renchan" in out) {
    st.yame_offer = ""; st.deposits = []; st.houki = [];
    advance(st, spec, out.renchan, out.honbaUp, out.yame);
  } else if (out.penalty && pointsEnd(st, spec)) {
    finish(st, pointsEnd(st, spec));
  }
  return {state: st, deltas: st.scores.map((s, i) => s - before[i]), priced: true};
}
