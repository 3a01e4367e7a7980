"""A member's data: the export of everything the club holds about them, and the erasure of
their personal data that keeps every game's results for the other players.

A real club file: members and a guest play a club day on club rule sets with money (the
daily report's fixture rules), one member has a profile (link, PIN, contacts, opt-ins), a
place on the waiting list and audit entries that name them."""

from __future__ import annotations

import json
import uuid

import pytest

from club import (
    club_tables,
    daily_report,
    games,
    member_data,
    members,
    rating_store,
    roster,
    stats_store,
)
from club.accounts import create_staff
from club.audit import audit
from club.db import connect
from club.errors import Conflict, NotFound, UserError
from club.floor import waiting
from club.notify import outbox
from tests.club.test_daily_report import DAY, END, RULES, jst, play
from tests.web.staff_support import staff_client
from web import create_app

NAME = "御手洗遥香"
MEMBER_NO = "M-7781"
EMAIL = "haruka.mitarai@example.jp"
LINE_ID = "U4af4980629f3a1b2c3d4e5f6a7b8c9d0"
LINK_HASH = "9f" * 32
PIN_HASH = "scrypt:32768:8:1$salt$" + "ab" * 32
OTHERS = ("佐藤", "鈴木", "高橋", "田中")


def win(seat: int, han: int, fu: int, **kw) -> dict:
    return {"event": "win", "winners": [{"seat": seat, "han": han, "fu": fu, **kw}]}


@pytest.fixture()
def club(tmp_path):
    path = str(tmp_path / "club.sqlite")
    app = create_app({"DATABASE": path, "SECRET_KEY": "x", "TESTING": True,
                      "COOKIE_SECURE": False})
    db = connect(path)
    for rid, text in RULES.items():
        club_tables.save_rule_set(db, rid, text, actor="owner")
    club_tables.save_table(db, "t1", "卓1", "house-4a")
    club_tables.save_table(db, "t2", "卓2 東風", "house-ton")
    club_tables.save_table(db, "t4", "卓4", "house-4a")
    me = roster.add_player(db, NAME, member_no=MEMBER_NO)["id"]
    ids = [roster.add_player(db, n, member_no=f"M{i}")["id"] for i, n in enumerate(OTHERS)]
    guest = roster.add_player(db, "ゲスト1", guest=True)["id"]
    audit(db, "staff:mika", "player.create", f"player:{me}", details={"name": NAME})
    played = [
        # the member wins a mangan by tsumo
        play(db, "t1", [me, *ids[:3]], [win(0, 5, 30, chips=1), END],
             jst(DAY, "13:00"), jst(DAY, "14:10")),
        # the member deals in to 鈴木
        play(db, "t2", [ids[0], ids[1], me, ids[3]], [{**win(1, 3, 30), "from": 2}, END],
             jst(DAY, "16:00"), jst(DAY, "16:50")),
        # a game without the member
        play(db, "t1", [guest, *ids[1:]], [{**win(1, 2, 30, chips=2), "from": 0}, END],
             jst(DAY, "18:00"), jst(DAY, "19:00")),
    ]
    db.execute("INSERT INTO member_profiles (player_id, link_hash, link_issued_at, pin_hash, "
               "pin_set_at, email, line_user_id, optin_seat_ready, optin_report_card, "
               "optin_risers, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, 1, 1, 1, ?)",
               [me, LINK_HASH, jst(DAY, "12:00"), PIN_HASH, jst(DAY, "12:01"), EMAIL,
                LINE_ID, jst(DAY, "12:01")])
    entry = waiting.add(db, me, "family:riichi4", actor="staff:mika")
    audit(db, "staff:mika", "waiting.add", f"player:{me}",
          details={"name": NAME, "wants": "family:riichi4", "entry": entry["id"]})
    audit(db, "staff:mika", "seating.ready", "table:t4", reason=f"{NAME}さんの希望で卓4",
          details={"names": [NAME, *OTHERS[:3]]})
    to_me = {"line_user_id": LINE_ID, "email": EMAIL}
    outbox.queue(db, f"seat_ready:{entry['id']}:{me}", to_me, "seat_ready",
                 {"name": NAME, "table_id": "t4"})
    outbox.queue(db, f"report_card:{played[0]}:{me}", to_me, "report_card",
                 {"game_id": played[0], "player_id": me})
    db.execute("UPDATE outbox SET state = 'sent', sent_at = ? WHERE event_key LIKE ?",
               [jst(DAY, "14:11"), "report_card:%"])
    outbox.queue(db, f"call:1:{me}", {"email": "desk@example.jp"}, "call",
                 {"table_id": "t1", "reason": "staff"})      # a staff member, number alike
    db.execute("INSERT INTO login_attempts (ip, name, at, ok) VALUES (?, 'member_pin', 1, 1)",
               [f"member_pin:{me}"])
    create_staff(db, "owner1", "owner-password-1")
    create_staff(db, "mika", "mahjong-club", role="staff")
    create_staff(db, "kenji", "manager-pass-1", role="manager")
    db.conn.close()
    conn = connect(path)
    yield {"app": app, "db": conn, "path": path, "me": me, "others": ids, "guest": guest,
           "games": played, "entry": entry["id"]}
    conn.conn.close()


def figures(db) -> dict:
    """Every game's results, the standings, R and dan, and the day's report, with the
    erased member's name left out (the only thing an erasure may change there)."""
    out = {}
    for table in ("game_seats", "stats_lines", "stats_days", "stats_months", "rating_lines",
                  "ratings", "games"):
        out[table] = db.execute(f"SELECT * FROM {table} ORDER BY 1, 2, 3").fetchall()
    # the log without the players' names of its start entries (the one rewrite an erasure
    # makes there: test_member_page_erase_renames_only_their_seat_in_the_logs_start_entries)
    out["hand_events"] = [
        (r[0], r[1], r[2], r[3], r[5], r[6], r[8], r[9], r[10]) for r in db.execute(
            "SELECT id, game_id, seq, kind, event, target_seq, idempotency_key, "
            "request_hash, actor, reason, created_at FROM hand_events ORDER BY id")]
    out["hand_events_played"] = [
        {k: v for k, v in json.loads(e).items() if k != "players"} for (e,) in db.execute(
            "SELECT event FROM hand_events ORDER BY id")]
    rep = daily_report.report(db, DAY)
    for acct in rep["accounts"]:
        acct.pop("name"), acct.pop("member_no")
    rep["accounts"].sort(key=lambda a: a["player_id"])      # the sheet is in name order
    out["report"] = json.dumps(rep, default=str, sort_keys=True)
    for family in stats_store.families_played(db):
        rows = stats_store.leaderboard(db, family, DAY, DAY)
        out[f"board:{family}"] = [{k: v for k, v in r.items() if k != "name"} for r in rows]
        out[f"r:{family}"] = rating_store.current(db, family, [r["player_id"] for r in rows])
    return out


def text_cells(db) -> dict[str, list[str]]:
    """Every text value of every table of the club file, by ``table.column``."""
    found: dict[str, list[str]] = {}
    tables = [r[0] for r in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
    for table in tables:
        cols = [r[1] for r in db.execute(f"PRAGMA table_info({table})")]
        for col in cols:
            for (value,) in db.execute(f'SELECT "{col}" FROM "{table}"'):
                if isinstance(value, str):
                    found.setdefault(f"{table}.{col}", []).append(value)
    return found


def holding(db, *words: str) -> dict[str, list[str]]:
    return {where: [v for v in values if any(w in v for w in words)]
            for where, values in text_cells(db).items()
            if any(w in v for v in values for w in words)}


# ----------------------------------------------------------------------------- export
def test_member_page_export_holds_their_games_hands_money_and_no_secret_hash(club):
    db, me = club["db"], club["me"]
    data = member_data.export(db, me)
    text = json.dumps(data, ensure_ascii=False)           # JSON-serialisable as it is
    assert data["player"]["name"] == NAME and data["player"]["member_no"] == MEMBER_NO
    assert [g["game_id"] for g in data["games"]] == club["games"][:2]
    first, second = data["games"]
    assert first["seat"] == 0 and [h["roles"] for h in first["hands"]] == [["won"]]
    assert second["seat"] == 2 and [h["roles"] for h in second["hands"]] == [["dealt_in"]]
    assert first["started_at"] == "2026-04-01T13:00:00+09:00"      # the club's zone
    assert "+00:00" not in text and text.count("+09:00") > 20       # on every time
    assert {line["game_id"] for line in data["stats_lines"]} == set(club["games"][:2])
    assert data["accounts"] and data["accounts"][0]["day"] == DAY
    assert data["accounts"][0]["games"] == 2
    assert {r["family"] for r in data["ratings"]}
    assert data["profile"]["email"] == EMAIL and data["profile"]["line_user_id"] == LINE_ID
    assert data["profile"]["has_link"] is True and data["profile"]["has_pin"] is True
    assert data["profile"]["optin_seat_ready"] == 1
    assert [w["id"] for w in data["waiting"]] == [club["entry"]]
    assert {a["action"] for a in data["audit"]} == {"player.create", "waiting.add",
                                                    "seating.ready"}
    assert [m["kind"] for m in data["outbox"]] == ["seat_ready", "report_card"]
    assert set(data["withheld"]) == {"link_hash", "pin_hash"}
    assert LINK_HASH not in text and PIN_HASH not in text and "scrypt:" not in text
    assert "link_hash" not in data["profile"] and "pin_hash" not in data["profile"]


def test_member_page_export_of_an_unknown_player_is_refused_in_words(club):
    with pytest.raises(NotFound) as e:
        member_data.export(club["db"], 999)
    assert "999" in e.value.message


# ----------------------------------------------------------------------------- erase
def test_member_page_erase_keeps_every_result_standing_and_the_daily_report(club):
    db, me = club["db"], club["me"]
    before = figures(db)
    out = member_data.erase(db, me, "staff:kenji", "本人の退会の申し出")
    after = figures(db)
    for key in before:
        assert after[key] == before[key], key
    player = roster.get_player(db, me)
    assert player["name"] == "退会者 #%d" % me == out["player"]["name"]
    assert player["member_no"] is None and player["active"] == 0
    assert db.execute("SELECT COUNT(*) FROM member_profiles WHERE player_id = ?",
                      [me]).fetchone()[0] == 0
    assert db.execute("SELECT status FROM waiting WHERE id = ?",
                      [club["entry"]]).fetchone()[0] == "left"
    # word to them: the queued message dropped, the sent one kept without its address
    box = {r[0]: r[1:] for r in db.execute("SELECT kind, state, address FROM outbox")}
    assert box == {"report_card": ("sent", ""), "call": ("queued", "desk@example.jp")}
    assert out["outbox_dropped"] == 1 and out["pin_tries_deleted"] == 1
    # the erased member's account of the day is still there, under the neutral name
    accts = {a["player_id"]: a for a in daily_report.accounts(db, DAY)}
    assert accts[me]["name"] == player["name"] and accts[me]["games"] == 2


def test_member_page_erase_leaves_their_name_email_and_line_id_in_no_other_column(club):
    db, me = club["db"], club["me"]
    assert "audit_log.details" in holding(db, NAME)     # the search finds what is there
    member_data.erase(db, me, "staff:kenji", "本人の退会の申し出")
    assert holding(db, NAME, MEMBER_NO, EMAIL, LINE_ID, LINK_HASH, PIN_HASH) == {}


def test_member_page_erase_renames_only_their_seat_in_the_logs_start_entries(club):
    """The log's one sanctioned rewrite: the start entries of the member's two games
    name the neutral name at their seat; every other entry, the other players' names and
    the log's immutability are as they were."""
    import sqlite3

    db, me = club["db"], club["me"]
    before = db.execute("SELECT id, kind, event FROM hand_events ORDER BY id").fetchall()
    out = member_data.erase(db, me, "staff:kenji", "本人の退会の申し出")
    after = db.execute("SELECT id, kind, event FROM hand_events ORDER BY id").fetchall()
    assert out["log_start_entries_renamed"] == 2
    changed = [(b, a) for b, a in zip(before, after, strict=True) if b != a]
    assert len(changed) == 2 and all(b[1] == "start" for b, _a in changed)
    for b, a in changed:
        old, new = json.loads(b[2]), json.loads(a[2])
        assert [n for n in old["players"] if n != NAME] == \
            [n for n in new["players"] if n != member_data.former_name(me)]
        assert NAME in old["players"] and member_data.former_name(me) in new["players"]
        assert {k: v for k, v in old.items() if k != "players"} == \
            {k: v for k, v in new.items() if k != "players"}
    with pytest.raises(sqlite3.DatabaseError, match="immutable"):
        db.execute("UPDATE hand_events SET reason = 'x' WHERE id = ?", [after[0][0]])


def test_member_page_erase_is_audited_naming_the_staff_member_and_the_reason(club):
    db, me = club["db"], club["me"]
    member_data.erase(db, me, "staff:kenji", "本人の退会の申し出")
    row = db.execute("SELECT actor, reason, details FROM audit_log WHERE action = ? AND "
                     "target = ?", [member_data.ERASE_ACTION, f"player:{me}"]).fetchall()
    assert len(row) == 1
    actor, reason, details = row[0]
    assert actor == "staff:kenji" and reason == "本人の退会の申し出"
    assert json.loads(details)["profile_deleted"] is True
    # the earlier entries keep what was done, with the neutral name in place of theirs
    seat = db.execute("SELECT reason, details FROM audit_log WHERE action = 'seating.ready'"
                      ).fetchone()
    assert json.loads(seat[1])["names"] == [f"退会者 #{me}", *OTHERS[:3]]
    assert seat[0] == f"退会者 #{me}さんの希望で卓4"
    with pytest.raises(Conflict) as e:                  # once is enough
        member_data.erase(db, me, "staff:kenji", "もう一度")
    assert e.value.code == "already_erased"


def test_member_page_erase_refused_in_words_changes_nothing(club):
    db, me = club["db"], club["me"]
    gid = games.start_game(db, "t4", [me, *club["others"][:3]],
                           idempotency_key=uuid.uuid4().hex)["game"]["id"]
    assert gid
    snapshot = text_cells(db)
    with pytest.raises(Conflict) as e:
        member_data.erase(db, me, "staff:kenji", "本人の退会の申し出")
    assert e.value.code == "player_seated" and "卓4" in e.value.message
    with pytest.raises(NotFound):
        member_data.erase(db, 999, "staff:kenji", "本人の退会の申し出")
    with pytest.raises(UserError) as e:
        member_data.erase(db, club["others"][0], "staff:kenji", " ")
    assert e.value.code == "missing_reason"
    assert text_cells(db) == snapshot
    assert roster.get_player(db, me)["name"] == NAME


# ----------------------------------------------------------------------------- staff pages
def test_member_page_data_staff_download_and_erase_by_a_manager_with_confirmation(club):
    app, me = club["app"], club["me"]
    staff = staff_client(app, "mika", "mahjong-club")
    page = staff.get(f"/staff/players/{me}/data")
    assert page.status_code == 200 and NAME in page.text and "会員データ" in page.text
    assert "マネージャー" in page.text                     # a staff member may not erase
    r = staff.get(f"/staff/players/{me}/data/export")
    assert r.status_code == 200
    assert r.headers["Content-Disposition"] == f'attachment; filename="member-{me}-data.json"'
    assert json.loads(r.data)["player"]["name"] == NAME
    token = staff.get("/auth/csrf").get_json()["csrf_token"]
    hdr = {"X-CSRF-Token": token, "Accept": "application/json"}
    r = staff.post(f"/staff/players/{me}/erase", headers=hdr,
                   json={"reason": "本人の申し出", "confirm": str(me)})
    assert r.status_code == 403 and r.get_json()["error"]["code"] == "role_required"

    manager = staff_client(app, "kenji", "manager-pass-1")
    token = manager.get("/auth/csrf").get_json()["csrf_token"]
    hdr = {"X-CSRF-Token": token, "Accept": "application/json"}
    r = manager.post(f"/staff/players/{me}/erase", headers=hdr,
                     json={"reason": "本人の申し出", "confirm": "12345"})
    assert r.status_code == 400 and r.get_json()["error"]["code"] == "confirm_required"
    assert str(me) in r.get_json()["error"]["message"]
    r = manager.post(f"/staff/players/{me}/erase", headers=hdr, json={"confirm": str(me)})
    assert r.status_code == 400 and r.get_json()["error"]["code"] == "missing_reason"
    assert roster.get_player(club["db"], me)["name"] == NAME    # refused: nothing changed
    r = manager.post(f"/staff/players/{me}/erase", headers=hdr,
                     json={"reason": "本人の申し出", "confirm": str(me)})
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["erased"]["player"]["name"] == f"退会者 #{me}"
    actor = club["db"].execute("SELECT actor FROM audit_log WHERE action = ?",
                               [member_data.ERASE_ACTION]).fetchone()[0]
    assert actor == "staff:kenji"
    page = manager.get(f"/staff/players/{me}/data")
    assert NAME not in page.text and "削除済み" in page.text
    audit_page = manager.get("/staff/audit").text            # the audit log in words
    assert f"会員 #{me} の個人データを削除（退会者 #{me}）" in audit_page
    assert "会員データの削除" in audit_page
    r = manager.get("/staff/players/999/data", headers={"Accept": "application/json"})
    assert r.status_code == 404
    assert f'href="/staff/players/{me}/data"' in manager.get("/staff/players").text


def test_member_page_link_of_an_erased_member_opens_nothing(club):
    db, me = club["db"], club["me"]
    token, _ = members.issue_link(db, me)
    page = club["app"].test_client()
    assert page.get(f"/m/{token}").status_code == 200
    member_data.erase(db, me, "staff:kenji", "本人の退会の申し出")
    r = page.get(f"/m/{token}")
    assert r.status_code == 404 and NAME not in r.text


def test_member_page_erased_name_is_not_on_the_staff_game_page(club):
    """The game page's history starts with the game's players as its seats name them."""
    db, me = club["db"], club["me"]
    manager = staff_client(club["app"], "kenji", "manager-pass-1")
    gid = club["games"][0]
    assert f"開始: {NAME}、佐藤" in manager.get(f"/staff/games/{gid}").text
    member_data.erase(db, me, "staff:kenji", "本人の退会の申し出")
    page = manager.get(f"/staff/games/{gid}").text
    first = page.split('data-testid="entry-0"', 1)[1].split("</tr>", 1)[0]
    assert f"開始: 退会者 #{me}、佐藤" in first and NAME not in first


def test_member_page_erased_name_is_not_in_the_game_as_the_api_answers_it(club):
    """A game's answer (its entries, its replay) names the players as its seats do now;
    the stored log itself (``/api/games/<id>/events``) stays as it was written."""
    db, me = club["db"], club["me"]
    gid = club["games"][0]
    api = club["app"].test_client()
    before = api.get(f"/api/games/{gid}").get_json()
    assert before["events"][0]["event"]["players"][0] == NAME
    member_data.erase(db, me, "staff:kenji", "本人の退会の申し出")
    after = api.get(f"/api/games/{gid}").get_json()
    assert NAME not in json.dumps(after, ensure_ascii=False)
    assert after["events"][0]["event"]["players"] == [f"退会者 #{me}", *OTHERS[:3]]
    assert after["replay"]["players"] == [f"退会者 #{me}", *OTHERS[:3]]
    # the results are the same, entry for entry
    assert after["replay"]["final"] == before["replay"]["final"]
    assert [e["event"] for e in after["events"][1:]] == [e["event"] for e in before["events"][1:]]
    manager = staff_client(club["app"], "kenji", "manager-pass-1")
    assert NAME not in manager.get(f"/staff/games/{gid}").text     # the form's data too
