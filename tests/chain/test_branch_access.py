# ruff: noqa: F811  (pytest fixtures imported by name)
"""Per-branch access at the head office, against a real PostgreSQL: each branch logs in
as its own role and row-level security holds it to its own rows, whatever it sends, by
the sync (``--resend``, a forged batch) or by hand-written SQL; a resend needs the
operator's allowance, used once and audited; branch ids are matched whole."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from chain import admin, branches, pg_schema, sync
from tests.chain.test_sync import ROOT, _assert_equals_box, _copy, _snapshot, box, club_file  # noqa: F401 (fixtures)


def _login(url: str, role: str, password: str) -> str:
    from psycopg.conninfo import make_conninfo

    return make_conninfo(url, user=role, password=password)


@pytest.fixture
def two_branches(headoffice_url: str, box: Path, tmp_path: Path) -> dict:
    """Branches east and west, each with its own login, each synced once."""
    out: dict = {"url": headoffice_url}
    with pg_schema.connect(headoffice_url) as pg:
        for b, name in (("east", "東口店"), ("west", "西口店")):
            out[b] = _login(headoffice_url, *branches.add_branch(pg, b, name, "owner"))
    west_box = _copy(box, tmp_path / "west.sqlite")
    sync.run(str(box), out["east"], "east")
    sync.run(str(west_box), out["west"], "west")
    out["east_box"], out["west_box"] = box, west_box
    return out


def _admin(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "headoffice", "admin", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def test_branch_access_each_login_syncs_its_own_branch(two_branches: dict) -> None:
    _assert_equals_box(two_branches["url"], two_branches["east_box"], "east")
    _assert_equals_box(two_branches["url"], two_branches["west_box"], "west")
    with pg_schema.connect(two_branches["east"]) as pg:
        assert branches.role_branch(pg) == "east"
        # the east login sees only its own rows, in every table
        for t in branches.BRANCH_TABLES:
            seen = {r[0] for r in pg.execute(f"SELECT DISTINCT branch FROM chain.{t}")}
            assert seen <= {"east"}, t
    with pg_schema.connect(two_branches["url"]) as pg:
        assert branches.role_branch(pg) is None
        names = dict(pg.execute("SELECT branch, name FROM chain.branches"))
        assert names == {"east": "東口店", "west": "西口店"}


@pytest.mark.parametrize("statement", [
    "UPDATE chain.players SET name = 'forged' WHERE branch = 'west'",
    "DELETE FROM chain.hand_events WHERE branch = 'west'",
    "DELETE FROM chain.game_lines WHERE branch = 'west'",
    "UPDATE chain.sync_marks SET mark = 0 WHERE branch = 'west'",
    "UPDATE chain.games SET status = 'void' WHERE branch = 'west'",
    "DELETE FROM chain.member_links",
])
def test_branch_access_sql_cannot_touch_another_branch(two_branches: dict,
                                                        statement: str) -> None:
    before = _snapshot(two_branches["url"], "west")
    with pg_schema.connect(two_branches["east"]) as pg:
        pg.execute(statement)  # runs, but the other branch's rows are not there to touch
    assert _snapshot(two_branches["url"], "west") == before


@pytest.mark.parametrize("statement", [
    "INSERT INTO chain.players (branch, id, name, created_at) VALUES ('west', 999, 'x', now())",
    "UPDATE chain.players SET branch = 'west' WHERE branch = 'east' AND id = 1",
    "INSERT INTO chain.sync_marks (branch, tbl, mark) VALUES ('west', 'x', 1)",
    "INSERT INTO chain.branches (branch) VALUES ('north')",
    "UPDATE chain.branches SET name = 'renamed' WHERE branch = 'east'",
    "INSERT INTO chain.branch_roles (role, branch) VALUES (current_user, 'west')",
    "UPDATE chain.branch_roles SET branch = 'west'",
    "INSERT INTO chain.resend_allowances (branch, allowed_by, reason) "
    "VALUES ('east', 'me', 'me')",
    "INSERT INTO chain.ho_audit (actor, action) VALUES ('me', 'x')",
    "ALTER TABLE chain.players DISABLE ROW LEVEL SECURITY",
    "ALTER TABLE chain.players NO FORCE ROW LEVEL SECURITY",
    "DROP POLICY own_branch ON chain.players",
    "SET ROLE postgres",
    "CREATE TABLE chain.mine (x int)",
    "SELECT * FROM chain.ho_derived",
])
def test_branch_access_sql_is_refused(two_branches: dict, statement: str) -> None:
    import psycopg

    before = _snapshot(two_branches["url"], "west"), _snapshot(two_branches["url"], "east")
    with pg_schema.connect(two_branches["east"]) as pg:
        with pytest.raises(psycopg.Error):
            pg.execute(statement)
    after = _snapshot(two_branches["url"], "west"), _snapshot(two_branches["url"], "east")
    assert after == before


def test_branch_access_a_login_cannot_sync_as_another_branch(two_branches: dict,
                                                              box: Path,
                                                              tmp_path: Path) -> None:
    before = _snapshot(two_branches["url"], "west")
    fresh = tmp_path / "fresh.sqlite"
    _copy(box, fresh)
    with sqlite3.connect(fresh) as c:
        c.execute("DELETE FROM chain_box")
    with pytest.raises(sync.SyncError) as e:
        sync.run(str(fresh), two_branches["east"], "west", resend=True)
    assert "belongs to branch east" in e.value.message
    assert _snapshot(two_branches["url"], "west") == before


def test_branch_access_a_forged_batch_for_another_branch_is_refused(two_branches: dict,
                                                                     ) -> None:
    import psycopg

    before = _snapshot(two_branches["url"], "west")
    batch = sync.Batch(10**6, "forged", 1, {"players": [
        (1, "<script>x</script>\x1b[31m", False, None, True, "2025-04-01T00:00:00Z")]},
        {}, {})
    with pg_schema.connect(two_branches["east"]) as pg:
        expected = sync._mark(pg, "west")
        assert expected is None  # the east login cannot even see west's mark
        with pytest.raises(psycopg.Error):
            sync.write_batch(pg, "west", batch, None)
    assert _snapshot(two_branches["url"], "west") == before


def test_branch_access_resend_needs_the_operators_allowance(two_branches: dict, box: Path,
                                                            tmp_path: Path) -> None:
    url, east = two_branches["url"], two_branches["east"]
    before = _snapshot(url, "east")
    # a fresh club file claiming branch east with east's own login
    fresh = _copy(box, tmp_path / "fresh.sqlite")
    with sqlite3.connect(fresh) as c:
        c.execute("DELETE FROM chain_box")
        c.execute("UPDATE chain_changes SET token = 'other' || token")
    with pytest.raises(sync.SyncError) as e:
        sync.run(str(fresh), east, "east")
    assert "restored from a backup" in e.value.message
    p = subprocess.run([sys.executable, "-m", "web", "sync", "--to", east, "--db", str(fresh),
                        "--resend"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert p.returncode == 2 and "allowance" in p.stderr and "Traceback" not in p.stderr
    assert _snapshot(url, "east") == before
    # the operator allows it: one resend, audited, used up
    p = _admin("--db", url, "allow-resend", "east", "--by", "山田", "--reason", "restored box")
    assert p.returncode == 0, p.stderr
    assert "allowance" in p.stdout
    res = sync.run(str(fresh), east, None, resend=True)
    assert res.differences == []
    _assert_equals_box(url, fresh, "east")
    with pg_schema.connect(url) as pg:
        audit = pg.execute("SELECT actor, action, branch, reason FROM chain.ho_audit "
                           "WHERE action = 'allow_resend'").fetchall()
        assert audit == [("山田", "allow_resend", "east", "restored box")]
        used = pg.execute("SELECT count(*) FROM chain.resend_allowances WHERE branch = 'east' "
                          "AND used_at IS NOT NULL").fetchone()[0]
        assert used == 1
    with pytest.raises(sync.SyncError) as e:
        sync.run(str(fresh), east, None, resend=True)
    assert "allowance" in e.value.message


def test_branch_access_the_owner_login_also_needs_an_allowance(box: Path,
                                                               headoffice_url: str) -> None:
    sync.run(str(box), headoffice_url, "east")
    before = _snapshot(headoffice_url, "east")
    with pytest.raises(sync.SyncError) as e:
        sync.run(str(box), headoffice_url, None, resend=True)
    assert e.value.key == "sync.err.resend_not_allowed"
    assert _snapshot(headoffice_url, "east") == before


def test_branch_access_admin_command_prints_a_login_that_works(headoffice_url: str,
                                                               box: Path) -> None:
    p = _admin("--db", headoffice_url, "add-branch", "east", "--name", "東口店")
    assert p.returncode == 0, p.stderr
    words = p.stdout.split()
    role = words[words.index("user") + 1]
    password = words[words.index("password") + 1]
    res = sync.run(str(box), _login(headoffice_url, role, password), "east")
    assert res.differences == [] and res.changes > 0
    again = _admin("--db", headoffice_url, "add-branch", "east", "--name", "x")
    assert again.returncode == 2 and "already has its login" in again.stderr
    # a branch's own login cannot run the operator's commands
    p = _admin("--db", _login(headoffice_url, role, password), "allow-resend", "east",
               "--by", "me", "--reason", "me")
    assert p.returncode == 2 and "operator commands" in p.stderr
    assert "Traceback" not in p.stderr


@pytest.mark.parametrize("bad", ["east\n", "east\nwest", " east", "東", "a" * 41, ""])
def test_branch_access_branch_ids_are_matched_whole(bad: str, headoffice_url: str,
                                                    box: Path) -> None:
    with pytest.raises(sync.SyncError) as e:
        sync.run(str(box), headoffice_url, bad)
    assert e.value.key == "sync.err.bad_branch"
    with pg_schema.connect(headoffice_url) as pg:
        with pytest.raises(branches.AdminError):
            branches.add_branch(pg, bad, "x", "owner")


def test_branch_access_display_names_are_cleaned() -> None:
    assert admin.clean_name(" 東口\x1b[31m店\x00 ") == "東口[31m店"
    assert admin.clean_name("x" * 101) == ""


def test_branch_access_every_branch_table_is_held_by_postgresql(headoffice_url: str) -> None:
    from chain import ho_questions

    with pg_schema.connect(headoffice_url) as pg:
        ho_questions.migrate(pg)
        keyed = {r[0] for r in pg.execute(
            "SELECT table_name FROM information_schema.columns "
            "WHERE table_schema = 'chain' AND column_name = 'branch'")}
        for t in keyed:
            forced = pg.execute(
                "SELECT relrowsecurity AND relforcerowsecurity FROM pg_class "
                "WHERE oid = %s::regclass", [f"chain.{t}"]).fetchone()[0]
            reachable = pg.execute(
                "SELECT has_table_privilege(%s, %s, 'SELECT,INSERT,UPDATE,DELETE')",
                [branches.GROUP, f"chain.{t}"]).fetchone()[0]
            # a table a branch can reach at all is held by row-level security
            assert forced or not reachable, t
            assert (t in branches.BRANCH_TABLES) == forced, t
        group = pg.execute("SELECT rolcanlogin, rolbypassrls, rolsuper FROM pg_roles "
                           "WHERE rolname = %s", [branches.GROUP]).fetchone()
        assert group == (False, False, False)
