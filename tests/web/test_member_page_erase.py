"""Erasure touches the member's own references only: whole names in free text ("Ko" is
not in "Kobayashi"), whole values in structured data, the matches listed to staff before
they confirm; then nothing of the member stays in the club file or its WAL (secure
delete and a WAL checkpoint, both files grepped), and the report names every place a copy
may remain outside the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from club import member_data, members, roster
from club.accounts import create_staff
from club.audit import audit
from club.db import connect, write_tx
from tests.web import test_member_page_data as data_tests
from tests.web.staff_support import staff_client
from tests.web.test_member_page_data import EMAIL, LINE_ID, MEMBER_NO, NAME
from web import create_app

club = data_tests.club
"""The member data tests' club: a member with a profile, games, audit entries, outbox."""


@pytest.mark.parametrize("text, name, where", [
    ("Kobayashi-san … Kojima agreed", "Ko", []),
    ("Ko asked to leave; Kobayashi saw it", "Ko", [0]),
    ("Ko,Ko", "Ko", [0, 3]),
    ("Koさんの希望", "Ko", [0]),
    ("青木さんの希望で卓4", "青木", [0]),
    ("青木田さんの希望", "青木", []),
    ("ケンタさん", "ケン", []),
    ("(ケン)", "ケン", [1]),
    ("", "Ko", []),
])
def test_member_page_erase_finds_whole_names_only(text, name, where):
    assert member_data.whole_name_at(text, name) == where


@pytest.fixture()
def ko(tmp_path):
    """A club where a member named "Ko" sits beside Kobayashi and Kojima."""
    path = str(tmp_path / "club.sqlite")
    app = create_app({"DATABASE": path, "SECRET_KEY": "x", "TESTING": True,
                      "COOKIE_SECURE": False})
    db = connect(path)
    ko = roster.add_player(db, "Ko", member_no="M-1")["id"]
    kob = roster.add_player(db, "Kobayashi", member_no="M-2")["id"]
    roster.add_player(db, "Kojima", member_no="M-3")
    audit(db, "staff:mika", "player.note", f"player:{kob}",
          reason="Kobayashi-san and Kojima agreed", details={"name": "Kobayashi"})
    audit(db, "staff:mika", "player.note", f"player:{ko}",
          reason="Ko asked to leave; Kobayashi saw it", details={"name": "Ko"})
    audit(db, "staff:mika", "seating.ready", "table:t1", reason="Koさんの希望で卓1",
          details={"names": ["Ko", "Kojima", "Kobayashi"]})
    create_staff(db, "kenji", "manager-pass-1", role="manager")
    yield {"app": app, "db": db, "ko": ko, "path": path}
    db.conn.close()


def _reasons(db) -> list[str]:
    return [r[0] for r in db.execute("SELECT reason FROM audit_log ORDER BY id")]


def test_member_page_erase_of_ko_leaves_kobayashi_and_kojima_alone(ko):
    db, pid = ko["db"], ko["ko"]
    member_data.erase(db, pid, "staff:kenji", "本人の申し出")
    neutral = member_data.former_name(pid)
    reasons = _reasons(db)
    assert reasons[:3] == ["Kobayashi-san and Kojima agreed",
                           f"{neutral} asked to leave; Kobayashi saw it",
                           f"{neutral}さんの希望で卓1"]
    details = [json.loads(r[0]) for r in db.execute("SELECT details FROM audit_log ORDER BY id")]
    assert details[0] == {"name": "Kobayashi"} and details[1] == {"name": neutral}
    assert details[2] == {"names": [neutral, "Kojima", "Kobayashi"]}
    names = {r[0] for r in db.execute("SELECT name FROM players")}
    assert names == {"Kobayashi", "Kojima", neutral}


def test_member_page_erase_lists_the_free_text_matches_before_confirming(ko):
    db, pid = ko["db"], ko["ko"]
    found = member_data.free_text_matches(db, pid)
    assert [m["reason"] for m in found] == ["Ko asked to leave; Kobayashi saw it",
                                            "Koさんの希望で卓1"]
    assert found[0]["after"].startswith(member_data.former_name(pid))
    c = staff_client(ko["app"], "kenji", "manager-pass-1")
    page = c.get(f"/staff/players/{pid}/data").get_data(as_text=True)
    section = page.split('data-testid="member-data-free-text"', 1)[1].split("</div>", 2)[0]
    assert "Ko asked to leave" in section and "Kobayashi-san and Kojima" not in section
    assert "#%d asked to leave" % pid in section
    doc = c.get(f"/staff/players/{pid}/data", headers={"Accept": "application/json"}).get_json()
    assert len(doc["free_text_matches"]) == 2
    assert len(doc["outside_the_file"]) == len(member_data.OUTSIDE_PLACES)


def test_member_page_erase_report_names_every_place_a_copy_may_remain(club):
    db, me = club["db"], club["me"]
    out = member_data.erase(db, me, "staff:kenji", "本人の退会の申し出")
    places = out["kept_outside_the_file"]
    for word in ("backups", "nightly exports", "head office", "e-mails", "paper", "download"):
        assert any(word in p for p in places), word
    entry = db.execute("SELECT details FROM audit_log WHERE action = 'member.erase'").fetchone()
    assert json.loads(entry[0])["kept_outside_the_file"] == places
    c = staff_client(club["app"], "kenji", "manager-pass-1")
    page = c.get(f"/staff/players/{me}/data").get_data(as_text=True)
    assert "本部" in page and "バックアップ" in page and "紙" in page


def _grep(path: str, *words: str) -> dict[str, int]:
    data = Path(path).read_bytes() if Path(path).exists() else b""
    return {w: data.count(w.encode("utf-8")) for w in words if w.encode("utf-8") in data}


def test_member_page_erase_leaves_nothing_in_the_wal_or_the_db_file(club):
    db, me, path = club["db"], club["me"], club["path"]
    # more history in the WAL: settings saved twice, a PIN set, a link issued
    with write_tx(db):
        members.set_line_user(db, me, LINE_ID)          # as the club's LINE account links it
    members.save_settings(db, me, email=EMAIL, optins={})
    members.save_settings(db, me, email="x" + EMAIL, optins={})
    members.save_settings(db, me, email=EMAIL, optins={})
    members.issue_link(db, me)
    words = (NAME, EMAIL, MEMBER_NO, LINE_ID)
    assert _grep(path + "-wal", *words) or _grep(path, *words)      # the grep finds them
    out = member_data.erase(db, me, "staff:kenji", "本人の退会の申し出")
    assert out["wal_truncated"] is True
    assert Path(path + "-wal").stat().st_size == 0
    assert _grep(path + "-wal", *words) == {}
    assert _grep(path, *words) == {}


def test_member_page_erase_through_the_staff_page_leaves_nothing_in_the_files(club):
    me, path = club["me"], club["path"]
    c = staff_client(club["app"], "kenji", "manager-pass-1")
    token = c.get("/auth/csrf").get_json()["csrf_token"]
    r = c.post(f"/staff/players/{me}/erase", json={"reason": "本人の申し出", "confirm": str(me)},
               headers={"X-CSRF-Token": token})
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["erased"]["wal_truncated"] is True
    words = (NAME, EMAIL, MEMBER_NO, LINE_ID)
    assert _grep(path + "-wal", *words) == {} and _grep(path, *words) == {}
