"""What reaches the printer is printable text only: every text passes one filter
(``receipt.printable``) on its way into the ESC/POS bytes, a rule set whose name or title
holds control characters is refused at upload in words, and those kept before are
repaired. The printer's bytes are checked for any control code the printer module does
not emit itself (a drawer kick ``ESC p``, an extra cut ``GS V``, a reset ``ESC @``)."""

from __future__ import annotations

import json
import re
import tomllib

import pytest

from club import club_tables
from club.accounts import create_staff
from club.printing import documents
from club.printing.receipt import (
    INIT,
    KANJI_ON,
    SIZE_DOUBLE,
    SIZE_NORMAL,
    Sheet,
    escpos_bytes,
    printable,
)
from tests.scoring.test_stats import G1
from tests.web.test_leaderboard import play
from tests.web.test_receipt import FINISHED
from web.errors import UserError

EVIL = "Evil\u001bp\u0000\u0032\u0032\u001dV\u0000\u001b@"
EVIL_TOML_NAME = 'extends = "nekohouse-4a"\nname = "Evil\\u001Bp\\u0000\\u0032\\u0032' \
                 '\\u001DV\\u0000\\u001B@"\n'
OWN_COMMANDS = re.compile(rb"\x1b[Ea][\x00\x01]|\x1bd\x06")
"""The style commands python-escpos sends for the module (bold, alignment, the feed)."""


def control_codes_not_ours(data: bytes) -> list[int]:
    """The control bytes of a sheet's ESC/POS stream that are not the printer module's
    own commands: reset and Kanji mode first, the cut last, sizes and styles between."""
    assert data.startswith(INIT + KANJI_ON) and data.endswith(b"\x1dV\x00")
    body = data[len(INIT + KANJI_ON):-3]
    body = body.replace(SIZE_DOUBLE, b"").replace(SIZE_NORMAL, b"")
    body = OWN_COMMANDS.sub(b"", body)
    return [b for b in body if (b < 0x20 and b != 0x0A) or b == 0x7F]


def _staff(app, db):
    create_staff(db, "mika", "mahjong-club", role="staff")
    c = app.test_client()
    token = c.get("/auth/csrf").get_json()["csrf_token"]
    c.post("/auth/login", data={"name": "mika", "password": "mahjong-club", "csrf_token": token})
    c.environ_base["HTTP_X_CSRF_TOKEN"] = c.get("/auth/csrf").get_json()["csrf_token"]
    c.environ_base["HTTP_ACCEPT"] = "application/json"
    return c


@pytest.mark.parametrize("raw, shown", [
    (EVIL, "Evilp22V@"), ("卓\x85一\x9b", "卓一"), ("a\x7fb", "ab"), ("a\tb", "a b"),
    ("名\u200b前\u202e", "名前"), ("¥1,000 東南", "¥1,000 東南"),
])
def test_receipt_printable_lets_through_printable_text_only(raw, shown):
    assert printable(raw) == shown


@pytest.mark.parametrize("toml", [
    EVIL_TOML_NAME,
    'extends = "nekohouse-4a"\ntitle = "ルール\\u001B@"\n',
    'extends = "nekohouse-4a"\ntitle = "ルール\\u0085"\n',
    'extends = "nekohouse-4a"\nname = "a\\u200Bb"\n',
])
def test_receipt_rule_set_name_with_control_codes_is_refused_at_upload(app, db, toml):
    c = _staff(app, db)
    r = c.post("/staff/rulesets", json={"id": "evil", "toml": toml})
    assert r.status_code == 400, r.get_json()
    assert r.get_json()["error"]["code"] == "invalid_field", r.get_json()
    assert db.execute("SELECT COUNT(*) FROM rule_sets WHERE id = 'evil'").fetchone()[0] == 0


def _plant(db) -> int:
    """A rule set kept before names were checked, and a game played under it."""
    db.execute("INSERT INTO rule_sets (id, title, toml, created_at, updated_at) "
               "VALUES ('evil', ?, ?, '2026-01-01', '2026-01-01')",
               ["Evil\x1b@ title", EVIL_TOML_NAME + "[money]\nfee = 0\n"])
    db.execute("INSERT INTO club_tables (id, name, rule_set, created_at) "
               "VALUES ('t9', '卓9', 'evil', '2026-01-01')")
    db.conn.commit()
    gid = play(db, "t9", [1, 2, 3, 4], G1, FINISHED)
    rules = json.loads(db.execute("SELECT rules FROM games WHERE id = ?", [gid]).fetchone()[0])
    rules["name"] = EVIL
    db.execute("UPDATE games SET rules = ? WHERE id = ?", [json.dumps(rules), gid])
    db.execute("UPDATE players SET name = ? WHERE id = 1", ["青木\x1bp\x00\x19\x19"])
    db.conn.commit()
    return gid


@pytest.mark.parametrize("mm", [58, 80])
def test_receipt_printer_bytes_carry_no_control_code_but_the_modules_own(db, mm):
    gid = _plant(db)
    data = escpos_bytes(documents.settlement(db, gid, 32 if mm == 58 else 48))
    assert control_codes_not_ours(data) == []
    assert b"\x1bp" not in data and data.count(b"\x1dV") == 1 and data.count(INIT) == 1
    assert "Evilp22V@".encode() in data
    card = escpos_bytes(documents.report_card_sheet(db, 1, 48, game_id=gid))
    assert control_codes_not_ours(card) == [] and b"\x1bp" not in card


def test_receipt_control_codes_in_any_sheet_line_never_reach_the_bytes():
    s = Sheet(48)
    s.add("\x1b@\x1bp\x00\x19\x19\x1dV\x00", "title")
    s.pair("\x10\x04\x01", "\x7f\x9b1")
    s.add("\x1d(k\x03\x001P0", "bold")
    assert control_codes_not_ours(escpos_bytes(s)) == []


def test_receipt_stored_rule_set_names_are_repaired(db):
    gid = _plant(db)
    assert club_tables.repair_stored_names(db) == 2
    db.conn.commit()
    row = db.execute("SELECT title, toml FROM rule_sets WHERE id = 'evil'").fetchone()
    assert row[0] == "Evil@ title"
    data = tomllib.loads(row[1])
    assert data["name"] == "Evilp22V@" and data["money"] == {"fee": 0}
    rules = json.loads(db.execute("SELECT rules FROM games WHERE id = ?", [gid]).fetchone()[0])
    assert rules["name"] == "Evilp22V@"
    assert club_tables.resolve_rules(db, "evil").name == "Evilp22V@"
    assert club_tables.repair_stored_names(db) == 0            # once is enough


def test_receipt_rule_set_upload_with_a_clean_name_still_works(db):
    row = club_tables.save_rule_set(
        db, "house", 'extends = "nekohouse-4a"\nname = "店のルール"\n'
                     'title = "店のルール / House rules"\n', actor="owner")
    assert row["rules"]["name"] == "店のルール"
    with pytest.raises(UserError):
        club_tables.save_rule_set(db, "house2", 'extends = "nekohouse-4a"\nname = "x\\u0007"\n',
                                  actor="owner")
