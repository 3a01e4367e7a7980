"""The tablet on a club night, server side: what a walk-through at the tables found."""

from __future__ import annotations

import re

from club import events
from scoring.hand import score_hand
from scoring.rules import load_rules
from tests.support.web import bearer, cookie_client, record, start


def test_mcr_fan_total_is_bounded_by_the_best_hand(app, client):
    """A typo of 888 for 88 is refused in words; 328 without flowers, the best hand, is not."""
    h = bearer(app, "t1")
    start(client, h, rule_set="mcr")

    def preview(w, lang="ja"):
        return client.post("/api/tables/t1/preview", headers={**h, "Accept-Language": lang},
                           json={"event": {"event": "win", "winners": [w], "from": 0}})

    r = preview({"seat": 1, "fan": 888})
    err = r.get_json()["error"]
    assert r.status_code == 422 and err["field"] == "event.winners[0].fan"
    assert "888 番の手はありません" in err["message"] and "328" in err["message"]
    r = preview({"seat": 1, "fan": 999}, lang="en")
    assert r.status_code == 422 and "no hand scores 999" in r.get_json()["error"]["message"]
    r = preview({"seat": 1, "fan": 329, "flowers": 1})       # 328 and a flower: the most
    assert r.status_code == 200
    r = preview({"seat": 1, "fan": 337, "flowers": 8})       # 329 without flowers
    assert r.status_code == 422


def test_the_mcr_ceiling_is_what_the_engine_scores_the_best_hand():
    """大三元 字一色 四杠 四暗刻 by concealed kongs, won on the last tile's kong replacement,
    with the prevalent and seat wind pair: the engine's 328, the bound the tablet uses."""
    res = score_hand({
        "hand": "22z", "win": "2z", "tsumo": True, "kong_replacement": True,
        "wall_last": True, "seat_wind": "E", "round_wind": "E",
        "melds": [{"type": "ankan", "tiles": t} for t in ("1111z", "5555z", "6666z", "7777z")],
    }, load_rules("mcr"))
    assert res["fan"] == events.MCR_MAXIMUM_FAN == 328


def test_start_screen_names_rule_sets_in_the_pages_language_only(app):
    c = cookie_client(app, "t1")
    ja = c.get("/tablet/t1").data.decode()
    options = re.findall(r'<option value="(nekohouse-4a|mcr)"[^>]*>([^<]*)</option>', ja)
    assert dict(options) == {"nekohouse-4a": "ねこはうす 四人打ち半荘戦Aルール",
                             "mcr": dict(options)["mcr"]}
    assert "Nekohouse" not in ja and "(nekohouse-4a)" not in ja
    assert not re.search(r"[A-Za-z]{4,}", dict(options)["mcr"])
    en = c.get("/tablet/t1?lang=en").data.decode()
    options = dict(re.findall(r'<option value="(nekohouse-4a)"[^>]*>([^<]*)</option>', en))
    assert options == {"nekohouse-4a": "Nekohouse four-player hanchan, rule A"}


def history_lines(app, lang="ja") -> list[str]:
    text = cookie_client(app, "t1").get(f"/tablet/t1?lang={lang}").data.decode()
    return [" ".join(re.sub(r"<[^>]+>", " ", m).split())
            for m in re.findall(r'<div class="h-line">(.*?)</div>', text, re.S)]


def test_a_han_and_fu_paid_as_mangan_says_mangan(app, client):
    """切り上げ満貫 under 4A: 4翻30符 is paid 8,000 and the line says 満貫."""
    h = bearer(app, "t1")
    start(client, h)
    record(client, h, {"event": "win", "winners": [{"seat": 1, "han": 4, "fu": 30}],
                       "from": 0}, 1)
    assert history_lines(app)[0] == "東1局 ロン 伊藤←青木 4翻30符 満貫 8,000"
    record(client, h, {"event": "win", "winners": [{"seat": 1, "han": 3, "fu": 30}],
                       "from": 0}, 2)
    assert history_lines(app)[0] == "東2局 ロン 伊藤←青木 3翻30符 5,800"      # 伊藤 deals


def test_mcr_history_uses_the_mcr_buttons_words(app, client):
    """和了 / 自摸 / 荒牌, as the MCR buttons say, never ロン / ツモ / 流局 全員ノーテン."""
    h = bearer(app, "t1")
    start(client, h, rule_set="mcr")
    record(client, h, {"event": "win", "winners": [{"seat": 1, "fan": 8}], "from": 0}, 1)
    record(client, h, {"event": "win", "winners": [{"seat": 2, "fan": 10}]}, 2)
    record(client, h, {"event": "draw", "tenpai": []}, 3)
    lines = history_lines(app)
    assert lines == ["東3局 荒牌", "東2局 自摸 上田 10番", "東1局 和了 伊藤←青木 8番"]
    assert not any(w in " ".join(lines) for w in ("ロン", "ツモ", "流局", "ノーテン"))
    assert history_lines(app, "en")[0] == "East 3 Draw"


SIMPLIFIED = set("杠么无于圈龙对连门风发东两边绝")
"""Simplified Chinese forms that the rulebook's fan names use and Japanese writes otherwise
(槓 幺 無 於 圏 ...)."""


def test_mcr_fan_names_in_japanese_are_written_in_japanese_kanji(app, client):
    import lexicon
    from club import engine

    fans = engine.mcr_fans(engine.load_rules("mcr"))
    for f in fans:
        ja = lexicon.t(f"mcr.fan.{f['id']}", "ja")
        assert not SIMPLIFIED & set(ja), (f["id"], ja)
        assert lexicon.t(f"mcr.fan.{f['id']}", "en") == f["en"]
    by_id = {f["id"]: f for f in fans}
    assert by_id["four_kongs"]["zh"] == "四杠"                   # the rulebook's column stays
    assert lexicon.t("mcr.fan.four_kongs", "ja") == "四槓"
    assert lexicon.t("mcr.fan.chicken_hand", "ja") == "無番和"
    h = bearer(app, "t1")
    start(client, h, rule_set="mcr")
    r = client.post("/api/tables/t1/preview", headers={**h, "Accept-Language": "ja"}, json={
        "event": {"event": "win", "from": 0, "winners": [
            {"seat": 1, "fans": [{"id": "full_flush"}, {"id": "no_honors"}]}]}})
    message = r.get_json()["error"]["message"]
    assert "無字" in message and not SIMPLIFIED & set(message)
    words = re.search(r'<script type="application/json" id="words">(.*?)</script>',
                      cookie_client(app, "t1").get("/tablet/t1").data.decode(), re.S).group(1)
    assert '"mcr.fan.four_kongs": "四槓"' in words


def test_results_read_the_same_on_the_tablet_and_the_staff_game_page(app, client):
    """One form for a settled result: the club's ±N.N (thousands of points) on both."""
    from club.accounts import create_staff
    from tests.web.staff_support import STAFF, staff_client
    from web.db import get_db

    h = bearer(app, "t1")
    game = start(client, h)["game"]["id"]
    record(client, h, {"event": "win", "winners": [{"seat": 1, "yakuman": 1}], "from": 0}, 1)
    tablet = cookie_client(app, "t1").get("/tablet/t1").data.decode()
    shown = dict(re.findall(r'data-testid="result-(\d)">([^<]*)<', tablet))
    assert shown and all(re.fullmatch(r"[+-]\d+\.\d|0", v) for v in shown.values()), shown
    with app.app_context():
        create_staff(get_db(), *STAFF)
    staff = staff_client(app)
    page = staff.get(f"/staff/games/{game}").data.decode()
    assert dict(re.findall(r'data-testid="result-(\d)">([^<]*)<', page)) == shown
    # the correction form's preview of the results before and after: the same form
    token = staff.get("/auth/csrf").get_json()["csrf_token"]
    fixed = {"event": "win", "winners": [{"seat": 2, "yakuman": 1}], "from": 0}
    html = staff.post(f"/staff/games/{game}/hands/1/preview", json={"event": fixed},
                      headers={"X-CSRF-Token": token, "Accept": "application/json"}
                      ).get_json()
    assert "html" in html, html
    html = html["html"]
    results = re.findall(r"\(([+-]?[\d.,]+)\)", html)
    assert results and all(re.fullmatch(r"[+-]\d+\.\d|0", v) for v in results), results


def test_every_page_has_an_icon(client):
    """favicon.ico was 404 on every page; it is the club's icon, without signing in."""
    r = client.get("/favicon.ico")
    assert r.status_code == 200 and r.mimetype == "image/vnd.microsoft.icon"
    assert r.data[:4] == b"\x00\x00\x01\x00" and b"PNG" in r.data[:40]


def test_a_wrong_member_number_is_said_to_be_wrong(app, client, db):
    """Settlement confirmation: no number asks for it; a wrong one says it is not theirs
    (it used to ask for the number again), and says who can tell them theirs."""
    from club import roster

    sato = roster.add_player(db, "佐藤", member_no="M001")["id"]
    h = bearer(app, "t1")
    gid = start(client, h, players=(sato, 2, 3, 4))["game"]["id"]
    record(client, h, {"event": "win", "winners": [{"seat": 1, "yakuman": 1}], "from": 0}, 1)
    url = f"/api/tables/t1/games/{gid}/confirm"

    def confirm(body, lang="ja"):
        return client.post(url, headers={**h, "Accept-Language": lang}, json=body)

    asked = confirm({"seat": 0}).get_json()["error"]["message"]
    assert "会員番号を入力してください" in asked
    r = confirm({"seat": 0, "member_no": "M002"})
    wrong = r.get_json()["error"]["message"]
    assert r.status_code == 422 and wrong != asked
    assert "佐藤 さんの会員番号ではありません" in wrong and "スタッフにお尋ねください" in wrong
    assert "not 佐藤's member number" in confirm({"seat": 0, "member_no": "M003"},
                                                 "en").get_json()["error"]["message"]
    assert confirm({"seat": 0, "member_no": "m001"}).status_code == 200


def test_the_floor_shows_honba_and_deposits_only_where_the_rules_have_them(app, client):
    """An MCR table's card on the staff floor has no 本場 / 供託 (MCR has neither)."""
    from club import roster
    from club.accounts import create_staff
    from club.db import connect
    from tests.web.staff_support import STAFF, staff_client
    from web.db import get_db

    db = connect(app.config["DATABASE"])
    try:
        others = [roster.add_player(db, n)["id"] for n in ("加藤", "木村", "工藤")]
    finally:
        db.conn.close()
    start(client, bearer(app, "t1"), rule_set="mcr")
    start(client, bearer(app, "t2"), table="t2", players=(5, *others))
    with app.app_context():
        create_staff(get_db(), *STAFF)
    staff = staff_client(app)
    staff.environ_base["HTTP_ACCEPT_LANGUAGE"] = "ja"
    page = staff.get("/staff/").data.decode()
    lines = dict(re.findall(r'data-testid="game-link-(t\d)">.*?</a>(.*?)</p>', page, re.S))
    assert "本場" not in lines["t1"] and "供託" not in lines["t1"], lines["t1"]
    assert "本場" in lines["t2"] and "供託" in lines["t2"], lines["t2"]


def test_the_game_staff_made_ready_names_its_rule_set(app, db):
    """The tablet's card of the game staff made ready reads the rule set's name in the
    page's language, never its id."""
    from club.floor import seating

    seating.seat(db, "t1", [1, 2, 3, 4], method="random", actor="staff:test")
    c = cookie_client(app, "t1")
    card = re.search(r'data-testid="ready-game">(.*?)</div>', c.get("/tablet/t1").data.decode(),
                     re.S).group(1)
    assert "ねこはうす 四人打ち半荘戦Aルール" in card and "nekohouse-4a" not in card
    card = re.search(r'data-testid="ready-game">(.*?)</div>',
                     c.get("/tablet/t1?lang=en").data.decode(), re.S).group(1)
    assert "Nekohouse four-player hanchan, rule A" in card and "ねこはうす" not in card
