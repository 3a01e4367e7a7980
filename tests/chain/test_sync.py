"""``python -m chain sync`` against a real PostgreSQL: a first sync equals the box, a second
sends nothing and a batch sent twice is stored once, a kill -9 inside a batch and a cut
network connection both resume to the same head office as an uninterrupted sync, a
correction and a void arrive with the next sync, two branches stay apart, a box restored
from a backup is refused until sent again, and every refusal is one line in words.

The club is a small synthetic one (``benchmarks/gen_club_year.py``: games played through
the engine, with their hand events, summary lines and money), made once per module and
copied for each test.
"""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from chain import pg_schema, sync

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import gen_club_year  # noqa: E402

ACTOR = "staff:test"


@pytest.fixture(scope="module")
def club_file(tmp_path_factory) -> Path:
    """A small club (60 games) with the chain's change log, made once."""
    path = tmp_path_factory.mktemp("club") / "club.sqlite"
    gen_club_year.generate(str(path), 0.001, 1, "2025-04-01")
    return path


def _copy(src: Path, dst: Path) -> Path:
    with sqlite3.connect(src) as a, sqlite3.connect(dst) as b:
        a.backup(b)
    return dst


@pytest.fixture
def box(club_file: Path, tmp_path: Path) -> Path:
    """This test's own copy of the club file."""
    return _copy(club_file, tmp_path / "box.sqlite")


def _snapshot(url: str, branch: str) -> dict[str, list]:
    """Every row the head office holds for ``branch`` (its sync times left out)."""
    out: dict[str, list] = {}
    with pg_schema.connect(url) as pg:
        for name, t in sync.TABLES.items():
            cols = ", ".join(t.columns)
            out[name] = pg.execute(f"SELECT {cols} FROM chain.{name} WHERE branch = %s "
                                   f"ORDER BY {', '.join(t.key)}", [branch]).fetchall()
        out["game_checksums"] = pg.execute(
            "SELECT game_id, events, checksum FROM chain.game_checksums WHERE branch = %s "
            "ORDER BY game_id", [branch]).fetchall()
        out["sync_marks"] = pg.execute("SELECT tbl, mark, token FROM chain.sync_marks "
                                       "WHERE branch = %s", [branch]).fetchall()
    return out


def _box_state(path: Path) -> tuple[dict[str, int], dict[int, tuple]]:
    with sqlite3.connect(path) as c:
        counts = sync.box_counts(c)
        ids = [r[0] for r in c.execute("SELECT id FROM games ORDER BY id")]
        return counts, sync._box_checksums(c, ids)


def _assert_equals_box(url: str, path: Path, branch: str) -> None:
    counts, sums = _box_state(path)
    with pg_schema.connect(url) as pg:
        assert sync.head_office_counts(pg, branch) == counts
        assert sync.head_office_checksums(pg, branch, sorted(sums)) == sums


def _cli(*args: str, env: dict | None = None, **kw: Any) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "web", "sync", *args], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **(env or {})}, **kw)


def _one_line_error(err: str) -> None:
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err


# ----------------------------------------------------------------------- first, second
def test_sync_first_sync_equals_the_box(box: Path, pg_url: str) -> None:
    res = sync.run(str(box), pg_url, "east", batch_size=700)
    assert res.differences == [] and res.counted
    assert res.batches > 1 and res.games_checked == 60
    _assert_equals_box(pg_url, box, "east")
    with pg_schema.connect(pg_url) as pg:
        # the head office keeps what the day's money needs: the game's [money] switches
        money = pg.execute("SELECT money FROM chain.games WHERE branch = 'east' AND id = 1"
                           ).fetchone()[0]
        assert money == gen_club_year.MONEY["nekohouse-4a"] or money == \
            gen_club_year.MONEY["nekohouse-3a"]


def test_sync_second_sends_nothing_and_a_batch_twice_is_stored_once(box: Path,
                                                                      pg_url: str) -> None:
    sync.run(str(box), pg_url, "east")
    before = _snapshot(pg_url, "east")
    again = sync.run(str(box), pg_url)
    assert (again.changes, again.rows, again.differences) == (0, 0, [])
    assert _snapshot(pg_url, "east") == before
    # the head office forgets the mark: every batch is sent a second time, by row inserts
    # and then by COPY, and each row is still stored once
    for copy_at in (10**9, 1):
        with pg_schema.connect(pg_url) as pg:
            pg.execute("DELETE FROM chain.sync_marks WHERE branch = 'east'")
        res = sync.run(str(box), pg_url, batch_size=900, copy_at=copy_at)
        assert res.changes > 0 and res.differences == []
        assert _snapshot(pg_url, "east") == before


def test_sync_by_copy_equals_sync_by_rows(box: Path, pg_cluster) -> None:
    a, b = pg_cluster.new_database(), pg_cluster.new_database()
    sync.run(str(box), a, "east", copy_at=10**9)
    sync.run(str(box), b, copy_at=1)
    assert _snapshot(a, "east") == _snapshot(b, "east")


# ----------------------------------------------------------------------- faults
def _uninterrupted(pg_cluster, path: Path, branch: str) -> dict[str, list]:
    url = pg_cluster.new_database()
    copy = _copy(path, path.with_name("uninterrupted.sqlite"))
    with sqlite3.connect(copy) as c:  # the same box, not yet named
        c.execute("DELETE FROM chain_box")
    sync.run(str(copy), url, branch, batch_size=500)
    return _snapshot(url, branch)


def test_sync_kill_9_inside_a_batch_then_resume(box: Path, pg_url: str, pg_cluster) -> None:
    p = _cli("--to", pg_url, "--db", str(box), "--branch", "east", "--batch", "500",
             env={sync.STOP_ENV: "1300"})
    try:
        line = ""
        while "test hook" not in line:
            line = p.stdout.readline()
            assert line or p.poll() is None, p.stderr.read()
        os.kill(p.pid, signal.SIGKILL)
    finally:
        if p.poll() is None:
            p.kill()
        p.wait(30)
        p.stdout.close()
        p.stderr.close()
    # what was committed is whole batches: the mark sits on a batch's end, and nothing of
    # the killed batch is there
    half = _snapshot(pg_url, "east")
    (_, mark, _), = half["sync_marks"]
    assert mark in (500, 1000)
    with sqlite3.connect(box) as c:
        sent = {int(k) for (k,) in c.execute(
            "SELECT key FROM chain_changes WHERE tbl = 'hand_events' AND seq <= ?", [mark])}
    assert {r[0] for r in half["hand_events"]} == sent
    res = sync.run(str(box), pg_url, batch_size=500)
    assert res.differences == [] and res.counted
    _assert_equals_box(pg_url, box, "east")
    resumed = _snapshot(pg_url, "east")
    straight = _uninterrupted(pg_cluster, box, "east")
    assert resumed == straight


class Relay:
    """A TCP relay on loopback between the sync and PostgreSQL that the test cuts once
    ``cut_after`` bytes have gone from the client to the server."""

    def __init__(self, target_port: int, cut_after: int) -> None:
        self.target, self.cut_after = target_port, cut_after
        self.sent = 0
        self.cut = threading.Event()
        self.server = socket.socket()
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(8)
        self.port = self.server.getsockname()[1]
        self.socks: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.cut.is_set():
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target))
            self.socks += [client, upstream]
            threading.Thread(target=self._pump, args=(client, upstream, True),
                             daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, False),
                             daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, counted: bool) -> None:
        try:
            while not self.cut.is_set():
                data = src.recv(65536)
                if not data:
                    break
                if counted:
                    self.sent += len(data)
                    if self.sent >= self.cut_after:
                        self.close()
                        return
                dst.sendall(data)
        except OSError:
            pass

    def close(self) -> None:
        """Cut every connection at once (the cable pulled)."""
        self.cut.set()
        for s in (self.server, *self.socks):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()


def test_sync_network_cut_mid_batch_then_resume(box: Path, pg_url: str, pg_cluster) -> None:
    dbname = urlsplit(pg_url).path.lstrip("/")
    relay = Relay(pg_cluster.port, cut_after=150_000)
    try:
        p = _cli("--to", pg_cluster.url(dbname, tcp=True, port=relay.port), "--db", str(box),
                 "--branch", "east", "--batch", "400")
        out, err = p.communicate(timeout=300)
    finally:
        relay.close()
    assert relay.cut.is_set()
    assert p.returncode == 1, (out, err)
    _one_line_error(err)
    assert "connection to the head office was lost" in err
    half = _snapshot(pg_url, "east")
    # whole batches or none: the mark (if any batch got through) sits on a batch's end
    assert all(mark % 400 == 0 for _, mark, _ in half["sync_marks"])
    res = sync.run(str(box), pg_url, batch_size=400)
    assert res.differences == [] and res.counted
    assert _snapshot(pg_url, "east") == _uninterrupted(pg_cluster, box, "east")


# ----------------------------------------------------------------------- later changes
def _correct_and_void(path: Path) -> tuple[int, int]:
    from club import corrections
    from club.db import connect
    from club.errors import UserError

    db = connect(str(path))
    try:
        corrected = None
        for seq in range(1, 12):
            try:
                corrections.remove_hand(db, 1, seq, actor=ACTOR, reason="recorded twice")
            except UserError:
                continue
            corrected = 1
            break
        assert corrected
        corrections.void_game(db, 2, actor=ACTOR, reason="wrong players")
    finally:
        db.conn.close()
    return 1, 2


def test_sync_a_correction_and_a_void_arrive_with_the_next_sync(box: Path, pg_url: str) -> None:
    sync.run(str(box), pg_url, "east")
    with pg_schema.connect(pg_url) as pg:
        lines_before = pg.execute("SELECT seat, rank, final_score FROM chain.game_lines WHERE "
                                  "branch = 'east' AND game_id = 1 ORDER BY seat").fetchall()
        events_before = pg.execute("SELECT count(*) FROM chain.hand_events WHERE "
                                   "branch = 'east' AND game_id = 1").fetchone()[0]
    corrected, voided = _correct_and_void(box)
    res = sync.run(str(box), pg_url)
    assert res.changes > 0 and res.differences == [] and res.counted
    _assert_equals_box(pg_url, box, "east")
    with pg_schema.connect(pg_url) as pg, sqlite3.connect(box) as c:
        kinds = [r[0] for r in pg.execute(
            "SELECT kind FROM chain.hand_events WHERE branch = 'east' AND game_id = %s "
            "ORDER BY seq", [corrected])]
        assert len(kinds) == events_before + 1 and kinds[-1] == "void"
        lines = pg.execute("SELECT seat, rank, final_score FROM chain.game_lines WHERE "
                           "branch = 'east' AND game_id = 1 ORDER BY seat").fetchall()
        assert lines == [tuple(r) for r in c.execute(
            "SELECT seat, rank, final_score FROM stats_lines WHERE game_id = 1 ORDER BY seat")]
        assert lines != lines_before
        assert pg.execute("SELECT status FROM chain.games WHERE branch = 'east' AND id = %s",
                          [voided]).fetchone() == ("void",)
        assert pg.execute("SELECT count(*) FROM chain.game_lines WHERE branch = 'east' AND "
                          "game_id = %s", [voided]).fetchone() == (0,)
        actions = {r[0] for r in pg.execute(
            "SELECT action FROM chain.audit_log WHERE branch = 'east' AND actor = %s", [ACTOR])}
        assert "game.void" in actions and len(actions) == 2


def test_sync_two_branches_into_one_head_office_stay_apart(club_file: Path, tmp_path: Path,
                                                           pg_url: str) -> None:
    # two boxes whose ids are the same: only the branch keeps their rows apart
    east = _copy(club_file, tmp_path / "east.sqlite")
    west = _copy(club_file, tmp_path / "west.sqlite")
    sync.run(str(east), pg_url, "east")
    _correct_and_void(west)
    sync.run(str(west), pg_url, "west")
    _assert_equals_box(pg_url, east, "east")
    _assert_equals_box(pg_url, west, "west")
    with pg_schema.connect(pg_url) as pg:
        status = dict(pg.execute("SELECT branch, status FROM chain.games WHERE id = 2"))
        assert status == {"east": "finished", "west": "void"}
    assert sync.run(str(east), pg_url).changes == 0


def test_sync_a_restored_box_is_refused_until_sent_again(box: Path, tmp_path: Path,
                                                         pg_url: str) -> None:
    sync.run(str(box), pg_url, "east")
    backup = _copy(box, tmp_path / "backup.sqlite")
    _correct_and_void(box)
    sync.run(str(box), pg_url)
    # the box goes back to its backup and plays on: its change numbers are used again
    _copy(backup, box)
    from club import corrections
    from club.db import connect

    db = connect(str(box))
    corrections.void_game(db, 3, actor=ACTOR, reason="after the restore")
    db.conn.close()
    p = _cli("--to", pg_url, "--db", str(box))
    out, err = p.communicate(timeout=300)
    assert p.returncode == 2
    _one_line_error(err)
    assert "restored from a backup" in err and "--resend" in err
    p = _cli("--to", pg_url, "--db", str(box), "--resend")
    out, err = p.communicate(timeout=300)
    assert p.returncode == 2 and "allowance" in err
    _one_line_error(err)
    from chain import branches

    with pg_schema.connect(pg_url) as pg:
        branches.allow_resend(pg, "east", "operator", "the box was restored")
    p = _cli("--to", pg_url, "--db", str(box), "--resend")
    out, err = p.communicate(timeout=300)
    assert p.returncode == 0, err
    _assert_equals_box(pg_url, box, "east")
    with pg_schema.connect(pg_url) as pg:
        status = dict(pg.execute("SELECT id, status FROM chain.games WHERE branch = 'east' "
                                 "AND id IN (2, 3)"))
        assert status == {2: "finished", 3: "void"}


# ----------------------------------------------------------------------- in words
def test_sync_refusals_are_one_line_with_their_exit_status(box: Path, pg_url: str,
                                                           tmp_path: Path) -> None:
    cases = [
        (["--db", str(box)], 2, "--to postgresql://"),
        (["--to", pg_url, "--db", str(tmp_path / "none.sqlite")], 2, "no club database"),
        (["--to", pg_url, "--db", str(box)], 2, "--branch ID"),
        (["--to", pg_url, "--db", str(box), "--branch", "東 店"], 2, "cannot be used"),
        (["--to", pg_url, "--db", str(box), "--branch", "east", "--batch", "0"], 2, "--batch"),
        # PostgreSQL down (nothing listens): the next run tries again
        (["--to", "postgresql://postgres@127.0.0.1:1/x", "--db", str(box), "--branch", "e"],
         1, "Cannot reach the head office"),
    ]
    for args, status, words in cases:
        p = _cli(*args)
        out, err = p.communicate(timeout=300)
        assert p.returncode == status, (args, err)
        _one_line_error(err)
        assert words in err, err


def test_sync_prints_its_progress_on_a_long_sync_then_one_line(box: Path, pg_url: str) -> None:
    p = _cli("--to", pg_url, "--db", str(box), "--branch", "east", "--batch", "1000")
    out, err = p.communicate(timeout=300)
    assert p.returncode == 0 and err == ""
    lines = out.strip().splitlines()
    with sqlite3.connect(box) as c:
        total = c.execute("SELECT count(*) FROM chain_changes").fetchone()[0]
    assert 1000 < total <= 2000
    assert "sending: 1,000 of {:,} changes".format(total) in lines[0]  # Japanese first
    assert lines[0].startswith("送信中: 変更 1,000")
    assert [("sending:" in line) for line in lines] == [True, True, False]
    assert "sent {:,} changes".format(total) in lines[-1] and "60 games verified" in lines[-1]
    p = _cli("--to", pg_url, "--db", str(box))
    out, err = p.communicate(timeout=300)
    assert p.returncode == 0 and out.strip().count("\n") == 0 and "nothing new" in out


def test_sync_a_row_the_head_office_refuses_stores_nothing_of_its_batch(box: Path,
                                                                       pg_url: str) -> None:
    sync.run(str(box), pg_url, "east")
    before = _snapshot(pg_url, "east")
    with sqlite3.connect(box) as c:  # a damaged time, and a good change in the same batch
        c.execute("UPDATE players SET name = 'renamed' WHERE id = 2")
        c.execute("UPDATE players SET created_at = 'yesterday-ish' WHERE id = 1")
    p = _cli("--to", pg_url, "--db", str(box))
    out, err = p.communicate(timeout=300)
    assert p.returncode == 2, err
    _one_line_error(err)
    assert "refused the batch after change" in err and "nothing of it is stored" in err
    assert _snapshot(pg_url, "east") == before


def test_sync_without_psycopg_says_to_install_the_chain_extra(box: Path) -> None:
    code = ("import sys; sys.modules['psycopg'] = None; from web.cli import main; "
            f"sys.exit(main(['sync', '--to', 'postgresql:///x', '--db', {str(box)!r}, "
            "'--branch', 'east']))")
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 2
    _one_line_error(p.stderr)
    assert "pip install -e '.[chain]'" in p.stderr
