"""The tablet page (issue 6 item 2), server side: what each screen shows, Japanese first
with an English switch, the table's own point reading beside the recorded scores, and
refusals in words for unpaired devices."""

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
    assert ">21,100<" in text and ">28,900<" in text and "-7,800" in text
    data = page_data(r)
    assert data["next_seq"] == 2 and data["names"][0] == "青木"
    assert [1, 30] in data["pairs"]["ron"] and [1, 20] not in data["pairs"]["ron"]
    assert 'data-action="undo"' in text and "disabled" not in re.search(
        r'<button[^>]*data-action="undo"[^>]*>', text).group(0)


def test_settlement_sheet_after_the_end(app, client):
    h = bearer(app, "t1")
    g = start(client, h)
    record(client, h, RON, 1)
    view = record(client, h, {"event": "end"}, 2)
    text = cookie_client(app, "t1").get("/tablet/t1").data.decode()
    assert 'data-testid="settlement"' in text
    for seat, result in enumerate(view["replay"]["final"]["result"]):
        cell = re.search(rf'data-testid="result-{seat}">([^<]*)<', text).group(1)
        assert cell == str(result)
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
