"""The staff console: floor view, table commands through the daemon's
store, players, club tables, rule sets, tablets, staff accounts, game corrections, audit.

A stand-in for the daemon works the real ``tablectl.store`` journal on the same
SQLite file (claim a queued command, answer it) the way ``tablectl serve`` does.
"""

from __future__ import annotations

import re
import threading

import pytest

from club import club_tables, games, roster
from club.accounts import create_staff
from club.audit import audit_entries
from club.db import connect
from tablectl import store
from tests.support.tablectl import LiveHeartbeat
from web import create_app
from web.db import get_db


@pytest.fixture()
def app(tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "club.sqlite"), "SECRET_KEY": "test-key",
                      "LOGIN_GLOBAL_PER_SECOND": 1000.0, "LOGIN_GLOBAL_BURST": 1000,
                      "TESTING": True, "TABLE_COMMAND_WAIT": 10.0})
    with app.app_context():
        db = get_db()
        create_staff(db, "mika", "mahjong-club")
        club_tables.save_table(db, "t1", "卓1", "nekohouse-4a")
        club_tables.save_table(db, "t2", "卓2", "nekohouse-3a")
        club_tables.save_table(db, "t9", "卓9 (not wired)", "nekohouse-4a")
    j = store.Journal(app.config["DATABASE"])
    j.register_tables([{"id": "t1", "name": "卓1", "url": "sim://"},
                       {"id": "t2", "name": "卓2", "url": "sim://"}])
    j.update_table("t1", connected=1, model="JP-EX", mode=1, cycle_state="idle", lid="closed",
                   errors=[], points=[25000, 25000, 25000, 25000])
    j.update_table("t2", connected=0, mode=4, cycle_state="idle", errors=["lid_open"],
                   last_error="the lid is open")
    j.add_event("t2", "error", "lid_open", "The lid is open. / フタが開いています。")
    j.close()
    with LiveHeartbeat(app.config["DATABASE"], pid=4242):
        yield app


@pytest.fixture()
def staff(app):
    c = app.test_client()
    token = c.get("/auth/csrf").get_json()["csrf_token"]
    r = c.post("/auth/login", data={"name": "mika", "password": "mahjong-club",
                                    "csrf_token": token})
    assert r.status_code == 302
    return c


def csrf(client) -> str:
    return client.get("/auth/csrf").get_json()["csrf_token"]


def post(client, path, **fields):
    return client.post(path, data={**fields, "csrf_token": csrf(client)})


def post_json(client, path, body):
    """A script's JSON request; it reads English (Accept-Language)."""
    return client.post(path, json=body, headers={"X-CSRF-Token": csrf(client),
                                                 "Accept": "application/json",
                                                 "Accept-Language": "en"})


class FakeDaemon:
    """Answers queued commands for one table like the daemon does (status + result)."""

    def __init__(self, db_path: str, table_id: str, outcome):
        self.db_path, self.table_id, self.outcome = db_path, table_id, outcome
        self.handled: list[dict] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        journal = store.Journal(self.db_path)  # one connection per thread, like the daemon
        try:
            while not self.stop.is_set():
                cmd = journal.claim_next(self.table_id)
                if cmd is None:
                    self.stop.wait(0.01)
                    continue
                self.handled.append(cmd)
                self.outcome(journal, cmd)
        finally:
            journal.close()

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join(timeout=10)


def accept_mode(journal, cmd):
    if cmd["command"] == "mode":
        journal.update_table(cmd["table_id"], mode=cmd["args"]["mode"])
    journal.finish(cmd["id"], "done", dict(cmd["args"] or {}))


def refuse_mid_cycle(journal, cmd):
    journal.finish(cmd["id"], "failed", None, "busy",
                   "the table is in the middle of a cycle; wait until it ends / "
                   "洗牌中のためモードを変更できません")


# ----------------------------------------------------------------------------- floor
def test_floor_json_shows_daemon_state_and_club_tables(staff):
    r = staff.get("/staff/floor.json")
    assert r.status_code == 200
    data = r.get_json()
    assert data["daemon"]["running"] is True
    tables = {t["table_id"]: t for t in data["tables"]}
    assert sorted(tables) == ["t1", "t2", "t9"]
    assert tables["t1"]["connected"] is True and tables["t1"]["mode"] == 1
    assert tables["t1"]["points"] == [25000] * 4 and tables["t1"]["rule_set"] == "nekohouse-4a"
    assert tables["t2"]["connected"] is False and tables["t2"]["errors"] == ["lid_open"]
    # The code stays for scripts; people get the protocol's words (Japanese first).
    assert "フタ" in tables["t2"]["error_words"][0] and tables["t2"]["cycle_label"] == "待機中"
    en = {t["table_id"]: t for t in staff.get("/staff/floor.json?lang=en").get_json()["tables"]}
    assert "lid" in en["t2"]["error_words"][0].lower() and en["t2"]["cycle_label"] == "idle"
    # A club table the daemon does not know shows up as not connected, not missing.
    assert tables["t9"]["in_daemon"] is False and tables["t9"]["connected"] is False


def test_floor_page_renders_in_japanese_and_english(staff):
    page = staff.get("/staff/")
    assert page.status_code == 200
    assert "接続中" in page.text and "未接続" in page.text and "モード変更" in page.text
    assert 'data-live="/staff/floor.json"' in page.text
    assert "フタが開いています" in page.text  # the table's last event
    page = staff.get("/staff/?lang=en")
    assert "Connected" in page.text and "Change mode" in page.text


def test_floor_shows_a_live_game_from_its_replay(app, staff):
    pytest.importorskip("scoring.game", reason="the game engine is not built")
    with app.app_context():
        db = get_db()
        ids = [roster.add_player(db, n)["id"] for n in ("A", "B", "C", "D")]
        games.start_game(db, "t1", ids, idempotency_key="start-0001")
    t1 = next(t for t in staff.get("/staff/floor.json").get_json()["tables"]
              if t["table_id"] == "t1")
    assert t1["game"]["names"] == ["A", "B", "C", "D"]
    assert t1["game"]["round"].startswith("E") and sum(t1["game"]["scores"]) > 0


# ----------------------------------------------------------------------------- table commands
def test_mode_change_goes_through_the_daemon_and_is_audited(app, staff):
    with FakeDaemon(app.config["DATABASE"], "t1", accept_mode) as daemon:
        r = post_json(staff, "/staff/tables/t1/command",
                      {"command": "mode", "mode": "02", "idempotency_key": "k1"})
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    assert body["ok"] and body["command"]["status"] == "done"
    assert [c["args"] for c in daemon.handled] == [{"mode": 2}]
    t1 = store.get_table(app.config["DATABASE"], "t1")
    assert t1["mode"] == 2
    with app.app_context():
        entry = audit_entries(get_db(), target="table:t1")[0]
    assert entry["action"] == "table.mode" and entry["actor"] == "staff:mika"
    assert entry["details"]["args"] == {"mode": 2}


def test_mode_by_name_is_understood(app, staff):
    with FakeDaemon(app.config["DATABASE"], "t1", accept_mode) as daemon:
        r = post_json(staff, "/staff/tables/t1/command", {"command": "mode", "mode": "sanma"})
    assert r.status_code == 200 and daemon.handled[0]["args"] == {"mode": 4}


def test_table_refusal_is_shown_in_the_tables_words(app, staff):
    with FakeDaemon(app.config["DATABASE"], "t1", refuse_mid_cycle):
        r = post_json(staff, "/staff/tables/t1/command", {"command": "mode", "mode": 3})
        assert r.status_code == 409
        assert "middle of a cycle" in r.get_json()["error"]["message"]
        page = post(staff, "/staff/tables/t1/command", command="mode", mode="3",
                    idempotency_key="form-1")
    assert page.status_code == 302
    floor = staff.get("/staff/")
    assert "洗牌中のためモードを変更できません" in floor.text  # flashed on the floor page


def test_double_submit_sends_one_command(app, staff):
    with FakeDaemon(app.config["DATABASE"], "t1", accept_mode) as daemon:
        for _ in range(2):
            r = post(staff, "/staff/tables/t1/command", command="cycle", idempotency_key="dbl")
            assert r.status_code == 302
    assert len(daemon.handled) == 1
    assert len(store.list_commands(app.config["DATABASE"], "t1")) == 1


def test_command_left_queued_answers_202_in_progress(app):
    app.config["TABLE_COMMAND_WAIT"] = 0.0  # nobody answers; do not wait
    c = app.test_client()
    token = c.get("/auth/csrf").get_json()["csrf_token"]
    c.post("/auth/login", data={"name": "mika", "password": "mahjong-club", "csrf_token": token})
    r = post_json(c, "/staff/tables/t1/command", {"command": "check"})
    assert r.status_code == 202 and r.get_json()["command"]["status"] == "queued"
    assert "waiting to be sent" in r.get_json()["message"]    # queued: not taken yet


def test_bad_table_commands_are_refused_and_nothing_is_queued(app, staff):
    r = post_json(staff, "/staff/tables/t1/command?lang=en", {"command": "explode"})
    assert r.status_code == 400 and "choose one of" in r.get_json()["error"]["message"]
    r = post_json(staff, "/staff/tables/t1/command", {"command": "mode", "mode": "99"})
    assert r.status_code == 400 and "mode" in r.get_json()["error"]["message"]
    r = post_json(staff, "/staff/tables/t1/command", {"command": "mode", "mode": "nonsense"})
    assert r.status_code == 400
    r = post_json(staff, "/staff/tables/zz/command", {"command": "cycle"})
    assert r.status_code == 404 and "known tables" in r.get_json()["error"]["message"]
    assert store.list_commands(app.config["DATABASE"]) == []


# ----------------------------------------------------------------------------- players
def test_players_add_retire_restore(app, staff):
    r = post(staff, "/staff/players", name="佐藤", member_no="M001")
    assert r.status_code == 302
    r = post_json(staff, "/staff/players", {"name": "Guest G", "guest": True})
    assert r.status_code == 201 and r.get_json()["player"]["guest"] == 1
    page = staff.get("/staff/players")
    assert "佐藤" in page.text and "Guest G" in page.text
    pid = next(p["id"] for p in staff.get("/staff/players", headers={
        "Accept": "application/json"}).get_json()["players"] if p["name"] == "佐藤")
    assert post(staff, f"/staff/players/{pid}/active", active="0").status_code == 302
    with app.app_context():
        assert roster.get_player(get_db(), pid)["active"] == 0
        actions = [a["action"] for a in audit_entries(get_db(), target=f"player:{pid}")]
    assert actions == ["player.retire", "player.create"]


def test_player_form_errors_change_nothing(app, staff):
    r = post_json(staff, "/staff/players", {"name": "   "})
    assert r.status_code == 400 and "name" in r.get_json()["error"]["message"]
    post(staff, "/staff/players", name="A", member_no="M9")
    r = post_json(staff, "/staff/players", {"name": "B", "member_no": "M9"})
    assert r.status_code == 409
    with app.app_context():
        assert [p["name"] for p in roster.list_players(get_db(), guests=True)] == ["A"]


# ----------------------------------------------------------------------------- tables + rules
def test_club_table_rule_set_change_is_audited(app, staff):
    r = post(staff, "/staff/tables", id="t1", name="卓1", rule_set="mahjongbu")
    assert r.status_code == 302
    with app.app_context():
        assert club_tables.get_table(get_db(), "t1")["rule_set"] == "mahjongbu"
        assert audit_entries(get_db(), target="table:t1")[0]["actor"] == "staff:mika"
    r = post_json(staff, "/staff/tables", {"id": "t1", "name": "卓1", "rule_set": "nope"})
    assert r.status_code in (400, 404) and "nope" in r.get_json()["error"]["message"]


CLUB_TOML = '''extends = "nekohouse-4a"
title = "うちの店"
'''


def test_club_rule_set_upload_validated_and_editable(app, staff):
    r = post(staff, "/staff/rulesets", id="ourclub", toml=CLUB_TOML)
    assert r.status_code == 302 and r.headers["Location"].endswith("/staff/rulesets/ourclub")
    page = staff.get("/staff/rulesets/ourclub")
    assert page.status_code == 200 and "うちの店" in page.text and "extends" in page.text
    # A bad file is refused with the reason, the typed text is kept, and nothing changes.
    bad = CLUB_TOML + "[hand]\nno_such_switch = true\n"
    r = post(staff, "/staff/rulesets", id="ourclub", toml=bad)
    assert r.status_code in (400, 422)
    assert "hand.no_such_switch" in r.text and "ありません" in r.text  # in the page's language
    with app.app_context():
        assert club_tables.get_rule_set(get_db(), "ourclub")["toml"] == CLUB_TOML
    r = post_json(staff, "/staff/rulesets", {"id": "broken", "toml": "extends = "})
    assert r.status_code in (400, 422) and "TOML" in r.get_json()["error"]["message"]
    r = post_json(staff, "/staff/rulesets", {"id": "netmahjong", "toml": CLUB_TOML})
    assert r.status_code == 409
    assert staff.get("/staff/rulesets/netmahjong").status_code == 200


# ----------------------------------------------------------------------------- tablets + accounts
def test_tablet_issue_shows_qr_and_revoke_is_audited(app, staff):
    r = post(staff, "/staff/tablets", table_id="t1", label="窓側")
    assert r.status_code == 201
    assert re.search(r"<svg[^>]*>", r.text) and "/auth/pair?code=" in r.text
    r = post_json(staff, "/staff/tablets", {"table_id": "t2"})
    body = r.get_json()
    assert r.status_code == 201 and "/auth/pair?code=" in body["pair_url"]
    r = post_json(staff, "/staff/tablets", {"table_id": "nope"})
    assert r.status_code == 404
    listed = staff.get("/staff/tablets", headers={"Accept": "application/json"}).get_json()
    assert [t["status"] for t in listed["tablets"]] == ["waiting", "waiting"]
    tid = body["tablet_id"]
    assert post(staff, f"/staff/tablets/{tid}/revoke").status_code == 302
    r = post_json(staff, f"/staff/tablets/{tid}/revoke", {})
    assert r.status_code == 409 and "already unpaired" in r.get_json()["error"]["message"]
    with app.app_context():
        actions = [a["action"] for a in audit_entries(get_db(), target="table:t2")]
    assert actions[:2] == ["tablet.revoke", "tablet.issue"]


def test_public_url_is_used_for_pairing_links(app, staff):
    app.config["PUBLIC_URL"] = "http://192.168.1.20:8000"
    body = post_json(staff, "/staff/tablets", {"table_id": "t1"}).get_json()
    assert body["pair_url"].startswith("http://192.168.1.20:8000/auth/pair?code=")


def sign_in(app, name, password):
    c = app.test_client()
    token = c.get("/auth/csrf").get_json()["csrf_token"]
    r = c.post("/auth/login", data={"name": name, "password": password, "csrf_token": token})
    return c, r


def test_staff_accounts_add_and_reset(app, staff):
    r = post(staff, "/staff/accounts", name="ken", password="ron-ron-ron")
    assert r.status_code == 302
    r = post_json(staff, "/staff/accounts", {"name": "KEN", "password": "another-one"})
    assert r.status_code == 409  # the same sign-in name
    r = post_json(staff, "/staff/accounts", {"name": "ken2", "password": "abcdefghi"})
    assert r.status_code == 400 and "10 to 200 characters" in r.get_json()["error"]["message"]
    r = post(staff, "/staff/accounts", name="ken", password="new-pass-10", reset="1")
    assert r.status_code == 302
    _, r = sign_in(app, "ken", "new-pass-10")
    assert r.status_code == 302
    listed = staff.get("/staff/accounts", headers={"Accept": "application/json"}).get_json()
    assert all("password_hash" not in a for a in listed["staff"])
    assert {a["name"]: a["role"] for a in listed["staff"]} == {"mika": "owner", "ken": "staff"}


def test_roles_decide_who_may_reset_whom_and_the_log_says_who_did_it(app, staff):
    post(staff, "/staff/accounts", name="ken", password="ron-ron-ron")
    post(staff, "/staff/accounts", name="aya", password="tsumo-tsumo", role="manager")
    ken, _ = sign_in(app, "ken", "ron-ron-ron")
    # staff may not reset another's password, nor re-enable, nor create a manager
    r = post_json(ken, "/staff/accounts", {"name": "aya", "password": "stolen-pass-1",
                                           "reset": True})
    assert r.status_code == 403 and r.get_json()["error"]["code"] == "role_required"
    r = post_json(ken, "/staff/accounts", {"name": "eve", "password": "abcdefghijk",
                                           "role": "manager"})
    assert r.status_code == 403
    # but may change their own
    assert post_json(ken, "/staff/accounts", {"name": "ken", "password": "my-own-new-1",
                                              "current_password": "ron-ron-ron",
                                              "reset": True}).status_code == 200
    # a manager may reset a staff member's password, not the owner's
    aya, _ = sign_in(app, "aya", "tsumo-tsumo")
    r = post_json(aya, "/staff/accounts", {"name": "mika", "password": "taken-over-1",
                                           "reset": True})
    assert r.status_code == 403
    assert post_json(aya, "/staff/accounts", {"name": "ken", "password": "reset-by-aya",
                                              "reset": True}).status_code == 200
    with app.app_context():
        entry = audit_entries(get_db(), target="staff:ken")[0]
    assert (entry["actor"], entry["action"]) == ("staff:aya", "staff.password")
    # a reset does not re-enable a disabled account
    post(staff, "/staff/accounts/ken/active", active="0")
    post_json(staff, "/staff/accounts", {"name": "ken", "password": "while-disabled",
                                         "reset": True})
    _, r = sign_in(app, "ken", "while-disabled")
    assert r.status_code == 401
    # roles change only within one's own rank; the last owner stays an owner
    assert post_json(aya, "/staff/accounts/aya/role", {"role": "owner"}).status_code == 403
    assert post_json(staff, "/staff/accounts/mika/role", {"role": "staff"}).status_code == 409
    assert post_json(staff, "/staff/accounts/aya/role", {"role": "owner"}).status_code == 200


# ----------------------------------------------------------------------------- games + audit
def _finished_game(app, *more: dict) -> int:
    """A short game recorded through the games service (needs the engine): a ron, then
    ``more`` events, then the end."""
    pytest.importorskip("scoring.game", reason="the game engine is not built")
    with app.app_context():
        db = get_db()
        ids = [roster.add_player(db, n)["id"] for n in ("A", "B", "C", "D")]
        view = games.start_game(db, "t1", ids, idempotency_key="g-start-0001")
        gid = view["game"]["id"]
        games.record_event(db, gid, {"event": "win", "winners": [{"seat": 1, "han": 3, "fu": 30}],
                                     "from": 0}, expected_seq=1, idempotency_key="hand-0001")
        for seq, ev in enumerate(more, start=2):
            games.record_event(db, gid, ev, expected_seq=seq, idempotency_key=f"hand-{seq:04d}")
        games.end_game(db, gid, expected_seq=2 + len(more), idempotency_key="hand-end-01")
        return gid


def test_correct_a_hand_needs_a_reason_and_is_audited(app, staff):
    gid = _finished_game(app)
    new = '{"event": "win", "winners": [{"seat": 2, "han": 3, "fu": 30}], "from": 0}'
    r = post_json(staff, f"/staff/games/{gid}/hands/1/correct", {"event": new, "reason": ""})
    assert r.status_code == 400 and "reason" in r.get_json()["error"]["message"]
    r = post_json(staff, f"/staff/games/{gid}/hands/1/correct", {"event": "{oops", "reason": "x"*5})
    assert r.status_code == 400 and "not valid JSON" in r.get_json()["error"]["message"]
    r = post(staff, f"/staff/games/{gid}/hands/1/correct", event=new,
             reason="winner was seat 2, not seat 1")
    assert r.status_code == 302
    with app.app_context():
        entry = audit_entries(get_db(), target=f"game:{gid}")[0]
    assert entry["actor"] == "staff:mika" and entry["action"] == "hand.correct"
    assert entry["reason"] == "winner was seat 2, not seat 1" and entry["at"]
    page = staff.get(f"/staff/games/{gid}")
    assert page.status_code == 200 and "winner was seat 2, not seat 1" in page.text


def test_void_a_game_with_reason_shows_in_audit_log(app, staff):
    gid = _finished_game(app)
    r = post(staff, f"/staff/games/{gid}/void", reason="")
    assert r.status_code == 400
    r = post(staff, f"/staff/games/{gid}/void", reason="played with the wrong rule set")
    assert r.status_code == 302
    log = staff.get("/staff/audit").text
    assert "game.void" in log and "played with the wrong rule set" in log and "staff:mika" in log
    listed = staff.get("/staff/games?status=void", headers={"Accept": "application/json"})
    assert [g["id"] for g in listed.get_json()["games"]] == [gid]


def test_void_and_audit_without_engine(app, staff):
    """Voiding needs no replay; the audit row names who, when and why."""
    db = connect(app.config["DATABASE"])
    try:
        db.execute("INSERT INTO players (name, created_at) VALUES ('A', 'now')")
        db.execute("INSERT INTO games (table_id, rule_set, rules, players, start_key, started_at)"
                   " VALUES ('t1', 'nekohouse-4a', '{}', 4, 'k', 'now')")
        db.conn.commit()
    finally:
        db.conn.close()
    r = post_json(staff, "/staff/games/1/void", {"reason": "test game, not real"})
    assert r.status_code == 200 and r.get_json()["game"]["status"] == "void"
    r = post_json(staff, "/staff/games/1/void", {"reason": "again"})
    assert r.status_code == 409
    audit = staff.get("/staff/audit?target=game:1", headers={"Accept": "application/json"})
    entries = audit.get_json()["audit"]
    assert len(entries) == 1
    assert entries[0]["actor"] == "staff:mika" and entries[0]["reason"] == "test game, not real"
    assert re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d", entries[0]["at"])
    page = staff.get("/staff/audit?lang=en")
    assert "test game, not real" in page.text and "Audit log" in page.text


def test_every_staff_page_needs_staff(app):
    anon = app.test_client()
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/staff"):
            continue
        path = re.sub(r"<int:\w+>", "1", re.sub(r"<\w+>", "t1", rule.rule))
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            r = anon.open(path, method=method, headers={"Accept": "application/json"})
            # CSRF (400) stops anonymous POSTs even earlier; either way nothing happens.
            assert r.status_code in (400, 401), (method, path, r.status_code)


def test_openapi_describes_every_staff_and_sign_in_endpoint(app):
    doc = app.test_client().get("/api/openapi.json").get_json()
    pages_only = {"/staff/"}  # the floor page; its data is /staff/floor.json
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith(("/staff", "/auth")) or rule.rule in pages_only:
            continue
        path = re.sub(r"<(?:int:)?(\w+)>", r"{\1}", rule.rule)
        assert path in doc["paths"], path
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            if method == "GET" and path in ("/auth/pair", "/auth/login"):
                continue  # HTML pages (the QR target and the sign-in form)
            assert method.lower() in doc["paths"][path], (method, path)
    assert "csrfHeader" in doc["components"]["securitySchemes"]


def test_club_rule_set_can_be_uploaded_as_a_file(app, staff):
    import io
    r = staff.post("/staff/rulesets", data={
        "id": "fromfile", "toml": "", "csrf_token": csrf(staff),
        "file": (io.BytesIO(CLUB_TOML.encode("utf-8")), "club.toml")},
        content_type="multipart/form-data")
    assert r.status_code == 302
    with app.app_context():
        assert club_tables.get_rule_set(get_db(), "fromfile")["toml"] == CLUB_TOML
    r = staff.post("/staff/rulesets", data={
        "id": "latin1", "csrf_token": csrf(staff),
        "file": (io.BytesIO("title = 'caf\xe9'".encode("latin-1")), "club.toml")},
        content_type="multipart/form-data", headers={"Accept": "application/json"})
    assert r.status_code == 400 and "UTF-8" in r.get_json()["error"]["message"]


def test_remove_a_hand_with_reason_replays_without_it(app, staff):
    gid = _finished_game(app, {"event": "draw", "tenpai": [0]})  # a hand stays to settle
    r = post_json(staff, f"/staff/games/{gid}/hands/1/remove", {"reason": ""})
    assert r.status_code == 400
    r = post_json(staff, f"/staff/games/{gid}/hands/9/remove", {"reason": "no such hand"})
    assert r.status_code == 404
    r = post_json(staff, f"/staff/games/{gid}/hands/1/remove",
                  {"reason": "recorded on the wrong table"})
    assert r.status_code == 200
    view = r.get_json()["game"]
    assert [e["event"]["event"] for e in view["events"]] == ["start", "draw", "end"]
    with app.app_context():
        entry = audit_entries(get_db(), target=f"game:{gid}")[0]
    assert (entry["action"], entry["actor"], entry["reason"]) == (
        "hand.remove", "staff:mika", "recorded on the wrong table")
    page = staff.get("/staff/games")
    assert page.status_code == 200 and f"/staff/games/{gid}" in page.text


def test_tables_page_lists_club_tables_with_rule_sets(staff):
    page = staff.get("/staff/tables")
    assert page.status_code == 200
    assert "卓9 (not wired)" in page.text and "nekohouse-3a" in page.text
    assert 'option value="mcr"' in page.text  # every rule set can be chosen
    data = staff.get("/staff/tables", headers={"Accept": "application/json"}).get_json()
    assert [t["id"] for t in data["tables"]] == ["t1", "t2", "t9"]


def test_disabling_a_staff_account_signs_it_out_at_once(app, staff):
    post(staff, "/staff/accounts", name="ken", password="ron-ron-ron")
    ken = app.test_client()
    token = ken.get("/auth/csrf").get_json()["csrf_token"]
    ken.post("/auth/login", data={"name": "ken", "password": "ron-ron-ron", "csrf_token": token})
    assert ken.get("/staff/floor.json").status_code == 200
    assert post(staff, "/staff/accounts/ken/active", active="0").status_code == 302
    assert ken.get("/staff/floor.json").status_code == 401
    token = ken.get("/auth/csrf").get_json()["csrf_token"]
    r = ken.post("/auth/login", data={"name": "ken", "password": "ron-ron-ron",
                                      "csrf_token": token})
    assert r.status_code == 401
    # Nobody can lock the club out: not yourself, not the last active account.
    r = post_json(staff, "/staff/accounts/mika/active", {"active": False})
    assert r.status_code == 409 and "own account" in r.get_json()["error"]["message"]
    r = post_json(staff, "/staff/accounts/nobody/active", {"active": False})
    assert r.status_code == 404
    assert post(staff, "/staff/accounts/ken/active", active="1").status_code == 302
    # re-enabling does not revive the sessions that were open before
    assert ken.get("/staff/floor.json").status_code == 401
    with app.app_context():
        actions = [a["action"] for a in audit_entries(get_db(), target="staff:ken")]
    assert actions == ["staff.enable", "staff.disable", "staff.create"]


def test_every_text_of_the_staff_pages_has_both_languages():
    from pathlib import Path

    import lexicon

    root = Path(__file__).resolve().parents[2] / "web" / "templates"
    keys = set()
    for folder in ("staff", "auth"):
        for page in (root / folder).glob("*.html"):
            text = page.read_text(encoding="utf-8")
            keys |= set(re.findall(r"""(?<![\w.])t\('([a-z_.]+)'\)""", text))
    # Keys built in the templates from a value.
    keys |= {f"staff.cmd.{c}" for c in ("cycle", "check", "points")}
    keys |= {f"staff.status.{s}" for s in ("all", "live", "finished", "void")}
    keys |= {f"staff.tablet.{s}" for s in ("waiting", "paired", "revoked")}
    missing = sorted(k for k in keys if not lexicon.has(k))
    assert missing == []
    assert all(lexicon.entries()[k][0] and lexicon.entries()[k][1] for k in keys)


def test_staff_console_links_to_the_leaderboard(staff):
    page = staff.get("/staff/").get_data(as_text=True)
    assert 'href="/leaderboard/"' in page and "成績表" in page
