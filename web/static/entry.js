// Entry forms for one event of a game (a win by ron or tsumo, a draw, an abortive draw, a
// chombo, a penalty, the end), built from the table's rules (entry_spec, club/entry.py)
// into any container: the tablet's panel, and the staff console's correction form.
//
//   const form = createEntry(container, {kind, spec, words, seats, riichi, state, onChange});
//   form.read()  -> {event, problems: [{field, text}], complete}
//   form.load(event)   fills the form from an event (editing a queued or refused entry)
//
// Only the controls the rules have are shown: the tiles of the set with its red fives and
// flowers, chi where it is allowed, the nukidora count, pocchi and open riichi, each
// situation flag where it is possible; han and fu from the pairs that exist, a yaku picker
// from the registry, or for MCR the fan total or a fan picker with its exclusions. Every
// tap re-renders the form (keeping the scroll), so what is shown is always the state.

const SUIT_ORDER = "mpsfz";

/** A DOM element: attributes ({text, class, on: {event: fn}}) and children. */
export function el(tag, attrs, children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) { continue; }
    if (k === "text") { e.textContent = v; } else if (k === "class") { e.className = v; }
    else if (k === "on") { for (const [ev, fn] of Object.entries(v)) { e.addEventListener(ev, fn); } }
    else { e.setAttribute(k, v === true ? "" : v); }
  }
  for (const c of children || []) { if (c) { e.appendChild(typeof c === "string" ? document.createTextNode(c) : c); } }
  return e;
}

/** "{who}: tap the han" with values filled. */
export function wordsOf(words) {
  return (key, values) => {
    let text = words[key] !== undefined ? words[key] : key;
    for (const [k, v] of Object.entries(values || {})) { text = text.split("{" + k + "}").join(String(v)); }
    return text;
  };
}

// ---------------------------------------------------------------- tiles as text
export function tilesToStr(tiles) {
  const order = (t) => SUIT_ORDER.indexOf(t[1]) * 10 + (t[0] === "0" ? 5.5 : Number(t[0]));
  const sorted = tiles.slice().sort((a, b) => order(a) - order(b));
  let out = "", digits = "", suit = "";
  for (const t of sorted) {
    if (t[1] !== suit && digits) { out += digits + suit; digits = ""; }
    suit = t[1]; digits += t[0];
  }
  return digits ? out + digits + suit : out;
}

export function strToTiles(text) {
  const out = [];
  let digits = "";
  for (const ch of text || "") {
    if (/[0-9]/.test(ch)) { digits += ch; } else { for (const d of digits) { out.push(d + ch); } digits = ""; }
  }
  return out;
}

// a tile as players name it: 1萬, 9索, 赤5筒 (★ is the chips' mark, never a tile's)
function tileLabel(t, honours, suits, red) {
  if (t[1] === "z") { return honours[Number(t[0]) - 1]; }
  if (t[1] === "f") { return "花" + t[0]; }
  const name = (t[0] === "0" ? "5" : t[0]) + (suits["mps".indexOf(t[1])] || t[1]);
  return t[0] === "0" ? red.replace("{tile}", name) : name;
}

// ---------------------------------------------------------------- the form
export function createEntry(container, opts) {
  const {kind, spec, seats} = opts;
  const w = wordsOf(opts.words);
  const riichi = () => (opts.riichi ? opts.riichi() : []);
  const state = opts.state || {};
  const n = spec.players;
  const mcr = spec.family === "mcr";
  const honours = (opts.words["entry.honours"] || "東,南,西,北,白,發,中").split(",");
  const suits = (opts.words["entry.suits"] || "萬,筒,索").split(",");
  const red = opts.words["entry.red_five"] || "赤{tile}";
  const penaltyPoints = () => spec.events.penalty_points || 1000;
  const penaltyStep = () => spec.events.penalty_step || 100;
  const F = {winners: [], from: null, per: {}, tenpai: [], nagashi: [], chombo: [], kind: null,
    seat: null, nukidora: 0, points: penaltyPoints() * (n - 1), to: null, reason: "time"};
  if (kind === "abort" && spec.events.abort.length === 1) { F.kind = spec.events.abort[0]; }
  if (kind === "penalty" && spec.events.penalty.length === 1) { F.kind = spec.events.penalty[0]; }
  const tsumo = kind === "tsumo";

  const seatText = (s) => `${seats[s].wind_text} ${seats[s].name}`;
  const changed = () => { render(); if (opts.onChange) { opts.onChange(); } };

  function per(seat) {
    if (!F.per[seat]) {
      F.per[seat] = {mode: mcr ? "total" : "hanfu", han: null, fu: null, yakuman: 0,
        aka: 0, ura: 0, dora: 0, nukidora: 0, ippatsu: false, pocchi: false, open: false,
        yaku: [], fans: {}, fan: "", flowers: 0, pao: null,
        tiles: {hand: [], win: [], dora: [], ura: [], melds: [], target: "hand"}, flags: {}};
    }
    return F.per[seat];
  }

  // ------------------------------------------------------------ building blocks
  function pick(items, {selected, onPick, cls, testid}) {
    const row = el("div", {class: "pick " + (cls || "")});
    for (const it of items) {
      const on = Array.isArray(selected) ? selected.indexOf(it.value) >= 0 : selected === it.value;
      row.appendChild(el("button", {type: "button", class: "btn pick-btn" + (on ? " on" : "") + (it.cls ? " " + it.cls : ""),
        "aria-pressed": on ? "true" : "false", disabled: it.disabled, title: it.title,
        "data-value": String(it.value), "data-testid": testid ? testid + "-" + it.value : undefined,
        on: {click: () => onPick(it.value)}}, [it.label]));
    }
    return row;
  }
  function seatItems(disabled) {
    // the dealer is named by a 親 badge: an outline would read as a selection
    return seats.map((s) => ({value: s.seat, disabled: disabled ? disabled(s.seat) : false,
      label: s.dealer ? el("span", {}, [seatText(s.seat) + " ", el("span", {class: "dealer-badge", text: w("tablet.dealer")})])
        : seatText(s.seat)}));
  }
  function section(title, body, cls) {
    return el("section", {class: "entry-section " + (cls || "")}, [title ? el("h3", {text: title}) : null, ...body]);
  }
  function stepper(label, value, onSet, {min = 0, max = 20, step = 1, testid} = {}) {
    return el("div", {class: "stepper", "data-testid": testid}, [
      el("span", {class: "stepper-label", text: label}),
      el("button", {type: "button", class: "btn step minus", "aria-label": "-", disabled: value - step < min,
        on: {click: () => onSet(value - step)}}, ["−"]),
      el("span", {class: "stepper-value", text: value.toLocaleString()}),
      el("button", {type: "button", class: "btn step plus", "aria-label": "+", disabled: value + step > max,
        on: {click: () => onSet(value + step)}}, ["+"]),
    ]);
  }
  function toggle(label, on, onSet, testid) {
    return el("button", {type: "button", class: "btn toggle" + (on ? " on" : ""), "aria-pressed": on ? "true" : "false",
      "data-testid": testid, on: {click: () => onSet(!on)}}, [label]);
  }

  // ------------------------------------------------------------ a win
  function pairsNow() { return spec.pairs[tsumo ? "tsumo" : "ron"]; }
  function hansNow() {
    const out = [];
    for (const [h] of pairsNow()) { if (out.indexOf(h) < 0) { out.push(h); } }
    return out.sort((a, b) => a - b);
  }
  function fusFor(han) {
    if (!spec.use_fu || han >= 5) { return []; }
    return pairsNow().filter((p) => p[0] === han && p[1]).map((p) => p[1]);
  }
  function declared(seat) { return riichi().indexOf(seat) >= 0; }
  const COMMON_FU = 60;

  // the value a pay cell adds up to, to name the limit a han and fu reach
  function payTotal(pay) {
    if (!pay) { return 0; }
    if ("ron" in pay) { return pay.ron; }
    if ("all" in pay) { return pay.all * (n - 1); }
    return pay.dealer + pay.non_dealer * (n - 2);
  }
  const LIMITS = [[1, "mangan"], [1.5, "haneman"], [2, "baiman"], [3, "sanbaiman"], [4, "yakuman"]];
  /** The limit a hand of ``han`` (and ``fu``) is paid as for a non-dealer: "mangan"... or "". */
  function limitOf(han, fu) {
    const price = spec.price || {}, table = (price.table || {})[tsumo ? "nt" : "nr"];
    const mangan = payTotal(((price.mangan || {})[tsumo ? "nt" : "nr"]) || null);
    if (!table || !mangan) { return ""; }
    const h = Math.min(han, 13), value = payTotal(table[h + "/" + (h >= 5 || !spec.use_fu ? 0 : fu)]);
    const hit = LIMITS.find(([x]) => value === mangan * x);
    return hit ? hit[1] : "";
  }

  function hanfuBlock(seat, P) {
    const out = [];
    const withFu = hansNow().filter((h) => fusFor(h).length);
    // han and fu in one tap: a row per han, its fu beside it (the common ones; the rest on
    // request), the way a price list is read
    if (withFu.length) {
      const every = withFu.some((h) => fusFor(h).some((f) => f > COMMON_FU));
      const grid = el("div", {class: "hf-grid", "data-testid": `hf-${seat}`});
      for (const h of withFu) {
        const fus = fusFor(h).filter((f) => P.allFu || f <= COMMON_FU || (P.han === h && P.fu === f));
        grid.appendChild(el("div", {class: "hf-row"}, [el("span", {class: "hf-han", text: w("entry.han_n", {n: h})}),
          pick(fus.map((f) => {
            const limit = limitOf(h, f);
            return {value: f, label: w("entry.fu_n", {n: f}), cls: limit ? "limit" : "",
              title: w("entry.han_n", {n: h}) + w("entry.fu_n", {n: f}) + (limit ? " " + w("tablet.limit." + limit) : "")};
          }), {selected: !P.yakuman && P.han === h ? P.fu : null, cls: "fu-pick hf-fus", testid: `hf-${seat}-${h}`,
            onPick: (f) => { P.yakuman = 0; P.han = h; P.fu = f; changed(); }})]));
      }
      if (every) {
        grid.appendChild(el("button", {type: "button", class: "btn small hf-more", "data-testid": `hf-more-${seat}`,
          "aria-pressed": P.allFu ? "true" : "false", on: {click: () => { P.allFu = !P.allFu; changed(); }}},
        [w(P.allFu ? "entry.fewer_fu" : "entry.more_fu")]));
      }
      out.push(grid);
    }
    const hanItems = hansNow().filter((h) => withFu.indexOf(h) < 0).map((h) => {
      const limit = limitOf(h, 0);
      return {value: "h" + h, label: w("entry.han_n", {n: h}) + (limit ? " " + w("tablet.limit." + limit) : ""),
        cls: limit ? "limit-han" : ""};
    });
    for (let y = 1; y <= spec.max_yakuman; y++) {
      hanItems.push({value: "y" + y, label: y === 1 ? w("entry.yakuman") : w("entry.yakuman_times", {n: y}), cls: "yakuman"});
    }
    const sel = P.yakuman ? "y" + P.yakuman : (P.han !== null ? "h" + P.han : null);
    out.push(pick(hanItems, {selected: sel, cls: "han-pick", testid: `han-${seat}`, onPick: (v) => {
      if (v[0] === "y") { P.yakuman = Number(v.slice(1)); P.han = null; P.fu = null; }
      else { P.yakuman = 0; P.han = Number(v.slice(1)); P.fu = null; }
      changed();
    }}));
    out.push(chipsRow(seat, P));
    return out;
  }

  function chipsRow(seat, P) {
    const c = spec.chips;
    if (!c.enabled) { return null; }
    const parts = [];
    if (c.aka && c.reds) { parts.push(stepper(w("entry.aka"), P.aka, (x) => { P.aka = x; changed(); }, {max: c.reds, testid: `aka-${seat}`})); }
    if (c.ura && declared(seat) && spec.counters.ura) { parts.push(stepper(w("entry.ura"), P.ura, (x) => { P.ura = x; changed(); }, {max: 20, testid: `ura-${seat}`})); }
    if (c.ippatsu && spec.flags.indexOf("ippatsu") >= 0 && declared(seat)) {
      parts.push(toggle(w("entry.ippatsu"), P.ippatsu, (x) => { P.ippatsu = x; changed(); }, `ippatsu-${seat}`));
    }
    if (c.pocchi && spec.pocchi && tsumo && declared(seat)) {
      parts.push(toggle(w("entry.pocchi"), P.pocchi, (x) => { P.pocchi = x; changed(); }, `pocchi-${seat}`));
    }
    if (!parts.length) { return null; }
    return el("div", {class: "chips-row"}, [el("span", {class: "chips-title", text: w("entry.chips")}), ...parts]);
  }

  function yakuValue(y, P) { return y.yakuman ? 0 : (P.open ? y.open : y.closed); }
  function yakuTotal(P) {
    let han = 0, yakuman = 0;
    for (const id of P.yaku) {
      const y = spec.yaku.find((x) => x.id === id);
      if (!y) { continue; }
      if (y.yakuman) { yakuman += y.yakuman; } else { han += yakuValue(y, P); }
    }
    if (yakuman) { yakuman = spec.yakuman_stacking ? Math.min(yakuman, spec.max_yakuman) : 1; }
    for (const [name, ctr] of Object.entries(spec.counters)) { if (ctr.han) { han += P[name] || 0; } }
    return {han, yakuman};
  }
  function yakuAllowed(y, seat, P) {
    const r = spec.yaku_rules;
    if (!y.yakuman && !yakuValue(y, P)) { return false; }
    if (tsumo ? r.ron_only.indexOf(y.id) >= 0 : r.tsumo_only.indexOf(y.id) >= 0) { return false; }
    if ((r.riichi.indexOf(y.id) >= 0 || y.id === "ippatsu") && !declared(seat)) { return false; }
    const dealer = seats[seat].dealer;
    if ((y.id === "tenhou" && (!dealer || !tsumo)) || ((y.id === "chiihou" || y.id === "renhou") && dealer)) { return false; }
    return true;
  }
  function toggleYaku(P, id) {
    const i = P.yaku.indexOf(id);
    if (i >= 0) { P.yaku.splice(i, 1); return; }
    for (const [a, b] of spec.yaku_rules.together) {
      const other = a === id ? b : (b === id ? a : null);
      if (other) { const j = P.yaku.indexOf(other); if (j >= 0) { P.yaku.splice(j, 1); } }
    }
    P.yaku.push(id);
  }
  function autoFu(P, total) {
    if (!spec.use_fu || total.yakuman || total.han >= 5) { P.fu = null; return; }
    const fus = fusFor(total.han);
    if (P.yaku.indexOf("chiitoitsu") >= 0 && fus.indexOf(spec.chiitoitsu_fu) >= 0) { P.fu = spec.chiitoitsu_fu; }
    else if (P.yaku.indexOf("pinfu") >= 0) { const f = tsumo && spec.pinfu_tsumo ? 20 : 30; if (fus.indexOf(f) >= 0) { P.fu = f; } }
    else if (fus.length === 1) { P.fu = fus[0]; }
    if (fus.indexOf(P.fu) < 0) { P.fu = null; }
  }
  function yakuBlock(seat, P) {
    const out = [];
    out.push(pick([{value: "closed", label: w("entry.closed")}, {value: "open", label: w("entry.open")}],
      {selected: P.open ? "open" : "closed", cls: "open-pick", testid: `open-${seat}`, onPick: (v) => {
        P.open = v === "open";
        P.yaku = P.yaku.filter((id) => { const y = spec.yaku.find((x) => x.id === id); return y && yakuAllowed(y, seat, P); });
        changed();
      }}));
    const groups = {};
    for (const y of spec.yaku) {
      if (!yakuAllowed(y, seat, P) && P.yaku.indexOf(y.id) < 0) { continue; }
      const key = y.yakuman ? 100 : yakuValue(y, P);
      (groups[key] = groups[key] || []).push(y);
    }
    for (const key of Object.keys(groups).map(Number).sort((a, b) => a - b)) {
      const title = key === 100 ? w("entry.yakuman") : w("entry.han_n", {n: key});
      out.push(section(title, [pick(groups[key].map((y) => ({value: y.id, label: y[opts.lang === "en" ? "en" : "ja"]})),
        {selected: P.yaku, cls: "yaku-pick", testid: `yaku-${seat}`, onPick: (id) => { toggleYaku(P, id); autoFu(P, yakuTotal(P)); changed(); }})], "yaku-group"));
    }
    const counters = [];
    for (const name of Object.keys(spec.counters)) {
      if (name === "ura" && !declared(seat)) { continue; }
      const label = name === "nukidora" ? w("entry.nukidora." + spec.nukidora) : w("entry." + name);
      const max = name === "aka" ? spec.chips.reds : (name === "nukidora" ? (spec.nukidora === "north" ? 4 : spec.tiles.flowers) : 20);
      counters.push(stepper(label, P[name], (x) => { P[name] = x; autoFu(P, yakuTotal(P)); changed(); }, {max, testid: `${name}-${seat}`}));
    }
    if (counters.length) { out.push(el("div", {class: "counters"}, counters)); }
    const total = yakuTotal(P);
    out.push(el("p", {class: "total", "data-testid": `total-${seat}`, text: total.yakuman
      ? (total.yakuman > 1 ? w("entry.yakuman_times", {n: total.yakuman}) : w("entry.yakuman"))
      : w("entry.total_han", {han: total.han})}));
    const fus = total.yakuman ? [] : fusFor(total.han);
    if (fus.length) {
      out.push(pick(fus.map((f) => ({value: f, label: w("entry.fu_n", {n: f})})), {selected: P.fu, cls: "fu-pick",
        testid: `fu-${seat}`, onPick: (v) => { P.fu = v; changed(); }}));
    }
    const c = spec.chips;
    if (c.enabled && c.pocchi && spec.pocchi && tsumo && declared(seat)) {
      out.push(toggle(w("entry.pocchi"), P.pocchi, (x) => { P.pocchi = x; changed(); }, `pocchi-${seat}`));
    }
    return out;
  }

  function tilesBlock(seat, P) {
    const T = P.tiles, out = [];
    const targets = [["hand", w("entry.hand")], ["win", w("entry.win_tile")]];
    if (!mcr) {
      targets.push(["dora", w("entry.dora_ind")]);
      if (spec.counters.ura && declared(seat)) { targets.push(["ura", w("entry.ura_ind")]); }
    }
    T.melds.forEach((m, i) => targets.push(["meld:" + i, w("tablet.meld." + m.type)]));
    const list = (name) => (name.indexOf("meld:") === 0 ? T.melds[Number(name.slice(5))].tiles : T[name]);
    out.push(el("div", {class: "tile-fields"}, targets.map(([name, label]) =>
      el("button", {type: "button", class: "btn tile-target" + (T.target === name ? " on" : ""), "data-target": name,
        on: {click: () => { T.target = name; changed(); }}}, [label + ": " + (list(name).map((t) => tileLabel(t, honours, suits, red)).join(" ") || "—")]))));
    const melds = ["pon", "minkan", "ankan"];
    if (spec.chi) { melds.unshift("chi"); }
    out.push(el("div", {class: "row meld-buttons"}, melds.map((type) =>
      el("button", {type: "button", class: "btn small add-meld", "data-meld": type, on: {click: () => {
        T.melds.push({type, tiles: []}); T.target = "meld:" + (T.melds.length - 1); changed();
      }}}, ["+ " + w("tablet.meld." + type)]))));
    const keys = el("div", {class: "tile-keys"});
    for (const s of ["m", "p", "s", "z"]) {
      const kinds = spec.tiles.kinds[s].map((k) => k + s);
      if (s !== "z" && spec.tiles.red[s]) { kinds.splice(kinds.indexOf("5" + s) + 1, 0, "0" + s); }
      for (const t of kinds) {
        keys.appendChild(el("button", {type: "button", class: `tile-key suit-${s}` + (t[0] === "0" ? " red" : ""), "data-tile": t, title: t,
          on: {click: () => { if (T.target === "win") { T.win = [t]; } else { list(T.target).push(t); } changed(); }}}, [tileLabel(t, honours, suits, red)]));
      }
    }
    keys.appendChild(el("button", {type: "button", class: "tile-key back", "data-tile": "back", "aria-label": w("entry.back"),
      on: {click: () => { list(T.target).pop(); changed(); }}}, ["⌫"]));
    out.push(keys);
    if (mcr) {
      out.push(stepper(w("entry.flowers"), P.flowers, (x) => { P.flowers = x; changed(); }, {max: spec.tiles.flowers, testid: `flowers-${seat}`}));
      out.push(flagRow(seat, P, spec.mcr_flags.filter((f) => (f === "kong_replacement" ? tsumo : (f === "robbing_kong" ? !tsumo : true)))));
    } else {
      if (spec.nukidora !== "none") {
        out.push(stepper(w("entry.nukidora." + spec.nukidora), P.nukidora, (x) => { P.nukidora = x; changed(); },
          {max: spec.nukidora === "north" ? 4 : spec.tiles.flowers, testid: `nukidora-${seat}`}));
      }
      out.push(flagRow(seat, P, possibleFlags(seat)));
    }
    return out;
  }

  function possibleFlags(seat) {
    const dealer = seats[seat].dealer, r = declared(seat);
    return spec.flags.filter((f) => {
      if (f === "ippatsu" || f === "double_riichi" || f === "open_riichi") { return r; }
      if (f === "pocchi") { return r && tsumo; }
      if (f === "haitei" || f === "rinshan") { return tsumo; }
      if (f === "houtei" || f === "chankan") { return !tsumo; }
      if (f === "tenhou") { return tsumo && dealer && !r; }
      if (f === "chiihou") { return tsumo && !dealer && !r; }
      if (f === "renhou") { return !tsumo && !dealer && !r; }
      return true;
    });
  }
  function flagRow(seat, P, flags) {
    if (!flags.length) { return null; }
    return section(w("entry.flags"), [el("div", {class: "row flags"}, flags.map((f) =>
      toggle(w("entry.flag." + f), !!P.flags[f], (x) => { P.flags[f] = x; changed(); }, `flag-${f}-${seat}`)))], "flags-section");
  }

  const QUICK_FANS = [8, 9, 10, 11, 12, 13, 16, 24, 32, 48, 64, 88];
  function totalBlock(seat, P) {
    const out = [];
    out.push(el("div", {class: "fan-display", "data-testid": `fan-${seat}`}, [
      el("span", {class: "fan-value", text: w("entry.fan_n", {n: P.fan || "0"})})]));
    out.push(pick(QUICK_FANS.map((f) => ({value: f, label: String(f)})), {selected: Number(P.fan), cls: "fan-quick",
      testid: `fanq-${seat}`, onPick: (v) => { P.fan = String(v); changed(); }}));
    const pad = el("div", {class: "digit-pad"});
    for (const d of "1234567890") {
      pad.appendChild(el("button", {type: "button", class: "btn digit", "data-digit": d, on: {click: () => {
        P.fan = (P.fan + d).replace(/^0+/, "").slice(0, 3); changed(); }}}, [d]));
    }
    pad.appendChild(el("button", {type: "button", class: "btn digit", "aria-label": w("entry.back"), on: {click: () => { P.fan = P.fan.slice(0, -1); changed(); }}}, ["⌫"]));
    out.push(pad);
    if (spec.tiles.flowers) {
      out.push(stepper(w("entry.flowers"), P.flowers, (x) => { P.flowers = x; changed(); }, {max: spec.tiles.flowers, testid: `flowers-${seat}`}));
    }
    return out;
  }

  function excludedBy(P) {
    const out = {};
    for (const id of Object.keys(P.fans)) {
      const f = spec.fans.find((x) => x.id === id);
      for (const x of f.excludes) { out[x] = id; }
    }
    return out;
  }
  function fanTotal(P) {
    let total = 0;
    for (const [id, count] of Object.entries(P.fans)) { total += spec.fans.find((x) => x.id === id).points * count; }
    return total;
  }
  /** A fan by its name in the page's language (Japanese in Japanese kanji: 四槓, 無番和). */
  function fanName(f) {
    const key = "mcr.fan." + f.id;
    return opts.words[key] !== undefined ? w(key) : (opts.lang === "en" ? f.en : f.zh);
  }
  function fansBlock(seat, P) {
    const out = [], excluded = excludedBy(P), groups = {};
    for (const f of spec.fans) { (groups[f.points] = groups[f.points] || []).push(f); }
    for (const pts of Object.keys(groups).map(Number).sort((a, b) => b - a)) {
      const items = groups[pts].map((f) => ({value: f.id, disabled: !!excluded[f.id] && !P.fans[f.id],
        label: fanName(f) + (P.fans[f.id] > 1 ? " ×" + P.fans[f.id] : "")}));
      out.push(section(w("entry.fan_n", {n: pts}), [pick(items, {selected: Object.keys(P.fans), cls: "fan-pick", testid: `fans-${seat}`,
        onPick: (id) => {
          const f = spec.fans.find((x) => x.id === id);
          const c = P.fans[id] || 0;
          if (c && (!f.repeat || c >= 4)) { delete P.fans[id]; } else { P.fans[id] = c + 1; }
          for (const x of f.excludes) { delete P.fans[x]; }
          changed();
        }})], "fan-group"));
    }
    if (spec.tiles.flowers) {
      out.push(stepper(w("entry.flowers"), P.flowers, (x) => { P.flowers = x; changed(); }, {max: spec.tiles.flowers, testid: `flowers-${seat}`}));
    }
    out.push(el("p", {class: "total", "data-testid": `total-${seat}`, text: w("entry.total_fan", {fan: fanTotal(P) + P.flowers, flowers: P.flowers})}));
    return out;
  }

  function winnerBlock(seat) {
    const P = per(seat);
    const modes = mcr ? ["total", "fans", "tiles"] : ["hanfu", "yaku", "tiles"];
    const box = el("fieldset", {class: "winner", "data-seat": String(seat), "data-testid": `winner-${seat}`});
    box.appendChild(el("legend", {text: w("tablet.field.winner", {who: seatText(seat)})}));
    const modeWord = (m) => w("entry.mode." + (m === "hanfu" && !spec.use_fu ? "han" : m));
    box.appendChild(pick(modes.map((m) => ({value: m, label: modeWord(m)})), {selected: P.mode, cls: "mode-pick",
      testid: `mode-${seat}`, onPick: (m) => {
        P.mode = m;
        if (m === "yaku" && !P.yaku.length) {
          if (declared(seat)) { P.yaku.push("riichi"); }
          if (tsumo && !P.open && spec.yaku.some((y) => y.id === "menzen_tsumo")) { P.yaku.push("menzen_tsumo"); }
          autoFu(P, yakuTotal(P));
        }
        changed();
      }}));
    const body = {hanfu: hanfuBlock, yaku: yakuBlock, tiles: tilesBlock, total: totalBlock, fans: fansBlock}[P.mode](seat, P);
    for (const b of body) { if (b) { box.appendChild(b); } }
    if (spec.events.pao && !mcr) {
      box.appendChild(section(w("entry.pao"), [pick([{value: "none", label: w("entry.none")}].concat(seatItems((s) => s === seat)),
        {selected: P.pao === null ? "none" : P.pao, cls: "pao-pick small", testid: `pao-${seat}`,
          onPick: (v) => { P.pao = v === "none" ? null : v; changed(); }})], "pao-section"));
    }
    return box;
  }

  /** Who declared riichi, toggled here beside the hand's other choices (the live table's
   * seat buttons say the same): shown where the tablet can set it. */
  function riichiRow() {
    if (!opts.setRiichi || !spec.events.riichi) { return null; }
    const able = state.riichi_able || seats.map((s) => s.seat);
    return section(w("tablet.riichi"), [pick(seats.map((s) => ({value: s.seat, label: seatText(s.seat),
      disabled: !declared(s.seat) && able.indexOf(s.seat) < 0})),
    {selected: riichi(), cls: "seat-pick riichi-pick", testid: "panel-riichi", onPick: (s) => {
      opts.setRiichi(s, !declared(s)); changed();
    }})], "riichi-section");
  }

  function winForm() {
    const out = [];
    const multi = !tsumo && spec.events.max_winners > 1;
    out.push(section(w(multi ? "entry.winners" : "entry.winner"), [pick(seatItems((s) => !tsumo && s === F.from),
      {selected: F.winners, cls: "seat-pick", testid: "winner", onPick: (s) => {
        const i = F.winners.indexOf(s);
        if (i >= 0) { F.winners.splice(i, 1); } else if (multi) { F.winners.push(s); } else { F.winners = [s]; }
        changed();
      }})], "winners-section"));
    if (!tsumo) {
      out.push(section(w("entry.discarder"), [pick(seatItems((s) => F.winners.indexOf(s) >= 0),
        {selected: F.from, cls: "seat-pick", testid: "from", onPick: (s) => { F.from = F.from === s ? null : s; changed(); }})], "from-section"));
    }
    out.push(riichiRow());
    for (const s of F.winners) { out.push(winnerBlock(s)); }
    return out;
  }

  // ------------------------------------------------------------ other events
  function drawForm() {
    const out = [riichiRow()];
    if (spec.events.tenpai) {
      out.push(section(w("entry.tenpai"), [pick(seatItems((s) => (state.houki || []).indexOf(s) >= 0 || F.chombo.indexOf(s) >= 0),
        {selected: F.tenpai, cls: "seat-pick", testid: "tenpai", onPick: (s) => {
          const i = F.tenpai.indexOf(s); if (i >= 0) { F.tenpai.splice(i, 1); } else { F.tenpai.push(s); } changed();
        }})]));
    }
    if (spec.events.nagashi) {
      out.push(section(w("entry.nagashi"), [pick(seatItems(), {selected: F.nagashi, cls: "seat-pick small", testid: "nagashi",
        onPick: (s) => { const i = F.nagashi.indexOf(s); if (i >= 0) { F.nagashi.splice(i, 1); } else { F.nagashi.push(s); } changed(); }})], "nagashi-section"));
    }
    if (spec.events.chombo_at_draw) {
      // 流局時チョンボ: the offender pays as noten, so they cannot be tenpai as well
      out.push(section(w("entry.chombo_at_draw"), [pick(seatItems((s) => F.tenpai.indexOf(s) >= 0),
        {selected: F.chombo, cls: "seat-pick small", testid: "chombo-at-draw", onPick: (s) => {
          const i = F.chombo.indexOf(s); if (i >= 0) { F.chombo.splice(i, 1); } else { F.chombo.push(s); } changed();
        }})], "chombo-at-draw-section"));
    }
    return out;
  }
  function abortForm() {
    const out = [section(w("entry.kind"), [pick(spec.events.abort.map((k) => ({value: k, label: w("tablet.kind." + k)})),
      {selected: F.kind, cls: "kind-pick", testid: "abort", onPick: (k) => { F.kind = k; changed(); }})])];
    if (F.kind === "kyuushu" && spec.events.kyuushu_nukidora) {
      // nine terminals declared after setting tiles aside keeps its right (002 3B)
      out.push(section(w("entry.kyuushu_seat"), [pick(seatItems(), {selected: F.seat, cls: "seat-pick small",
        testid: "kyuushu-seat", onPick: (s) => { F.seat = F.seat === s ? null : s; changed(); }})]));
      out.push(stepper(w("entry.kyuushu_nukidora"), F.nukidora, (x) => { F.nukidora = x; changed(); },
        {min: 0, max: spec.nukidora === "flowers" ? spec.tiles.flowers || 4 : 4, testid: "kyuushu-nukidora"}));
    }
    return out;
  }
  function chomboForm() {
    return seatForm().concat([riichiRow()]);
  }
  function seatForm() {
    return [section(w("entry.seat"), [pick(seatItems(), {selected: F.seat, cls: "seat-pick", testid: "who",
      onPick: (s) => { F.seat = s; changed(); }})])];
  }
  function penaltyForm() {
    const out = seatForm();
    out.push(section(w("entry.kind"), [pick(spec.events.penalty.map((k) => ({value: k, label: w("tablet.kind." + k)})),
      {selected: F.kind, cls: "kind-pick", testid: "penalty", onPick: (k) => { F.kind = k; changed(); }})]));
    if (F.kind === "points") {
      // the rules' step per player paid (MCR: tens); shared by all, a step the others split evenly
      const step = F.to === null ? (n - 1) * penaltyStep() : penaltyStep();
      out.push(stepper(w("entry.points"), F.points, (x) => { F.points = x; changed(); },
        {min: step, max: 100000, step, testid: "points-amount"}));
      out.push(section(w("entry.to"), [pick([{value: "all", label: w("entry.to_all")}].concat(seatItems((s) => s === F.seat)),
        {selected: F.to === null ? "all" : F.to, cls: "seat-pick small", testid: "to", onPick: (v) => {
          F.to = v === "all" ? null : v;
          const unit = (n - 1) * penaltyStep();
          if (F.to === null) { F.points = Math.max(1, Math.round(F.points / unit)) * unit; }
          changed();
        }})]));
    }
    return out;
  }
  function endForm() {
    const reasons = ["time"].concat(state.yame_offer ? [state.yame_offer] : []);
    const out = [el("p", {class: "confirm-text", text: w("tablet.end_confirm")})];
    if (reasons.length > 1) {
      out.push(pick(reasons.map((r) => ({value: r, label: w("tablet.end_reason." + r)})),
        {selected: F.reason, cls: "kind-pick", testid: "reason", onPick: (r) => { F.reason = r; changed(); }}));
    }
    return out;
  }

  const FORMS = {ron: winForm, tsumo: winForm, draw: drawForm, abort: abortForm, chombo: chomboForm,
    penalty: penaltyForm, end: endForm};

  function render() {
    const top = container.scrollTop;
    container.innerHTML = "";
    for (const part of FORMS[kind]()) { if (part) { container.appendChild(part); } }
    container.scrollTop = top;
  }

  // ------------------------------------------------------------ reading it
  function readWinner(seat, problems, i) {
    const P = per(seat), out = {seat}, who = seatText(seat), at = `winners[${i}]`;
    const need = (key, field) => problems.push({field: at + "." + field, text: w(key, {who})});
    if (P.mode === "tiles") {
      const T = P.tiles;
      if (!T.win.length || !T.hand.length) { need("entry.need.tiles", "hand"); return out; }
      const hand = {hand: tilesToStr(T.hand.concat(T.win)), win: T.win[0]};
      const melds = T.melds.filter((m) => m.tiles.length).map((m) => ({type: m.type, tiles: tilesToStr(m.tiles)}));
      if (melds.length) { hand.melds = melds; }
      if (T.dora.length) { hand.dora = tilesToStr(T.dora); }
      if (T.ura.length) { hand.ura = tilesToStr(T.ura); }
      if (P.nukidora) { hand.nukidora = P.nukidora; }
      if (mcr && P.flowers) { hand.flowers = P.flowers; }
      for (const [f, on] of Object.entries(P.flags)) { if (on) { hand[f] = true; } }
      out.hand = hand;
      return out;
    }
    if (mcr) {
      if (P.mode === "fans") {
        const fans = Object.entries(P.fans).map(([id, count]) => ({id, count}));
        if (!fans.length) { need("entry.need.fan", "fans"); return out; }
        out.fans = fans;
        out.fan = fanTotal(P) + P.flowers;
      } else {
        if (!Number(P.fan)) { need("entry.need.fan", "fan"); return out; }
        out.fan = Number(P.fan) + P.flowers;
      }
      if (P.flowers) { out.flowers = P.flowers; }
      if (out.fan - (P.flowers || 0) < spec.mcr_minimum) {
        problems.push({field: at + ".fan", text: w("entry.bad.mcr_minimum", {who, fan: out.fan - (P.flowers || 0), minimum: spec.mcr_minimum})});
      } else if (spec.mcr_maximum && out.fan - (P.flowers || 0) > spec.mcr_maximum) {
        problems.push({field: at + ".fan", text: w("entry.bad.mcr_maximum", {who, fan: out.fan - (P.flowers || 0), most: spec.mcr_maximum})});
      }
      return out;
    }
    if (P.mode === "yaku") {
      if (!P.yaku.length) { need("entry.need.yaku", "yaku"); return out; }
      out.yaku = P.yaku.map((id) => {
        const y = spec.yaku.find((x) => x.id === id);
        return y.yakuman ? {id, yakuman: y.yakuman} : {id, han: yakuValue(y, P)};
      });
      if (P.open) { out.open = true; }
      const total = yakuTotal(P);
      if (total.yakuman) { out.yakuman = Math.min(total.yakuman, spec.max_yakuman); }
      else { out.han = total.han; }
      for (const name of Object.keys(spec.counters)) { if (P[name]) { out[name] = P[name]; } }
    } else {
      if (P.yakuman) { out.yakuman = P.yakuman; }
      else if (P.han === null) { need("entry.need.han", "han"); return out; }
      else { out.han = P.han; }
      if (P.aka) { out.aka = P.aka; }
      if (P.ura) { out.ura = P.ura; }
      if (P.ippatsu) { out.ippatsu = true; }
    }
    if (P.pocchi) { out.pocchi = true; }
    if (!out.yakuman && spec.use_fu && out.han < 5) {
      if (P.fu === null) { need("entry.need.fu", "fu"); } else if (fusFor(out.han).indexOf(P.fu) < 0) {
        problems.push({field: at + ".fu", text: w("entry.bad.fu_for_han", {who, han: out.han, fu: P.fu})});
      } else { out.fu = P.fu; }
    }
    if (P.pao !== null) {
      if (P.pao === seat) { problems.push({field: at + ".pao", text: w("entry.bad.pao_self", {who})}); }
      out.pao = P.pao;
    }
    return out;
  }

  function read() {
    const problems = [];
    let event;
    if (kind === "ron" || kind === "tsumo") {
      if (!F.winners.length) { problems.push({field: "winners", text: w("entry.need.winner")}); }
      if (!tsumo && F.from === null) { problems.push({field: "from", text: w("entry.need.discarder")}); }
      if (!tsumo && F.from !== null && F.winners.indexOf(F.from) >= 0) {
        problems.push({field: "from", text: w("entry.bad.same_seat", {who: seatText(F.from)})});
      }
      if (F.winners.length > spec.events.max_winners) {
        problems.push({field: "winners", text: w("entry.bad.too_many_winners", {most: spec.events.max_winners})});
      }
      event = {event: "win", winners: F.winners.map((s, i) => readWinner(s, problems, i))};
      if (!tsumo && F.from !== null) { event.from = F.from; }
      if (!mcr) { event.riichi = riichi(); }
    } else if (kind === "draw") {
      event = {event: "draw", tenpai: F.tenpai.slice().sort()};
      if (F.nagashi.length) { event.nagashi = F.nagashi.slice().sort(); }
      if (F.chombo.length) { event.chombo = F.chombo.slice().sort(); }
      if (!mcr) { event.riichi = riichi(); }
    } else if (kind === "abort") {
      if (!F.kind) { problems.push({field: "kind", text: w("entry.need.kind")}); }
      event = {event: "abort", kind: F.kind, riichi: riichi()};
      if (F.kind === "suucha_riichi" && riichi().length !== n) {
        problems.push({field: "riichi", text: w("entry.bad.suucha_riichi")});
      }
      if (F.kind === "kyuushu" && spec.events.kyuushu_nukidora) {
        if (F.seat !== null) { event.seat = F.seat; }
        if (F.nukidora) {
          if (F.seat === null) { problems.push({field: "seat", text: w("entry.need.seat")}); }
          event.nukidora = F.nukidora;
        }
      }
    } else if (kind === "chombo") {
      if (F.seat === null) { problems.push({field: "seat", text: w("entry.need.seat")}); }
      event = {event: "chombo", seat: F.seat};
      if (!mcr && riichi().length) { event.riichi = riichi(); }
    } else if (kind === "penalty") {
      if (F.seat === null) { problems.push({field: "seat", text: w("entry.need.seat")}); }
      // no kind yet: nothing to price or ask the server about
      if (!F.kind) { problems.push({field: "kind", text: w("entry.need.kind")}); }
      event = {event: "penalty", seat: F.seat, kind: F.kind};
      if (F.kind === "points") {
        event.points = F.points;
        if (F.to !== null) {
          if (F.to === F.seat) { problems.push({field: "to", text: w("entry.bad.penalty_to_self")}); }
          event.to = F.to;
        }
      }
    } else {
      event = {event: "end"};
      if (F.reason !== "time") { event.reason = F.reason; }
    }
    return {event, problems, complete: !problems.length};
  }

  // ------------------------------------------------------------ filling it from an event
  function load(ev) {
    if (ev.event === "win") {
      F.winners = ev.winners.map((x) => x.seat);
      F.from = ev.from === undefined ? null : ev.from;
      for (const x of ev.winners) {
        const P = per(x.seat);
        if (x.hand) {
          P.mode = "tiles";
          const all = strToTiles(x.hand.hand), win = x.hand.win;
          const i = all.indexOf(win);
          if (i >= 0) { all.splice(i, 1); }
          P.tiles.hand = all; P.tiles.win = win ? [win] : [];
          P.tiles.dora = strToTiles(x.hand.dora); P.tiles.ura = strToTiles(x.hand.ura);
          P.tiles.melds = (x.hand.melds || []).map((m) => ({type: m.type, tiles: strToTiles(m.tiles)}));
          P.nukidora = x.hand.nukidora || 0; P.flowers = x.hand.flowers || 0;
          for (const f of spec.flags.concat(spec.mcr_flags)) { if (x.hand[f]) { P.flags[f] = true; } }
        } else if (mcr) {
          P.flowers = x.flowers || 0;
          if (x.fans && x.fans.length) { P.mode = "fans"; for (const f of x.fans) { P.fans[f.id] = f.count || 1; } }
          else { P.mode = "total"; P.fan = String((x.fan !== undefined ? x.fan : (x.han || 0)) - P.flowers || ""); }
        } else if (x.yaku && x.yaku.length) {
          P.mode = "yaku"; P.yaku = x.yaku.map((y) => y.id); P.open = !!x.open;
          for (const name of Object.keys(spec.counters)) { P[name] = x[name] || 0; }
          P.fu = x.fu === undefined ? null : x.fu;
        } else {
          P.mode = "hanfu"; P.yakuman = x.yakuman || 0; P.han = x.yakuman ? null : (x.han === undefined ? null : x.han);
          P.fu = x.fu === undefined ? null : x.fu; P.aka = x.aka || 0; P.ura = x.ura || 0; P.ippatsu = !!x.ippatsu;
        }
        P.pocchi = !!x.pocchi; P.pao = x.pao === undefined ? null : x.pao;
      }
    } else if (ev.event === "draw") {
      F.tenpai = (ev.tenpai || []).slice(); F.nagashi = (ev.nagashi || []).slice();
      F.chombo = (ev.chombo || []).slice();
    } else if (ev.event === "abort") {
      F.kind = ev.kind; F.seat = ev.seat === undefined ? null : ev.seat; F.nukidora = ev.nukidora || 0;
    } else if (ev.event === "chombo") {
      F.seat = ev.seat;
    } else if (ev.event === "penalty") {
      F.seat = ev.seat; F.kind = ev.kind; if (ev.points) { F.points = ev.points; }
      F.to = ev.to === undefined ? null : ev.to;
    } else if (ev.event === "end") {
      F.reason = ev.reason || "time";
    }
    render();
  }

  render();
  return {read, load, render};
}
