"""Days at the ends of the calendar and a time-zone name too long for a file: refused in
words (400 on a page, one line and exit 2 on the command line), never a 500 or a traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest

from club import stats_store
from club.accounts import create_staff
from club.errors import UserError
from tests.support.web_server import ROOT
from tests.web.staff_support import STAFF, staff_client
from web.db import get_db

ENDS = ("9999-12-31", "0001-01-01")


@pytest.fixture()
def staff(app):
    with app.app_context():
        create_staff(get_db(), *STAFF)
    return staff_client(app)


@pytest.mark.parametrize("day", ENDS)
def test_one_helper_refuses_a_day_whose_next_or_previous_day_does_not_exist(day):
    with pytest.raises(UserError) as e:
        stats_store.user_day(day)
    assert e.value.key == "lb.err.day_range"
    assert "0001-01-02" in e.value.message and "9999-12-30" in e.value.message
    assert stats_store.user_day("9999-12-30").isoformat() == "9999-12-30"
    assert stats_store.user_day("0001-01-02").isoformat() == "0001-01-02"


@pytest.mark.parametrize("day", ENDS)
def test_the_daily_report_and_leaderboards_answer_400_in_words(staff, day):
    for path in (f"/staff/report?day={day}", f"/staff/report/accounts.csv?day={day}",
                 f"/leaderboard/?day={day}", f"/leaderboard/?period=range&start=2026-04-01"
                 f"&end={day}"):
        r = staff.get(path, headers={"Accept-Language": "ja"})
        assert r.status_code == 400, path
        assert "扱えない日付です" in r.get_data(as_text=True), path
    r = staff.get(f"/staff/report?day={day}", headers={"Accept": "application/json"})
    assert r.status_code == 400 and day in r.get_json()["error"]["message"]


@pytest.mark.parametrize("day", ENDS)
def test_export_of_a_calendar_end_is_one_line_and_exit_2(tmp_path, day):
    from web import create_app

    db = str(tmp_path / "club.sqlite")
    create_app({"DATABASE": db, "SECRET_KEY": "t", "TESTING": True})
    r = subprocess.run([sys.executable, "-m", "web", "export", "--db", db, "--date", day,
                        "--out", str(tmp_path / "out")], capture_output=True, text=True,
                       timeout=120, cwd=ROOT)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "cannot be used" in r.stderr
    assert not (tmp_path / "out" / day).exists()


def test_a_time_zone_name_of_300_characters_is_refused_in_words(staff, app, tmp_path):
    token = staff.get("/auth/csrf").get_json()["csrf_token"]
    for name in ("A" * 300, "Asia/" + "x" * 300):
        r = staff.post("/staff/settings", data={"timezone": name, "csrf_token": token},
                       headers={"Accept": "application/json"})
        assert r.status_code == 400, r.get_data(as_text=True)[:200]
        assert r.get_json()["error"]["message"]
    with app.app_context():
        assert stats_store.settings(get_db())["timezone"] == "Asia/Tokyo"  # nothing changed
    with pytest.raises(UserError):
        stats_store._zone("Europe/" + "y" * 250)  # a file name too long is words, not OSError
    r = subprocess.run([sys.executable, "-m", "web", "club-day", "--db", app.config["DATABASE"],
                        "--timezone", "Z" * 300], capture_output=True, text=True, timeout=120,
                       cwd=ROOT)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
