"""The tablet page, server side: what each screen shows, Japanese first with an English
switch, entry controls per rule family from the table's rules, history lines that say what
happened, the settlement sheet in rank order in the club's form, the table's own point
reading beside the recorded scores, and refusals in words."""

from __future__ import annotations

import json
import re

import pytest

from tests.support.web import bearer, cookie_client, record, start

# shared fixtures (a real SQLite file per test, a club, paired tablets)

RON = {"event": "win", "winners": [{"seat": 1, "han": 3, "fu": 30}], "from": 0}


def page_data(resp) -> dict:
    m = re.search(rb'<script type="application/json" id="page-data">(.*?)</script>',
                  resp.data, re.S)
    return json.loads(m.group(1))


def test_unpaired_device_gets_a_page_in_words(client):
    r = client.get("/tablet/t1", headers={"Accept": "text/html"})
    assert r.status_code == 401
    assert b"<html" in r.data and "staff".encode() in r.data


def test_tablet_of_another_table_is_refused(app):
    c = cookie_client(app, "t2")
    r = c.get("/tablet/t1", headers={"Accept": "text/html"})
    assert r.status_code == 403


def test_unknown_table_is_404_page(app):
    c = cookie_client(app, "t1")
    staffless = c.get("/tablet/zz", headers={"Accept": "text/html"})
    assert staffless.status_code in (403, 404)


def test_start_screen_japanese_first_then_english(app):
    c = cookie_client(app, "t1")
    r = c.get("/tablet/t1")
    text = r.data.decode()
    assert r.status_code == 200 and 'lang="ja"' in text and "対局開始" in text
    assert "青木" in text and 'data-testid="start-form"' in text
    data = page_data(r)
    assert data["table_id"] == "t1" and data["game_id"] is None
    en = c.get("/tablet/t1?lang=en").data.decode()
    assert 'lang="en"' in en and "Start a game" in en
    assert 'lang="en"' in c.get("/tablet/t1").data.decode()  # remembered in the session


def test_three_player_rule_sets_are_marked(app):
    text = cookie_client(app, "t3").get("/tablet/t3").data.decode()
    assert re.search(r'value="nekohouse-3a" data-players="3" selected', text)
    assert re.search(r'value="nekohouse-4a" data-players="4"', text)


def test_live_screen_shows_round_scores_and_gaps(app, client):
    h = bearer(app, "t1")
    start(client, h)
    record(client, h, RON, 1)
    c = cookie_client(app, "t1")
    r = c.get("/tablet/t1")
    text = r.data.decode()
    assert 'data-testid="live"' in text and "東2局" in text
    assert ">21,100<" in text and ">28,900<" in text
    # the gap to the leader is named, not a bare "-7,800" that reads as a payment
    assert re.search(r'data-testid="gap-0">(トップまで 7,800|7,800 behind the top)<', text)
    data = page_data(r)
    assert data["next_seq"] == 2 and data["names"][0] == "青木"
    assert [1, 30] in data["spec"]["pairs"]["ron"] and [1, 20] not in data["spec"]["pairs"]["ron"]
    assert 'data-action="undo"' in text and "disabled" not in re.search(
        r'<button[^>]*data-action="undo"[^>]*>', text).group(0)


def test_settlement_sheet_after_the_end(app, client):
    h = bearer(app, "t1")
    g = start(client, h)
    record(client, h, RON, 1)
    view = record(client, h, {"event": "end"}, 2)
    text = cookie_client(app, "t1").get("/tablet/t1").data.decode()
    assert 'data-testid="settlement"' in text
    final = view["final"]
    for seat, result in enumerate(final["result"]):
        cell = re.search(rf'data-testid="result-{seat}">([^<]*)<', text).group(1)
        assert cell == f"{result / 1000:+.1f}"         # the club's ±N.N form, in thousands
    # rank order, not seat order: the top's row comes first
    order = re.findall(r'data-testid="sheet-row-(\d)"', text)
    assert [final["ranks"][int(s)] for s in order] == sorted(final["ranks"])
    assert "（千点）" in text and "（点）" in text             # units in the headers
    assert 'data-testid="confirm-0"' in text and g["game"]["id"] == view["game"]["id"]


def test_table_reading_shown_and_difference_flagged(app, client):
    from tablectl import store

    h = bearer(app, "t1")
    start(client, h)
    record(client, h, RON, 1)
    with store.connect(app.config["DATABASE"]) as sdb:
        sdb.execute("INSERT INTO table_state (table_id, name, url, connected, points) "
                    "VALUES ('t1', 't1', 'sim://', 1, ?)",
                    [json.dumps([21100, 28900, 25000, 24000])])
        sdb.conn.commit()
    api = client.get("/api/tables/t1").get_json()["reading"]
    assert api["points"] == [21100, 28900, 25000, 24000]
    assert api["differences"] == [0, 0, 0, -1000] and api["mismatch"] is True
    text = cookie_client(app, "t1").get("/tablet/t1").data.decode()
    assert 'data-testid="ic-mismatch"' in text and "(-1,000)" in text


def test_no_reading_for_a_table_without_a_link(app, client):
    assert client.get("/api/tables/t2").get_json()["reading"] is None


@pytest.mark.parametrize("asset", ["tablet.js", "jantaku.css"])
def test_static_assets_are_local(client, asset):
    r = client.get(f"/static/{asset}")
    assert r.status_code == 200 and b"http://" not in r.data and b"https://" not in r.data


def test_errors_answer_html_or_json_and_a_crash_is_words_not_a_traceback(tmp_path):
    from web import create_app

    app = create_app({"DATABASE": str(tmp_path / "e.sqlite"), "SECRET_KEY": "x",
                      "COOKIE_SECURE": False})

    @app.get("/boom")
    def boom():
        raise RuntimeError("secret internals")

    c = app.test_client()
    page = c.get("/nowhere", headers={"Accept": "text/html"})
    assert page.status_code == 404 and b"<html" in page.data
    js = c.get("/nowhere", headers={"Accept": "application/json"})
    assert js.status_code == 404 and js.get_json()["error"]["code"] == "not_found"
    r = c.get("/boom", headers={"Accept": "application/json", "Accept-Language": "en"})
    assert r.status_code == 500 and b"secret internals" not in r.data
    assert "nothing was recorded" in r.get_json()["error"]["message"]
    r = c.get("/boom", headers={"Accept": "application/json"})
    assert "何も記録されていません" in r.get_json()["error"]["message"]


def test_i18n_falls_back_to_the_key_and_has_both_languages():
    from web.i18n import t

    assert t("no.such.key", "en") == "no.such.key"
    assert t("tablet.ron", "ja") == "ロン" and t("tablet.ron", "en") == "Ron"


def test_start_screen_offers_the_rules_for_the_mode_the_table_is_in(app):
    """A four-player table switched to AMOS mode 04 (three-player, 002 ねこはうす 設定表)
    offers the three-player rule set made for that mode."""
    from tablectl import store

    c = cookie_client(app, "t1")
    before = c.get("/tablet/t1").data.decode()
    assert re.search(r'value="nekohouse-4a" data-players="4" selected', before)
    with store.connect(app.config["DATABASE"]) as sdb:
        sdb.execute("INSERT INTO table_state (table_id, name, url, connected, mode) "
                    "VALUES ('t1', 't1', 'sim://', 1, 4)")
    text = c.get("/tablet/t1").data.decode()
    assert re.search(r'value="nekohouse-3a" data-players="3" selected', text)
    assert 'data-testid="table-mode"' in text and "04" in text


def test_riichi_button_off_for_a_seat_the_engine_says_cannot_declare(app, client):
    h = bearer(app, "t1")
    start(client, h)
    # seat 0 is barred from winning this hand (和了放棄), so the engine says no riichi
    record(client, h, {"event": "penalty", "seat": 0, "kind": "agari_houki"}, 1)
    text = cookie_client(app, "t1").get("/tablet/t1").data.decode()
    state = client.get("/api/tables/t1").get_json()["game"]["state"]
    assert 0 not in state["riichi_able"]
    assert re.search(r'data-testid="riichi-0"[^>]*disabled', text)
    assert not re.search(r'data-testid="riichi-1"[^>]*disabled', text)


# --------------------------------------------------------------------------- rule families
def spec_of(app, client, table, rules, players=(1, 2, 3, 4)):
    h = bearer(app, table)
    start(client, h, table=table, players=players[: 3 if "3" in rules else 4], rule_set=rules)
    return page_data(cookie_client(app, table).get(f"/tablet/{table}"))["spec"]


def test_four_player_a_rules_offer_their_tiles_chi_and_flags(app, client):
    """002 4A: 136 tiles with a red five per suit, chi, ippatsu, no nukidora or pocchi."""
    spec = spec_of(app, client, "t1", "nekohouse-4a")
    assert spec["tiles"]["kinds"]["m"] == list(range(1, 10)) and spec["tiles"]["red"] == \
        {"m": 1, "p": 1, "s": 1}
    assert spec["chi"] is True and spec["nukidora"] == "none" and spec["pocchi"] is False
    assert {"ippatsu", "double_riichi", "haitei", "houtei", "rinshan", "chankan"} <= \
        set(spec["flags"]) and "open_riichi" not in spec["flags"]
    assert spec["events"]["abort"] == ["kyuushu", "suufon", "suukan", "suucha_riichi"]
    assert spec["events"]["chombo"] and spec["events"]["max_winners"] == 3
    yaku = {y["id"]: y for y in spec["yaku"]}
    assert yaku["ittsu"]["closed"] == 2 and yaku["ittsu"]["open"] == 1
    assert yaku["pinfu"]["open"] == 0 and "yakuhai_north" not in yaku
    assert yaku["renhou"]["yakuman"] == 1                              # 002 4A 「人和は役満」
    assert spec["chips"]["aka"] == 1 and spec["chips"]["yakuman_tsumo"] == 5


def test_sanma_a_keypad_has_no_2m_to_8m_no_chi_and_counts_kita(app, client):
    """002 3A: 2m-8m out, red 5p and 5s, no chi, North set aside as dora (抜きドラ)."""
    spec = spec_of(app, client, "t3", "nekohouse-3a")
    assert spec["tiles"]["kinds"]["m"] == [1, 9] and spec["tiles"]["red"] == \
        {"m": 0, "p": 1, "s": 1}
    assert spec["chi"] is False and spec["nukidora"] == "north" and spec["players"] == 3
    assert spec["counters"]["nukidora"] == {"han": True}
    assert spec["events"]["max_winners"] == 2


def test_sanma_b_has_flowers_pocchi_open_riichi_and_no_fu(app, client):
    """002 3B: four flowers set aside as dora, pocchi, open riichi, no fu, chanta 4/2."""
    spec = spec_of(app, client, "t3", "nekohouse-3b")
    assert spec["tiles"]["flowers"] == 4 and spec["nukidora"] == "flowers"
    assert spec["pocchi"] and spec["open_riichi"] and "open_riichi" in spec["flags"]
    assert spec["use_fu"] is False and all(fu == 0 for _, fu in spec["pairs"]["ron"])
    yaku = {y["id"]: y for y in spec["yaku"]}
    assert (yaku["chanta"]["closed"], yaku["chanta"]["open"]) == (4, 2)
    assert spec["tiles"]["red"] == {"m": 0, "p": 4, "s": 4} and spec["chips"]["pocchi"] == 1


def test_mcr_offers_the_81_fans_and_none_of_the_riichi_controls(app, client):
    """004: fans with their exclusions, flowers, no riichi, honba, chombo or abortive draws;
    no point sticks to compare (totals start at 0)."""
    spec = spec_of(app, client, "t1", "mcr")
    assert spec["family"] == "mcr" and spec["yaku"] == [] and spec["flags"] == []
    fans = {f["id"]: f for f in spec["fans"]}
    assert len(fans) == 80 and "flower_tiles" not in fans          # flowers are a counter
    assert fans["big_four_winds"]["points"] == 88 and "all_pungs" in \
        fans["big_four_winds"]["excludes"]
    assert fans["pung_of_terminals_or_honors"]["repeat"] is True
    ev = spec["events"]
    assert not ev["riichi"] and not ev["honba"] and not ev["chombo"] and ev["abort"] == []
    assert spec["tiles"]["flowers"] == 8 and spec["sticks"] is False
    text = cookie_client(app, "t1").get("/tablet/t1").data.decode()
    for absent in ('data-testid="riichi-0"', 'data-testid="honba"', 'data-action="chombo"',
                   'data-action="abort"', 'data-testid="kyoutaku"'):
        assert absent not in text


# --------------------------------------------------------------------------- history
def test_history_lines_say_what_happened(app, client, db):
    """東2局1本場 ロン 中村←伊藤 3翻30符 3,900 ★1: round, honba, who from whom, the value and
    the chips; ending the game is a line of its own, not a hand."""
    from club import roster

    nakamura = roster.add_player(db, "中村")["id"]
    h = bearer(app, "t1")
    start(client, h, players=(1, 2, nakamura, 4))
    record(client, h, RON, 1)                                              # E1: 伊藤←青木
    record(client, h, {"event": "draw", "tenpai": [1]}, 2)                 # E2: dealer tenpai
    ron = {"event": "win", "winners": [{"seat": 2, "han": 3, "fu": 30, "aka": 1}], "from": 1}
    view = record(client, h, ron, 3)
    assert view["event"]["winners"][0]["chips"] == 1                      # counted per rules
    text = cookie_client(app, "t1").get("/tablet/t1").data.decode()
    lines = [" ".join(re.sub(r"<[^>]+>", " ", m).split())
             for m in re.findall(r'<div class="h-line">(.*?)</div>', text, re.S)]
    assert lines[0] == "東2局1本場 ロン 中村←伊藤 3翻30符 3,900 ★1"
    assert lines[1] == "東2局 流局 聴牌 伊藤"
    assert lines[2] == "東1局 ロン 伊藤←青木 3翻30符 3,900"
    assert page_data(cookie_client(app, "t1").get("/tablet/t1"))["last_hand"] == lines[0]
    record(client, h, {"event": "end"}, 4)
    text = cookie_client(app, "t1").get("/tablet/t1?lang=en").data.decode()
    assert 'class="end"' in text and "Game ended (time)" in text
    assert "East 2, 1 honba" in text and "Ron 中村 ← 伊藤 3 han 30 fu 3,900 ★1" in text


def test_times_are_in_the_clubs_time_zone(app, client, db):
    from datetime import datetime
    from zoneinfo import ZoneInfo

    from club import stats_store

    stats_store.configure(db, timezone_name="America/New_York")
    h = bearer(app, "t1")
    start(client, h)
    record(client, h, {"event": "draw", "tenpai": [0]}, 1)  # a game ended with no hand is void
    view = record(client, h, {"event": "end"}, 2)
    ended = datetime.fromisoformat(view["game"]["finished_at"])
    local = ended.astimezone(ZoneInfo("America/New_York")).strftime("%H:%M")
    text = cookie_client(app, "t1").get("/tablet/t1").data.decode()
    assert f"{local} 終了" in text


# --------------------------------------------------------------------------- the event schema
def test_yaku_picks_are_checked_and_summed_naming_the_field(app, client):
    h = bearer(app, "t1")
    start(client, h)
    pick = {"seat": 1, "yaku": [{"id": "tanyao", "han": 1}, {"id": "ittsu", "han": 2}],
            "dora": 1, "fu": 30}
    r = client.post("/api/tables/t1/preview", headers=h, json={"event": {
        "event": "win", "winners": [{**pick, "han": 5}], "from": 0}})
    err = r.get_json()["error"]
    assert r.status_code == 422 and err["field"] == "event.winners[0].han"
    assert err["message"] == "event.winners[0].han: the picked yaku and dora add up to 4 han"
    ok = client.post("/api/tables/t1/preview", headers=h, json={"event": {
        "event": "win", "winners": [pick], "from": 0}}).get_json()
    assert ok["event"]["winners"][0]["han"] == 4                          # filled in
    opened = {**pick, "open": True, "yaku": [{"id": "pinfu"}]}
    r = client.post("/api/tables/t1/preview", headers={**h, "Accept-Language": "ja"}, json={
        "event": {"event": "win", "winners": [opened], "from": 0}})
    assert r.get_json()["error"]["message"] == \
        "event.winners[0].yaku[0].id: 平和 は門前（鳴きなし）の手だけの役です"
    riichi = {"seat": 1, "yaku": [{"id": "riichi"}], "fu": 40}
    r = client.post("/api/tables/t1/preview", headers=h, json={"event": {
        "event": "win", "winners": [riichi], "from": 0}})
    assert "declared riichi" in r.get_json()["error"]["message"]
    together = {"seat": 1, "yaku": [{"id": "chanta"}, {"id": "junchan"}], "fu": 40}
    r = client.post("/api/tables/t1/preview", headers=h, json={"event": {
        "event": "win", "winners": [together], "from": 0}})
    assert "cannot both count" in r.get_json()["error"]["message"]


def test_chips_are_counted_from_the_counts_entered(app, client):
    """002 4A: red five ★, ura ★, ippatsu ★ each; a yakuman tsumo ★5 オール."""
    h = bearer(app, "t1")
    start(client, h)
    w = {"seat": 1, "han": 4, "fu": 30, "aka": 1, "ura": 1, "ippatsu": True}
    view = record(client, h, {"event": "win", "winners": [w], "from": 0, "riichi": [1]}, 1)
    assert view["event"]["winners"][0]["chips"] == 3
    assert view["state"]["chips"] == [-3, 3, 0, 0]
    view = record(client, h, {"event": "win", "winners": [{"seat": 2, "yakuman": 1}]}, 2)
    assert view["state"]["chips"] == [-8, -2, 15, -5]


def test_mcr_fans_and_flowers_are_checked(app, client):
    h = bearer(app, "t1")
    start(client, h, rule_set="mcr")

    def preview(w):
        return client.post("/api/tables/t1/preview", headers=h, json={"event": {
            "event": "win", "winners": [w], "from": 0}})

    r = preview({"seat": 1, "fan": 9, "flowers": 2})                     # 7 without flowers
    assert r.status_code == 422 and "needs at least 8" in r.get_json()["error"]["message"]
    r = preview({"seat": 1, "fans": [{"id": "full_flush"}, {"id": "no_honors"}]})
    assert "is not counted" in r.get_json()["error"]["message"]
    r = preview({"seat": 1, "fans": [{"id": "pure_straight"}, {"id": "all_chows"}],
                 "flowers": 1})
    assert r.status_code == 200 and r.get_json()["event"]["winners"][0]["fan"] == 19
    assert r.get_json()["preview"]["deltas"] == [-27, 27 + 8 + 8, -8, -8]    # 004 点数計算
    r = preview({"seat": 1, "fan": 20, "flowers": 9})
    assert r.status_code == 422


def test_engine_refusals_are_worded_for_players(app, client):
    """A refusal names the seat by wind and player, in the caller's language, with the
    engine's reason for a client that points at the field."""
    h = bearer(app, "t1")
    start(client, h)
    record(client, h, {"event": "penalty", "seat": 2, "kind": "agari_houki"}, 1)
    ev = {"event": "win", "winners": [{"seat": 2, "han": 1, "fu": 30}], "from": 0}
    r = client.post("/api/tables/t1/preview", headers={**h, "Accept-Language": "ja"},
                    json={"event": ev})
    err = r.get_json()["error"]
    assert r.status_code == 422 and err["reason"] == "houki_win"
    assert err["message"] == "西家（上田）は和了放棄中のため、この局は和了れません"
    assert err["values"]["seat"] == 2 and "seat 2" not in err["message"]


# --------------------------------------------------------------------------- the page's parts
def test_service_worker_is_served_for_the_tablet_pages(client):
    r = client.get("/tablet/sw.js")
    assert r.status_code == 200 and r.mimetype == "text/javascript"
    assert r.headers["Service-Worker-Allowed"] == "/tablet/"
    assert "no-cache" in r.headers["Cache-Control"] and b"caches" in r.data


def test_entry_spec_route_for_staff_and_scripts(app, client):
    h = bearer(app, "t1")
    g = start(client, h)
    spec = client.get(f"/api/games/{g['game']['id']}/entry").get_json()["entry"]
    assert spec["rules"] == "nekohouse-4a" and spec["price"]["table"]["nr"]["3/30"] == \
        {"ron": 3900}
