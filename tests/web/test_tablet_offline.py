"""The tablet keeps recording through a Wi-Fi drop or a restart of the club's box, in real
Chromium against a real server process (named so ``-k offline`` selects them):

* the tablet's own pricing (static/pricing.js) is the engine's, figure for figure, over
  random games under every preset (the engine is the oracle);
* the server killed mid-game, five hands entered offline, the page reloaded twice and the
  tablet (browser profile) restarted: when the server is back every hand is stored
  exactly once and in order, and the scores are the engine's replay;
* a conflict (another device recorded meanwhile, staff corrected the game) is shown as a
  choice, never dropped;
* a long outage, time-scaled with the page's own clock;
* an entry the server refuses (422) is kept, with its reason, for editing.
"""

from __future__ import annotations

import json
import random
import urllib.request

import pytest

from club import corrections, engine, events, games
from club.db import connect
from club.entry import entry_spec
from club.errors import UserError
from scoring import game as engine_game
from scoring.rules import PRESET_IDS, load_rules
from tests.support.browser import chromium, expect, persistent_context, shot
from tests.support.tablet import SIZES, Tablet, open_tablet, page_data, seed_club, stored
from tests.support.web_server import WebServer
from web.security import TABLET_COOKIE

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


# --------------------------------------------------------------------------- random games
def _winner(rules, rng, seat, tsumo, state):
    if rules.table.family == "mcr":
        flowers = rng.randrange(0, 4)
        return {"seat": seat, "fan": rng.randrange(8, 40) + flowers, "flowers": flowers}
    if rng.random() < 0.06:
        w = {"seat": seat, "yakuman": rng.randrange(1, engine.max_yakuman(rules) + 1)}
        if rules.game.pao and rng.random() < 0.5:
            w["pao"] = (seat + rng.randrange(1, rules.table.players)) % rules.table.players
    else:
        han, fu = rng.choice(engine.han_fu_pairs(rules, tsumo=tsumo))
        w = {"seat": seat, "han": han}
        if fu:
            w["fu"] = fu
    if rules.points.dora_per_tile:
        w["dora"] = rng.randrange(0, 3)
    if rules.chips.enabled:
        w["aka"] = rng.randrange(0, sum(rules.table.red_fives) + 1)
        if seat in state.get("riichi", []):
            w["ura"] = rng.randrange(0, 3)
            w["ippatsu"] = rng.random() < 0.3
    return w


def _event(rules, rng, st):
    """One random event a table could enter now (the engine may still refuse it)."""
    n = rules.table.players
    riichi = [s for s in st["riichi_able"] if rng.random() < 0.25]
    kinds = ["win"] * 6 + ["draw"] * 2 + ["penalty"]
    if rules.game.abortive_draws:
        kinds.append("abort")
    if rules.game.chombo != "none":
        kinds.append("chombo")
    kind = rng.choice(kinds)
    if kind == "win":
        tsumo = rng.random() < 0.35
        src = None if tsumo else rng.randrange(n)
        seats = [s for s in range(n) if s != src]
        rng.shuffle(seats)
        count = 1 if tsumo or rng.random() < 0.85 else rng.randrange(2, n)
        ctx = {"riichi": riichi}
        ev = {"event": "win", "winners": [_winner(rules, rng, s, tsumo, ctx)
                                          for s in seats[:count]]}
        if src is not None:
            ev["from"] = src
    elif kind == "draw":
        ev = {"event": "draw", "tenpai": sorted(s for s in range(n) if rng.random() < 0.5)}
        if rules.game.nagashi != "none" and rng.random() < 0.08:
            ev["nagashi"] = [rng.randrange(n)]
        noten = [s for s in range(n) if s not in ev["tenpai"]]
        if rules.game.chombo_at_draw and noten and rng.random() < 0.2:
            ev["chombo"] = [rng.choice(noten)]          # 流局時チョンボ: paid as noten
    elif kind == "abort":
        ev = {"event": "abort", "kind": rng.choice(rules.game.abortive_draws)}
        if ev["kind"] == "kyuushu" and rules.hand.nukidora != "none" and rng.random() < 0.5:
            ev.update(seat=rng.randrange(n), nukidora=rng.randrange(0, 3))
    elif kind == "chombo":
        ev = {"event": "chombo", "seat": rng.randrange(n)}
        if rules.table.family != "mcr" and rng.random() < 0.5:
            ev["riichi"] = riichi                         # the voided hand's sticks
    else:
        pk = rng.choice([k for k in ("deposit_1000", "agari_houki", "points")
                         if k == "points" or (k == "deposit_1000" and rules.game.deposit_penalty)
                         or (k == "agari_houki" and rules.game.agari_houki)])
        ev = {"event": "penalty", "seat": rng.randrange(n), "kind": pk}
        if pk == "points":
            if rng.random() < 0.5:
                ev["points"] = (n - 1) * 100 * rng.randrange(1, 20)
            else:
                ev["points"] = 100 * rng.randrange(1, 60)
                ev["to"] = (ev["seat"] + 1) % n
    if rules.table.family != "mcr" and kind in ("win", "draw", "abort"):
        ev["riichi"] = riichi
    return ev


def random_game(rules, rng, names, hands=40):
    """(raw events as a tablet sends them, stored events, engine state after each)."""
    state = engine_game.GameState(rules=rules)
    state, _ = engine.advance(state, {"event": "start", "players": names})
    raw, stored_events, after = [], [], []
    tries = 0
    while len(raw) < hands and not state.finished and tries < hands * 20:
        tries += 1
        ev = _event(rules, rng, state.to_dict())
        try:
            checked = events.check_event(json.loads(json.dumps(ev)), rules)
            state, _ = engine.advance(state, checked)
        except UserError:
            continue
        raw.append(ev)
        stored_events.append(checked)
        after.append(state.to_dict())
    return raw, stored_events, after


COMPARED = ("scores", "kyoutaku", "honba", "dealer", "round", "finished", "chips", "extension")

JS_REPLAY = """async ({spec, start, raw, stored}) => {
  const P = await import("/static/pricing.js");
  let st = P.fromServer(start, spec);
  const out = [];
  for (let i = 0; i < raw.length; i++) {
    const ev = raw[i], tsumo = ev.from === undefined;
    const chips = ev.event === "win" && spec.family !== "mcr"
      ? ev.winners.map((w) => P.winnerChips(spec, w, tsumo)) : [];
    const chipsOf = (w) => chips[ev.winners.findIndex((x) => x.seat === w.seat)];
    const withChips = ev.event === "win" && spec.family !== "mcr"
      ? {...stored[i], winners: stored[i].winners.map((w) => ({...w, chips: chipsOf(w)}))}
      : stored[i];
    const r = P.apply(st, withChips, spec);
    st = r.state;
    out.push({priced: r.priced, reason: r.reason || "", deltas: r.deltas, chips_each: chips,
      state: {scores: st.scores, kyoutaku: st.kyoutaku, honba: st.honba, dealer: st.dealer,
        round: P.roundOf(st), finished: st.finished, chips: st.chips, extension: st.extension}});
  }
  return out;
}"""


def test_offline_pricing_is_the_engines_on_random_games_under_every_preset(browser, tmp_path):
    """pricing.js against the engine, event by event, for every shipped preset: the payment,
    the sticks, honba, dealer, round, the end of the game and the chips (★) counted from
    what a player enters (scoring/game.py and scoring/chips.py as the oracle)."""
    path = str(tmp_path / "club.sqlite")
    _, secrets = seed_club(path, {"t1": "nekohouse-4a"})
    server = WebServer(path).start()
    try:
        ctx = browser.new_context(viewport=SIZES["1024"])
        page = open_tablet(ctx, server.url, secrets["t1"], "t1")
        checked = 0
        for preset in PRESET_IDS:
            rules = load_rules(preset)
            n = rules.table.players
            spec = entry_spec(rules)
            for seed in range(12):
                rng = random.Random(f"{preset}-{seed}")
                names = ["A", "B", "C", "D"][:n]
                raw, stored_events, after = random_game(rules, rng, names)
                start = engine.advance(engine_game.GameState(rules=rules),
                                       {"event": "start", "players": names})[0].to_dict()
                got = page.evaluate(JS_REPLAY, {"spec": spec, "start": start, "raw": raw,
                                                "stored": stored_events})
                for i, (js, py) in enumerate(zip(got, after, strict=True)):
                    where = (preset, seed, i, stored_events[i])
                    assert js["priced"], (where, js["reason"])
                    assert {k: js["state"][k] for k in COMPARED} == \
                        {k: py[k] for k in COMPARED}, where
                    if stored_events[i]["event"] == "win" and rules.table.family != "mcr":
                        winners = stored_events[i]["winners"]
                        by_seat = {w["seat"]: w.get("chips", 0) for w in winners}
                        assert js["chips_each"] == \
                            [by_seat[w["seat"]] for w in raw[i]["winners"]], where
                    checked += 1
        assert checked > 800
        assert page.js_errors == []
        ctx.close()
    finally:
        server.stop()


# --------------------------------------------------------------------------- whole outages
def scores_shown(page, n) -> list[int]:
    return [int(page.locator(f'[data-testid="score-{i}"]').text_content().replace(",", ""))
            for i in range(n)]


def queued_line(page, n: int) -> None:
    expect(page.locator('[data-testid="queue-badge"]')).to_have_text(f"送信待ち {n}件")


def record_offline(tab, act) -> None:
    """Enter one hand while the server cannot be reached: it goes into the queue."""
    before = tab.page.locator('[data-testid^="queued-"]').count()
    act()
    tab.preview()
    tab.tap("#panel-record")
    expect(tab.page.locator("#panel-backdrop")).to_be_hidden()
    assert tab.page.locator('[data-testid^="queued-"]').count() >= before


def ron_entry(tab, winner, src, han, fu):
    def act():
        tab.open("ron")
        tab.winner(winner)
        tab.discarder(src)
        tab.hanfu(winner, han, fu)
    return act


def tsumo_entry(tab, winner, han, fu):
    def act():
        tab.open("tsumo")
        tab.winner(winner)
        tab.hanfu(winner, han, fu)
    return act


def draw_entry(tab, tenpai):
    def act():
        tab.open("draw")
        for s in tenpai:
            tab.tap(f'[data-testid="tenpai-{s}"]')
    return act


def controlled(page) -> None:
    """Wait until the service worker controls the page, then load it through it once."""
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    assert page.evaluate("!!navigator.serviceWorker.controller")


def _win(seat, han, fu=None, src=None):
    w = {"seat": seat, "han": han, **({"fu": fu} if fu else {})}
    return {"event": "win", "winners": [w], **({} if src is None else {"from": src}),
            "riichi": []}


OFFLINE_HANDS = [  # (entry, the event the tablet sends), from E2 (dealer 伊藤) on
    (lambda t: ron_entry(t, 2, 1, 2, 40), _win(2, 2, 40, src=1)),
    (lambda t: tsumo_entry(t, 0, 3, 30), _win(0, 3, 30)),
    (lambda t: draw_entry(t, [1, 3]), {"event": "draw", "tenpai": [1, 3], "riichi": []}),
    (lambda t: ron_entry(t, 0, 2, 5, None), _win(0, 5, src=2)),
    (lambda t: tsumo_entry(t, 1, 1, 30), _win(1, 1, 30)),
]


def test_offline_five_hands_survive_a_server_kill_two_reloads_and_a_tablet_restart(browser,
                                                                                    tmp_path):
    path = str(tmp_path / "club.sqlite")
    ids, secrets = seed_club(path, {"t1": "nekohouse-4a"})
    server = WebServer(path).start()
    port, url = server.port, server.url
    profile = str(tmp_path / "profile")
    options = {"viewport": SIZES["768"], "locale": "ja-JP"}
    try:
        with persistent_context(browser, profile, **options) as ctx:
            tab = Tablet(open_tablet(ctx, url, secrets["t1"], "t1"))
            tab.start(ids)
            tab.ron([(1, 3, 30)], discarder=0)                     # E1, online
            controlled(tab.page)
            server.kill()                                          # the club's box goes down
            for entry, _ in OFFLINE_HANDS:
                record_offline(tab, entry(tab))
            queued_line(tab.page, 5)
            _, _, events = stored(path, "t1")
            expected = engine_game.replay(events + [e for _, e in OFFLINE_HANDS],
                                          load_rules("nekohouse-4a"))["state"]
            assert scores_shown(tab.page, 4) == expected["scores"]          # local scores
            expect(tab.page.locator('[data-testid="center-round"]')).to_have_text(
                f"{'東南'['ES'.index(expected['round'][0])]}{expected['round'][1]}局")
            shot(tab.page, "offline-five-queued-768")
            for _ in range(2):                                     # reloaded, still offline
                tab.page.reload()
                tab.ready()
                queued_line(tab.page, 5)
                assert scores_shown(tab.page, 4) == expected["scores"]
        with persistent_context(browser, profile, **options) as ctx:      # the tablet restarted
            page = ctx.new_page()
            page.js_errors = []
            page.on("pageerror", lambda e: page.js_errors.append(str(e)))
            page.goto(f"{url}/tablet/t1")
            tab = Tablet(page)
            tab.ready()
            queued_line(page, 5)
            assert scores_shown(page, 4) == expected["scores"]
            with page.expect_navigation(timeout=60_000):
                server = WebServer(path, port=port).start()        # the box is back
                send_now(page)
            tab.ready()
            expect(page.locator('[data-testid="queue-badge"]')).to_be_hidden()
            game, log, events = stored(path, "t1")
            assert events[2:] == [e for _, e in OFFLINE_HANDS]
            assert [r["seq"] for r in log] == list(range(7))          # exactly once, in order
            assert len({r["idempotency_key"] for r in log}) == 7
            replay = engine_game.replay(events, load_rules(game["rules"]))
            assert replay["state"]["scores"] == expected["scores"] == scores_shown(page, 4)
            assert page_data(page)["next_seq"] == 7
            assert page.js_errors == []
    finally:
        server.stop()


WIFI = "**/{api,auth}/**"
"""What a Wi-Fi drop cuts off: every request to the server (the page itself is the
service worker's)."""


def wifi_down(page, calls=None):
    def cut(route):
        if calls is not None:
            calls.append(route.request.url)
        route.abort("internetdisconnected")
    page.route(WIFI, cut)


def send_now(page) -> None:
    """Tap 今すぐ送信 if the tablet has not already sent the queue by its own retry."""
    from playwright.sync_api import Error as PlaywrightError

    try:
        page.locator('[data-testid="send-now"]').click(timeout=2000)
    except PlaywrightError:
        pass


def reconnect(tab) -> None:
    """The Wi-Fi is back: the queue goes out and the page shows the server's state."""
    with tab.page.expect_navigation(timeout=60_000):
        tab.page.unroute(WIFI)
        send_now(tab.page)
    tab.ready()


@pytest.fixture()
def club(tmp_path):
    path = str(tmp_path / "club.sqlite")
    ids, secrets = seed_club(path, {"t1": "nekohouse-4a"})
    server = WebServer(path).start()
    yield {"db": path, "ids": ids, "secrets": secrets, "url": server.url, "server": server}
    server.stop()


def test_offline_conflicts_are_shown_as_a_choice_never_dropped(browser, club):
    """Another device records while this tablet is cut off, then staff correct the game:
    each queued hand that no longer fits waits, with what the server has now, for a person
    to record it after the others or discard it."""
    ctx = browser.new_context(viewport=SIZES["768"], locale="ja-JP")
    tab = Tablet(open_tablet(ctx, club["url"], club["secrets"]["t1"], "t1"))
    tab.start(club["ids"])
    page = tab.page
    wifi_down(page)
    record_offline(tab, ron_entry(tab, 1, 0, 3, 30))
    queued_line(page, 1)
    # meanwhile another tablet at the table records the hand (a draw)
    other = {"Authorization": "Bearer " + club["secrets"]["t1"], "Content-Type": "application/json"}
    body = json.dumps({"event": {"event": "draw", "tenpai": [0]}, "expected_seq": 1,
                       "idempotency_key": "other-device-1"}).encode()
    req = urllib.request.Request(club["url"] + "/api/tables/t1/hands", data=body, headers=other)
    assert urllib.request.urlopen(req).status == 201
    page.unroute(WIFI)
    send_now(page)
    error = page.locator('[data-testid^="queued-error-"]')
    expect(error).to_contain_text("記録済みです")
    expect(page.locator(".q-server")).to_contain_text("流局 聴牌 青木")   # what the server has
    shot(page, "offline-conflict-768")
    assert [e["event"] for e in stored(club["db"], "t1")[2]] == ["start", "draw"]  # kept, waiting
    with page.expect_navigation():
        tab.tap('[data-testid^="queued-after-"]')                    # a person decides
    tab.ready()
    events = stored(club["db"], "t1")[2]
    assert [e["event"] for e in events] == ["start", "draw", "win"]
    assert events[-1]["winners"] == [{"seat": 1, "han": 3, "fu": 30}]
    # cut off again; staff correct the draw meanwhile: the queued hand waits again
    wifi_down(page)
    record_offline(tab, tsumo_entry(tab, 2, 2, 30))
    db = connect(club["db"])
    try:
        game = games.current_game(db, "t1")
        corrections.correct_hand(db, game["id"], 1, {"event": "draw", "tenpai": [0, 2]},
                           actor="staff:test", reason="tenpai was two players")
    finally:
        db.conn.close()
    page.unroute(WIFI)
    send_now(page)
    expect(page.locator('[data-testid^="queued-error-"]')).to_contain_text("記録済みです")
    tab.tap('[data-testid^="queued-drop-"]')                           # two taps to throw away
    assert page.locator('[data-testid^="queued-drop-"]').count() == 1
    tab.tap('[data-testid^="queued-drop-"]')
    expect(page.locator('[data-testid="queue-badge"]')).to_be_hidden()
    kinds = [r["kind"] for r in stored(club["db"], "t1")[1]]
    assert kinds == ["start", "draw", "win", "replace"]
    assert page.js_errors == []
    ctx.close()


def test_offline_long_outage_time_scaled(browser, club):
    """Two hours without the server on the page's own clock: the tablet keeps trying (at
    most every 30 s), keeps both hands, and sends them once when the server answers."""
    ctx = browser.new_context(viewport=SIZES["1024"], locale="ja-JP")
    ctx.add_cookies([{"name": TABLET_COOKIE, "value": club["secrets"]["t1"], "url": club["url"]}])
    page = ctx.new_page()
    page.clock.install()
    page.js_errors = []
    page.on("pageerror", lambda e: page.js_errors.append(str(e)))
    page.goto(club["url"] + "/tablet/t1")
    tab = Tablet(page)
    tab.ready()
    tab.start(club["ids"])
    calls: list[str] = []
    wifi_down(page, calls)
    record_offline(tab, ron_entry(tab, 1, 0, 3, 30))
    record_offline(tab, draw_entry(tab, [0, 3]))
    queued_line(page, 2)
    def tries() -> int:                         # failed tries the tablet has counted
        return int(page.locator("body").get_attribute("data-tries") or 0)

    for _ in range(240):                        # two hours, 30 s of the page's clock a step
        before = tries()
        page.clock.run_for(30_000)
        for _ in range(300):                    # the try due in these 30 s, in real time
            if tries() > before:
                break
            page.wait_for_timeout(10)
        assert tries() > before                 # it never gives up
    csrf = sum(1 for u in calls if u.endswith("/auth/csrf"))  # each try starts there
    assert 240 <= tries() <= 260, tries()       # about one try per 30 s, never given up
    # A try asks for a fresh token first. The page's clock jumps 30 s at a time, so now
    # and then a try's own time limit passes in the same jump and aborts the request
    # before it leaves the page: a try that never reached the network.
    assert tries() - 3 <= csrf <= tries(), (tries(), csrf)
    queued_line(page, 2)
    assert "オフライン" in page.locator('[data-testid="net-state"]').text_content()
    page.unroute(WIFI)
    with page.expect_navigation():
        page.clock.run_for("00:00:31")
    tab.ready()
    _, log, events = stored(club["db"], "t1")
    assert [e["event"] for e in events] == ["start", "win", "draw"] and len(log) == 3
    assert page.js_errors == []
    ctx.close()


def test_offline_refused_entry_is_kept_with_its_reason_for_editing(browser, club):
    """A hand entered by its tiles cannot be checked without the server; when it answers
    422 the entry stays in the queue with the reason, and 直す opens it to be corrected."""
    ctx = browser.new_context(viewport=SIZES["390"], locale="ja-JP")
    tab = Tablet(open_tablet(ctx, club["url"], club["secrets"]["t1"], "t1"))
    tab.start(club["ids"])
    page = tab.page
    wifi_down(page)

    def wrong_hand():
        tab.open("tsumo")
        tab.winner(1)
        tab.tap('[data-testid="mode-1-tiles"]')
        tab.tiles(1, ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "7z", "2s", "3s", "5p", "5p"])
        tab.tiles(1, ["4s"], "win")
        expect(page.locator("#panel-preview")).to_contain_text("接続が戻ると牌から計算します")
    wrong_hand()
    tab.tap("#panel-record")
    expect(page.locator("#panel-backdrop")).to_be_hidden()
    queued_line(page, 1)
    page.unroute(WIFI)
    send_now(page)
    reason = page.locator('[data-testid^="queued-error-"]')
    expect(reason).to_have_text("和了形ではありません（4面子1雀頭、七対子、国士無双のどれでもありません）")
    shot(page, "offline-refused-390")
    assert [e["event"] for e in stored(club["db"], "t1")[2]] == ["start"]
    tab.tap('[data-testid^="queued-edit-"]')                         # kept for editing
    box = '[data-testid="winner-1"]'
    assert "中" in page.locator(f'{box} .tile-target[data-target="hand"]').text_content()
    tab.tiles(1, ["back", "9s"], "hand")                             # 中 was meant as 9s
    tab.preview()
    with page.expect_navigation():
        tab.tap("#panel-record")
    tab.ready()
    events = stored(club["db"], "t1")[2]
    assert events[-1]["winners"][0]["hand"]["hand"] == "123m45556p234789s"
    expect(page.locator('[data-testid="queue-badge"]')).to_be_hidden()
    assert page.js_errors == []
    ctx.close()


def test_offline_undo_and_confirmations_wait_in_the_queue_too(browser, club):
    """Undoing a hand the server has is queued as an undo (the table shows the scores
    before it); undoing a hand still in the queue takes it out; a player confirming the
    settlement sheet while cut off is sent later."""
    ctx = browser.new_context(viewport=SIZES["768"], locale="ja-JP")
    tab = Tablet(open_tablet(ctx, club["url"], club["secrets"]["t1"], "t1"))
    tab.start(club["ids"])
    page = tab.page
    tab.ron([(1, 3, 30)], discarder=0)
    wifi_down(page)
    record_offline(tab, draw_entry(tab, [0]))                        # queued, never sent
    tab.open("undo")
    assert tab.page.locator('[data-testid="undo-hand"]').text_content() == "東2局 流局 聴牌 青木"
    tab.tap("#panel-record")
    expect(page.locator('[data-testid="queue-badge"]')).to_be_hidden()   # out of the queue
    tab.open("undo")                                                 # the server's hand
    said = page.locator('[data-testid="undo-hand"]').text_content()
    assert said == "東1局 ロン 伊藤←青木 3翻30符 3,900"
    assert page.locator("#panel-record").text_content() == "取り消す"
    tab.tap("#panel-record")
    queued_line(page, 1)
    assert scores_shown(page, 4) == [25000] * 4                     # as before that hand
    reconnect(tab)
    _, log, events = stored(club["db"], "t1")
    assert [r["kind"] for r in log] == ["start", "win", "void"] and len(events) == 1
    tab.draw([2])  # a hand to settle: a game ended before any hand is void
    tab.end()
    wifi_down(page)
    tab.tap('[data-testid="confirm-2"]')
    queued_line(page, 1)
    reconnect(tab)
    assert page.locator('[data-testid="confirmed-2"]').count() == 1
    game, _, _ = stored(club["db"], "t1")
    assert [s["confirmed_at"] is not None for s in game["seats"]] == [False, False, True, False]
    assert page.js_errors == []
    ctx.close()
