"""The head office never shows half a box: while two boxes play, void and sync in small
batches (threads, a real PostgreSQL), every snapshot a reader takes holds whole games
only (hands that match the game's checksum, its seats, result lines when finished and
none when void or live, every player named), and every page answers from one snapshot
(no 500; the chain's 日報 total is the sum of its branch rows)."""

from __future__ import annotations

import signal
import threading
import uuid
from pathlib import Path

import pytest

from chain import ho_questions, pg_schema, sync
from club import corrections, games
from club.db import connect
from tests.chain import test_sync
from tests.chain.test_headoffice import open_box
from tests.support.headoffice import signed_in

BRANCHES = ("kanda", "nakano")


def _play_some(path: str, n: int, errors: list, enough: threading.Event | None = None) -> None:
    """At least ``n`` games on one box (more until ``enough`` is set), a few hands each,
    every third one voided afterwards."""
    try:
        db = connect(path)
        i = 0
        while i < n or (enough is not None and not enough.is_set()):
            g = games.start_game(db, "t1" if i % 2 else "t2", [1, 2, 3, 4],
                                 idempotency_key=uuid.uuid4().hex)
            gid = g["game"]["id"]
            evs = [{"event": "win", "winners": [{"seat": (i + k) % 4, "han": 2 + k, "fu": 30}],
                    "from": (i + k + 1) % 4} for k in range(3)] + [{"event": "end"}]
            for seq, ev in enumerate(evs, start=1):
                games.record_event(db, gid, ev, expected_seq=seq,
                                   idempotency_key=uuid.uuid4().hex)
            if i % 3 == 2:
                corrections.void_game(db, gid, actor="staff:t", reason="記録ミス")
            i += 1
        db.conn.close()
    except Exception as e:  # noqa: BLE001 (reported by the test)
        errors.append(f"box {path}: {e!r}")


def check_snapshot(pg) -> list[str]:
    """Every way a snapshot of the head office could show half a game, in words (empty:
    whole). ``pg`` is inside a REPEATABLE READ transaction."""
    bad: list[str] = []
    rows = pg.execute(
        "SELECT g.branch, g.id, g.status, g.players, "
        "(SELECT count(*) FROM chain.game_seats s WHERE s.branch = g.branch "
        " AND s.game_id = g.id), "
        "(SELECT count(*) FROM chain.game_lines l WHERE l.branch = g.branch "
        " AND l.game_id = g.id), c.events, c.checksum "
        "FROM chain.games g LEFT JOIN chain.game_checksums c ON c.branch = g.branch "
        "AND c.game_id = g.id ORDER BY g.branch, g.id").fetchall()
    by_branch: dict[str, list] = {}
    for r in rows:
        by_branch.setdefault(r[0], []).append(r)
    for branch, games_ in by_branch.items():
        again = sync.head_office_checksums(pg, branch, [r[1] for r in games_])
        for b, gid, status, players, seats, lines, n, checksum in games_:
            where = f"{b} game {gid} ({status})"
            if checksum is None or again.get(gid) != (n, checksum):
                bad.append(f"{where}: hands {again.get(gid)} do not match its checksum "
                           f"{(n, checksum)}")
            if seats != players:
                bad.append(f"{where}: {seats} seats of {players}")
            if status == "finished" and lines != players:
                bad.append(f"{where}: finished with {lines} result lines")
            if status in ("void", "live") and lines:
                bad.append(f"{where}: {lines} result lines")
    missing = pg.execute(
        "SELECT s.branch, s.game_id, s.player_id FROM chain.game_seats s "
        "LEFT JOIN chain.players p ON p.branch = s.branch AND p.id = s.player_id "
        "WHERE p.id IS NULL").fetchall()
    bad += [f"{b} game {g}: player {p} not at the head office" for b, g, p in missing]
    return bad


PAGES = ("/report?format=json", "/report?format=json&branch=kanda", "/",
         "/leaderboard?period=all&format=json", "/report")


def check_page(client, page: str) -> list[str]:
    """A page's answer: 200, and the chain's 日報 the sum of its branch rows."""
    r = client.get(page)
    if r.status_code != 200:
        return [f"{page}: {r.status_code} {r.get_data(as_text=True)[:200]}"]
    bad = []
    if page == "/report?format=json":
        rep = r.get_json()
        for k in ("games", "fees"):
            parts = sum(b[k] for b in rep["branches"])
            if rep["total"][k] != parts:
                bad.append(f"report {k}: chain {rep['total'][k]}, branches {parts}")
    return bad


@pytest.fixture
def boxes(tmp_path: Path, headoffice_url: str):
    ho_questions.migrate_url(headoffice_url)
    made = {b: open_box(tmp_path, b) for b in BRANCHES}
    for _, db in made.values():
        db.conn.close()
    for b, (path, _) in made.items():  # the branches exist before the pages are asked
        sync.run(path, headoffice_url, b)
    return {b: path for b, (path, _) in made.items()}


def test_snapshot_every_snapshot_and_page_during_syncs_is_whole(boxes, headoffice_url,
                                                               request):
    from headoffice import create_app

    url = headoffice_url
    app = create_app(url, testing=True, refresh_every=0.3)
    request.addfinalizer(app.extensions["headoffice_refresher"].stop)
    errors: list[str] = []
    stop, enough = threading.Event(), threading.Event()
    seen = {"snapshots": 0, "marks": set(), "pages": 0, "games": 0}

    def syncing() -> None:
        try:
            while not stop.is_set():
                for b, path in boxes.items():
                    # batches of 3 changes: boundaries fall inside every box transaction
                    sync.run(path, url, b, batch_size=3)
        except Exception as e:  # noqa: BLE001
            errors.append(f"sync: {e!r}")

    def reading() -> None:
        with pg_schema.connect(url) as pg:
            while not stop.is_set():
                pg_schema.begin_snapshot(pg)
                bad = check_snapshot(pg)
                seen["marks"].add(tuple(pg.execute(
                    "SELECT branch, mark FROM chain.sync_marks ORDER BY branch").fetchall()))
                seen["games"] = max(seen["games"], pg.execute(
                    "SELECT count(*) FROM chain.games").fetchone()[0])
                pg_schema.end_snapshot(pg)
                seen["snapshots"] += 1
                if seen["snapshots"] >= 20 and seen["pages"] >= 20:
                    enough.set()
                errors.extend(f"snapshot {seen['snapshots']}: {b}" for b in bad)

    def pages() -> None:
        c = signed_in(app)
        while not stop.is_set():
            for page in PAGES:
                errors.extend(check_page(c, page))
                seen["pages"] += 1

    players = [threading.Thread(target=_play_some, args=(p, 12, errors, enough))
               for p in boxes.values()]
    others = [threading.Thread(target=f) for f in (syncing, reading, pages)]
    for t in players + others:
        t.start()
    for t in players:
        t.join()
    stop.set()
    for t in others:
        t.join(timeout=300)
    assert errors == []
    for b, path in boxes.items():  # settled: the head office is the box
        res = sync.run(path, url, b)
        assert res.differences == [] and res.counted
    with pg_schema.connect(url) as pg:
        pg_schema.begin_snapshot(pg)
        assert check_snapshot(pg) == []
        n = pg.execute("SELECT count(*) FROM chain.games").fetchone()[0]
        assert n >= 24
        assert pg.execute("SELECT count(*) FROM chain.games WHERE status = 'void'"
                          ).fetchone()[0] >= 8
    # the readers ran while batches committed: they saw many states, not one
    assert seen["snapshots"] >= 20 and len(seen["marks"]) > 10 and seen["pages"] >= 20


def test_snapshot_checker_finds_a_half_game(boxes, headoffice_url):
    """The check above can fail: a finished game without its lines, a void game with
    lines and hands that differ from the checksum are each named."""
    url = headoffice_url
    errors: list[str] = []
    _play_some(boxes["kanda"], 3, errors)
    sync.run(boxes["kanda"], url)
    with pg_schema.connect(url) as pg:
        pg_schema.begin_snapshot(pg)
        assert check_snapshot(pg) == []
        pg_schema.end_snapshot(pg)
        with pg.transaction():
            pg.execute("DELETE FROM chain.game_lines WHERE branch = 'kanda' AND game_id = 1")
            pg.execute("UPDATE chain.game_lines SET game_id = 3 WHERE branch = 'kanda' "
                       "AND game_id = 2")
            pg.execute("DELETE FROM chain.hand_events WHERE branch = 'kanda' AND game_id = 2 "
                       "AND seq = 2")
        pg_schema.begin_snapshot(pg)
        bad = check_snapshot(pg)
    assert any("game 1 (finished): finished with 0 result lines" in b for b in bad), bad
    assert any("game 3 (void): 4 result lines" in b for b in bad), bad
    assert any("game 2" in b and "do not match its checksum" in b for b in bad), bad


club_file, box = test_sync.club_file, test_sync.box  # the same small club, a copy each


def test_snapshot_after_a_killed_sync_shows_no_half_game(box: Path, pg_url: str) -> None:
    """kill -9 of the sync inside a batch (the test hook stops it there): what the head
    office holds meanwhile is whole games only, and the next run completes it."""
    p = test_sync._cli("--to", pg_url, "--db", str(box), "--branch", "east", "--batch", "150",
                       env={sync.STOP_ENV: "1000"})
    try:
        seen = []
        while not seen or "stopped inside the transaction" not in seen[-1]:
            seen.append(p.stdout.readline())  # type: ignore[union-attr]
            assert seen[-1], (seen, p.stderr.read())  # type: ignore[union-attr]
        assert len(seen) > 1  # progress lines: batches committed before
    finally:
        p.send_signal(signal.SIGKILL)
        p.communicate(timeout=120)
    with pg_schema.connect(pg_url) as pg:
        pg_schema.begin_snapshot(pg)
        marks = pg.execute("SELECT mark FROM chain.sync_marks").fetchall()
        held = pg.execute("SELECT count(*) FROM chain.games").fetchone()[0]
        assert check_snapshot(pg) == []
    assert marks and marks[0][0] > 0 and held > 0  # some batches were in, not all
    res = sync.run(str(box), pg_url, batch_size=150)
    assert res.differences == [] and res.counted
    with pg_schema.connect(pg_url) as pg:
        pg_schema.begin_snapshot(pg)
        assert check_snapshot(pg) == []
        assert pg.execute("SELECT count(*) FROM chain.games").fetchone()[0] == 60 > held


def test_snapshot_a_page_reads_in_one_repeatable_read_read_only_transaction(boxes,
                                                                          headoffice_url,
                                                                          request,
                                                                          monkeypatch) -> None:
    """What a page's connection is in while the page reads: one REPEATABLE READ, READ
    ONLY transaction (a write refused), and a commit made meanwhile is not seen."""
    from chain import ho_questions
    from headoffice import create_app

    app = create_app(headoffice_url, testing=True, refresh_every=3600)
    request.addfinalizer(app.extensions["headoffice_refresher"].stop)
    seen: dict = {}
    real = ho_questions.branches

    def branches_twice(conn):
        first = real(conn)
        seen["mode"] = conn.execute("SELECT current_setting('transaction_isolation'), "
                                    "current_setting('transaction_read_only')").fetchone()
        with pg_schema.connect(headoffice_url) as other:  # a sync commits meanwhile
            other.execute("UPDATE chain.branches SET name = 'renamed' WHERE branch = 'kanda'")
        seen["same"] = real(conn) == first
        return first

    monkeypatch.setattr(ho_questions, "branches", branches_twice)
    assert signed_in(app).get("/?format=json").status_code == 200
    assert seen == {"mode": ("repeatable read", "on"), "same": True}
