"""A club night walked through a third time: what staff, members and the nightly export
read, in the words and amounts a person acts on (the staff console's refusals, one money
format, the export's units, MCR penalties, stick counts, rule names on paper)."""

from __future__ import annotations

import re

import pytest

from club import gamelog, games
from club.accounts import create_staff
from tests.support.web import key
from tests.web.staff_support import STAFF, staff_client
from web.db import get_db

MANGAN_TSUMO = {"event": "win", "winners": [{"seat": 0, "han": 5}]}
YAKUMAN_RON = {"event": "win", "winners": [{"seat": 1, "yakuman": 1}], "from": 0}
DRAW = {"event": "draw", "tenpai": [1]}


@pytest.fixture()
def staff(app):
    with app.app_context():
        create_staff(get_db(), *STAFF)
    c = staff_client(app)
    c.environ_base["HTTP_ACCEPT_LANGUAGE"] = "ja"
    return c


def _game(db, events, end=False, table="t1", players=(1, 2, 3, 4)) -> int:
    gid = games.start_game(db, table, list(players), idempotency_key=key())["game"]["id"]
    for i, e in enumerate(events, 1):
        games.record_event(db, gid, e, expected_seq=i, idempotency_key=key())
    if end:
        games.end_game(db, gid, expected_seq=len(events) + 1, idempotency_key=key())
    return gid


def _form_post(c, path, data):
    token = c.get("/auth/csrf").get_json()["csrf_token"]
    return c.post(path, data={**data, "csrf_token": token},
                  headers={"Referer": f"http://localhost{path.rsplit('/hands', 1)[0]}"})


def test_a_refused_removal_is_shown_open_in_words_of_hands(db, staff):
    """Without the dealer's mangan (hand #1), the yakuman of hand #2 sends him below zero
    (nekohouse-4a ends on a bust), so the draw of hand #3 could not have been played: the
    removal is refused, the page says so at its top and beside the open form, in 局 and #,
    not the replay's lines, and names the bust in Japanese."""
    gid = _game(db, [MANGAN_TSUMO, YAKUMAN_RON, DRAW])
    r = _form_post(staff, f"/staff/games/{gid}/hands/1/remove",
                   {"_form": "remove-1", "reason": "記録ミス"})
    assert r.status_code == 303
    page = staff.get(r.headers["Location"]).get_data(as_text=True)
    alert = re.search(r'<p class="flash flash-error" role="alert" data-testid="remove-refused">'
                      r'(.*?)</p>', page, re.S)
    assert alert, "the refusal is not shown at the top of the page"
    words = alert.group(1)
    assert "#1 の局は取り消していません" in words
    assert "#3 の局" in words and "#2 の局で終わります" in words and "箱下" in words
    assert "bust" not in page and "行目" not in page
    assert '<details class="inline-details" open>' in page       # the form with its reason
    assert [e["seq"] for e in gamelog.played(db, games.get_game(db, gid)).effective] \
        == [0, 1, 2, 3]                                          # nothing was removed


# --------------------------------------------------------------------------- one money format
MONEY_4A = ('extends = "nekohouse-4a"\ntitle = "当店4人打ち"\n[money]\nfee_mode = "per_game"\n'
            'fee = 600\ntop_prize = 1000\ntop_prize_from = "others"\n')
RON = {"event": "win", "winners": [{"seat": 1, "han": 3, "fu": 30}], "from": 0}


def _yen_value(text: str) -> int:
    m = re.fullmatch(r"(-?)¥([\d,]+)", text.strip())
    assert m, f"{text!r} is not the one money format (¥1,000 / -¥600)"
    return (-1 if m.group(1) else 1) * int(m.group(2).replace(",", ""))


def _money_house(db):
    from club import club_tables
    club_tables.save_rule_set(db, "house-4a", MONEY_4A, actor="staff:mika")
    club_tables.save_table(db, "t1", "卓1", "house-4a")
    return _game(db, [RON], end=True)


def test_member_page_money_is_signed_and_adds_up(app, db):
    """What a player pays is negative, in the same format the tablet, receipts and the 日報
    use (``-¥600``), and the lines add up to 差引."""
    from club import members
    _money_house(db)
    token, _ = members.issue_link(db, 1)
    page = app.test_client().get(f"/m/{token}").get_data(as_text=True)
    got = {k: re.search(rf'data-testid="member-{k}">(.*?)</b>', page).group(1)
           for k in ("fee", "prize", "net")}
    assert got == {"fee": "-¥600", "prize": "-¥1,000", "net": "-¥1,600"}
    assert sum(_yen_value(v) for k, v in got.items() if k != "net") == _yen_value(got["net"])


# --------------------------------------------------------------------------- the export's units
def test_export_leaderboards_html_in_thousands_of_points(tmp_path):
    """The nightly leaderboards.html reads as the site does: D's 52,000 + 7,000 points
    all-time is +59.0, not +59,000.0 (docs/stats.md: point families in thousands)."""
    from club import export
    from club.db import connect as connect_db
    from tests.web.test_leaderboard import build_club

    club = build_club(str(tmp_path / "club.sqlite"))
    db = connect_db(club["path"])
    try:
        html = export.build_files(db, "2026-04-01")["leaderboards.html"][0].decode("utf-8")
    finally:
        db.conn.close()
    rows = re.findall(r"<tr><td>\d+</td><td class=n>D</td>.*?</tr>", html)
    assert rows and all("+59.0" in r for r in rows if "+59" in r)
    assert "+59.0" in html and "+54.0" in html
    assert not re.search(r"\+\d{1,3},\d{3}\.\d", html), "a result shown ×1,000"
    assert "E 1着 +54.0" in html


# --------------------------------------------------------------------------- the floor's sticks
def test_floor_says_the_deposit_in_points_not_a_thousand_sticks(db, staff):
    """One riichi stick left on the table after a draw reads 「供託 1,000点」, as on the
    tablet (it read 「供託 1000本」)."""
    _game(db, [{"event": "draw", "tenpai": [0], "riichi": [0]}])
    page = staff.get("/staff/").get_data(as_text=True)
    m = re.search(r'data-testid="kyoutaku-t1">(.*?)</span>', page)
    assert m and m.group(1) == "供託 1,000点"
    assert "1000本" not in page


# --------------------------------------------------------------------------- receipts
def test_receipt_names_the_rules_and_shows_on_screen_as_it_prints(db, staff):
    """The settlement prints the rule set's name (当店4人打ち), never its id (house-4a);
    the console shows that receipt and the 日報's, line for line, before printing."""
    import html as html_mod

    from club.printing import documents
    gid = _money_house(db)
    sheet = documents.settlement(db, gid, 48, "ja").text()
    assert "当店4人打ち" in sheet and "house-4a" not in sheet and "nekohouse-4a" not in sheet
    page = staff.get(f"/staff/printing/preview/settlement/{gid}").get_data(as_text=True)
    pre = re.search(r'data-testid="receipt-preview">(.*?)</pre>', page, re.S).group(1)
    shown = html_mod.unescape(re.sub(r"<[^>]+>", "", pre))
    printed = documents.settlement(db, gid, 48, "ja").text()
    assert [line for line in shown.splitlines() if "印刷" not in line] \
        == [line for line in printed.splitlines() if "印刷" not in line]
    assert f'href="/staff/printing/preview/settlement/{gid}"' in \
        staff.get(f"/staff/games/{gid}").get_data(as_text=True)
    day = staff.get("/staff/printing/preview/daily-report?width=58").get_data(as_text=True)
    assert "日報" in day and "-¥1,600" in day


def test_demo_printer_file_keeps_every_job(db, tmp_path):
    """A printer of kind "file" stands for the paper roll: the second job is written after
    the first, not over it."""
    from club.printing import config, queue
    from club.printing.worker import Worker
    gid = _money_house(db)
    roll = tmp_path / "receipts.bin"
    worker = Worker(db, config.from_mapping({"kind": "file", "path": str(roll)}))
    first = queue.enqueue(db, "settlement", {"game_id": gid})
    worker.step()
    after_one = roll.read_bytes()
    second = queue.enqueue(db, "settlement", {"game_id": gid})
    worker.step()
    assert queue.job(db, first)["state"] == queue.job(db, second)["state"] == "done"
    data = roll.read_bytes()
    assert len(after_one) > 0 and data.startswith(after_one) and len(data) > len(after_one)


# --------------------------------------------------------------------------- member settings
def test_member_settings_take_the_member_number_in_any_case(app, db):
    """The member number on the card is M001; typed m001 it opens the settings, as it does
    at the tablet (club/games.py reads it case-blind)."""
    from club import members
    db.execute("UPDATE players SET member_no = 'M001' WHERE id = 1")
    db.conn.commit()
    members.set_pin(db, 1, "482157")
    token, _ = members.issue_link(db, 1)
    c = app.test_client()
    csrf = c.get("/auth/csrf").get_json()["csrf_token"]
    r = c.post(f"/m/{token}/settings/pin", data={"member_no": "m001", "pin": "482157",
                                                 "csrf_token": csrf})
    assert r.status_code in (200, 302, 303), r.get_data(as_text=True)[:400]
    page = c.get(f"/m/{token}/settings").get_data(as_text=True)
    assert 'data-testid="member-settings-form"' in page
    wrong = app.test_client()
    csrf = wrong.get("/auth/csrf").get_json()["csrf_token"]
    r = wrong.post(f"/m/{token}/settings/pin", data={"member_no": "m002", "pin": "482157",
                                                     "csrf_token": csrf})
    assert r.status_code == 403


# --------------------------------------------------------------------------- charts
def test_rating_chart_labels_never_overlap():
    """An R that dipped half a point below 1,500 and then rose to 1,515 put the labels
    1,499 and 1,500 on top of each other: a label too close to one already placed is
    left out (the start's stays)."""
    from club import charts

    def labels(svg):
        return [(float(y), text) for y, text in re.findall(
            r'<text x="60" y="([\d.]+)" text-anchor="end"[^>]*>([^<]*)</text>', svg)]

    tight = labels(charts.rating_chart([1499.4, 1515.0], "R", start=1500.0, width=360))
    assert [text for _, text in tight] == ["1,500", "1,515"]
    wide = labels(charts.rating_chart([1450.0, 1560.0], "R", start=1500.0, width=360))
    ys = sorted(y for y, _ in wide)
    assert len(ys) == 3 and all(b - a >= charts.LABEL_GAP for a, b in zip(ys, ys[1:], strict=False))


# --------------------------------------------------------------------------- one vocabulary
def test_words_one_vocabulary_on_the_console(db, staff):
    """The console speaks as the tablet does: the correction form's riichi and chips are
    リーチ and 祝儀 (not 立直 / チップ); the rule list names each rule set in the page's
    language only; the audit log words a waiting wish (四人打ち, not family:riichi4)."""
    import json

    from club.floor import waiting
    gid = _game(db, [RON], end=True)
    page = staff.get(f"/staff/games/{gid}").get_data(as_text=True)
    words = json.loads(re.search(r'id="fix-data">(.*?)</script>', page, re.S).group(1))["words"]
    shown = json.dumps(words, ensure_ascii=False)
    assert "リーチ" in shown and "祝儀" in shown
    assert "立直" not in shown and "チップ" not in shown
    assert words["fan"] == "番"                        # as the tablet says an MCR hand
    rules = staff.get("/staff/rulesets").get_data(as_text=True)
    title = re.search(r'data-testid="rule-title-mcr">(.*?)</td>', rules).group(1)
    assert title == "国際ルール (MCR)"
    r = _form_post(staff, "/staff/waiting", {"player_id": "5", "wants": "family:riichi4"})
    assert r.status_code in (302, 303), r.get_data(as_text=True)
    assert [w["wants"] for w in waiting.waiting(db)] == ["family:riichi4"]
    staff.get("/staff/waiting")                        # where the added note is shown
    audit = staff.get("/staff/audit").get_data(as_text=True)
    line = re.search(r"さんを待ち席に（([^<]*)）", audit)
    assert line, "the audit log does not show the player joining the waiting list"
    assert line.group(1) == "四人打ち" and "family:riichi4" not in audit


def test_words_an_mcr_hands_fan_is_ban_on_console_and_tablet(app, db, staff):
    """004: an MCR hand's value is 番 wherever it is read, the console's hand line and the
    tablet's history and refusals alike (points paid stay 点): 「8番」, never 「8点」."""
    from tests.web.test_tablet_clubnight import history_lines
    gid = games.start_game(db, "t1", [1, 2, 3, 4], idempotency_key=key(),
                           rule_set="mcr")["game"]["id"]
    games.record_event(db, gid, {"event": "win", "winners": [{"seat": 1, "fan": 8}], "from": 0},
                       expected_seq=1, idempotency_key=key())
    page = staff.get(f"/staff/games/{gid}").get_data(as_text=True)
    assert "8番" in page and "8点" not in page
    assert history_lines(app)[0].endswith("8番")
    with app.test_request_context(headers={"Accept-Language": "ja"}):
        from web.i18n import t
        said = [t("entry.bad.mcr_minimum", who="東", fan=7, minimum=8),
                t("entry.fan_total"), t("tablet.field.fan"), t("staff.field.fan")]
    assert all("番" in x and "点" not in x for x in said), said


def test_stick_readings_read_as_points():
    """A table's stick reading in words: 「東 30,200点」, not "30200"."""
    from tablectl import commands
    ja = commands.COMMANDS["points"].describe({"points": [30200, None, 25000, 1000]}, "ja")
    assert "東 30,200点" in ja and "30200" not in ja


# --------------------------------------------------------------------------- confusing displays
def test_tablet_labels_the_gap_to_the_leader(client, db, t1):
    """Under a seat's score, "-7,800" read as a payment: it says トップまで 7,800 (青木 dealt
    in 3,900 to 伊藤: 21,100 against 28,900)."""
    _game(db, [RON])
    page = client.get("/tablet/t1?lang=ja", headers=t1).get_data(as_text=True)
    gap = re.search(r'data-testid="gap-0">(.*?)</span>', page).group(1)
    assert gap == "トップまで 7,800"
    assert re.search(r'data-testid="gap-1"></span>', page)       # the leader has none


def test_end_of_game_preview_shows_the_settlement(client, db, t1):
    """The end panel previewed everybody's payments of the end itself: all zeros. The
    server's preview of an end carries each seat's place and settled result."""
    _game(db, [RON])
    token = client.get("/auth/csrf").get_json()["csrf_token"]
    r = client.post("/api/tables/t1/preview", json={"event": {"event": "end"}},
                    headers={**t1, "X-CSRF-Token": token})
    body = r.get_json()
    assert r.status_code == 200, body
    final = body["preview"]["final"]
    assert final["ranks"][1] == 1 and any(final["result"])
    assert sum(final["result"]) == 0
    assert final["shown"][1] == f"{final['result'][1] / 1000:+.1f}"     # in thousands


def test_occupancy_counts_games_outside_the_opening_hours(staff, db):
    """Six games played 10:00-11:40 JST, before the 12:00 opening, read 0.0% and 0:00;
    the hours stretch to cover them, and the report says so."""
    from datetime import datetime, timezone

    from club import daily_report, stats_store

    day = stats_store.today(stats_store.settings(db))
    for i in range(6):
        gid = _game(db, [RON], end=True, table="t1" if i % 2 else "t2")
        start = datetime.fromisoformat(f"{day}T10:{i * 5:02d}:00+09:00")
        finish = datetime.fromisoformat(f"{day}T11:{i * 5 + 10:02d}:00+09:00")
        db.execute("UPDATE games SET started_at = ?, finished_at = ? WHERE id = ?",
                   [start.astimezone(timezone.utc).isoformat(),
                    finish.astimezone(timezone.utc).isoformat(), gid])
        stats_store.refresh_stored(db, gid)
    db.conn.commit()
    rep = daily_report.report(db, day)
    assert rep["total"]["games"] == 6
    assert rep["total"]["minutes"] > 0 and rep["total"]["occupancy"] > 0
    assert rep["outside_hours"] == 6 and rep["opens"][11:16] == "10:00"
    page = staff.get(f"/staff/report?day={day}").get_data(as_text=True)
    assert 'data-testid="report-outside-hours"' in page and "営業時間外の対局が 6局" in page


def test_staff_game_page_shows_every_stored_fact_of_a_hand(db, staff):
    """A hand stored with 役牌 白 picked and 北2 (three-player nukidora) shows both on the
    staff game page, as the history's words of the hand."""
    gid = games.start_game(db, "t3", [1, 2, 3], idempotency_key=key())["game"]["id"]
    win = {"event": "win", "winners": [{"seat": 1, "yaku": [{"id": "yakuhai_haku"}],
                                        "han": 3, "fu": 40, "nukidora": 2}], "from": 0}
    games.record_event(db, gid, win, expected_seq=1, idempotency_key=key())
    page = staff.get(f"/staff/games/{gid}").get_data(as_text=True)
    row = re.search(r'data-testid="entry-1">(.*?)</tr>', page, re.S).group(1)
    assert "役牌 白" in row and "北2" in row
