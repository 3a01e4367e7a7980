"""Numbers in the query strings of the staff pages: one bounded reader
(``web.limits.query_number``), ASCII digits only, never beyond a row id: a clear 400 or
404 in words, never a 500, on every staff page and every number it reads."""

from __future__ import annotations

import pytest

from club.accounts import create_staff
from tests.support.web import record, start
from tests.web.staff_support import staff_client

HOSTILE = ("99999999999999999999", "9223372036854775808", "١٢", "１２", "-1", "1e3", "0x10",
           "12 ", "²")
PARAMS = ("other", "game", "player", "mode", "page", "limit", "min_games", "day", "status",
          "table", "target", "paper", "family", "format")


@pytest.fixture()
def desk(app, db, client, t1):
    create_staff(db, "mika", "mahjong-club", role="owner")
    for pid in range(1, 6):
        db.execute("UPDATE players SET member_no = ? WHERE id = ?", [f"M{pid:03d}", pid])
    db.conn.commit()
    start(client, t1)
    record(client, t1, {"event": "win", "winners": [{"seat": 1, "han": 3, "fu": 30}],
                        "from": 0}, 1)
    return staff_client(app)


@pytest.mark.parametrize("value", ["99999999999999999999", "١٢"])
def test_staff_chain_page_other_out_of_range_or_not_ascii_is_a_clear_refusal(desk, value):
    r = desk.get(f"/staff/players/1/chain?other={value}")
    assert r.status_code in (400, 404), r.status_code
    text = r.get_data(as_text=True)
    assert "Traceback" not in text and "other" in text
    js = desk.get(f"/staff/players/1/chain?other={value}", headers={"Accept": "application/json"})
    assert js.status_code == 400 and js.get_json()["error"]["code"] == "invalid_field"
    assert "other" in js.get_json()["error"]["message"]


def test_staff_chain_page_other_in_ascii_digits_still_proposes(desk):
    r = desk.get("/staff/players/1/chain?other=2", headers={"Accept": "application/json"})
    assert r.status_code == 200, r.get_json()


@pytest.mark.parametrize("path", ["/staff/audit?game={}", "/staff/report-cards?player={}",
                                  "/staff/report-cards?game={}"])
@pytest.mark.parametrize("value", ["99999999999999999999", "9223372036854775808", "١٢", "１２"])
def test_staff_query_numbers_are_bounded_and_ascii(desk, path, value):
    r = desk.get(path.format(value), headers={"Accept": "application/json"})
    assert r.status_code == 400, (path, value, r.status_code)
    assert r.get_json()["error"]["code"] == "invalid_field"


def test_staff_every_page_survives_hostile_numbers_in_every_parameter(app, desk):
    pages = []
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/staff") or "GET" not in rule.methods:
            continue
        if any(a not in ("player_id", "game_id", "table_id", "staff_id") for a in rule.arguments):
            continue
        pages.append(rule.rule.replace("<int:player_id>", "1").replace("<int:game_id>", "1")
                     .replace("<table_id>", "t1").replace("<int:staff_id>", "1"))
    assert len(pages) > 20
    failures = []
    for page in pages:
        for param in PARAMS:
            for value in HOSTILE:
                r = desk.get(page, query_string={param: value})
                if r.status_code >= 500:
                    failures.append((page, param, value, r.status_code))
    assert failures == []
