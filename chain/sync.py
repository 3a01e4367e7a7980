"""``python -m chain sync``: the box sends its records to the head office on PostgreSQL.

The box is the source of truth; the head office collects. How it goes::

    club file (SQLite)                                  head office (PostgreSQL)
    ──────────────────                                  ────────────────────────
    players, games, game_seats,   triggers              chain.players, chain.games, ...
    hand_events, stats_lines,  ──────────▶ chain_changes     ▲  one transaction per batch:
    audit_log, stats_settings   (seq, tbl, key, token)       │  the rows AND the mark
                                         │ seq > mark        │
                                         └── sync: read ─────┘  chain.sync_marks(branch)

* **How changes are found**: the box's change log (:mod:`chain.changelog`),
  fed by SQLite triggers on every mirrored table, so updates in place (a game going
  live → finished → void, a correction rewriting a game's summary lines, a seat swap)
  are seen as well as appends. Its sequence is the one high-water mark, kept at the
  head office in ``chain.sync_marks`` with the token of the change at the mark.
* **A batch** is up to ``--batch`` changes (5,000 by default) read in one snapshot of
  the club file, deduplicated to rows, and written in ONE PostgreSQL transaction that
  also moves the mark: a kill -9 or a network cut anywhere leaves the whole batch or
  none of it, and the next run goes on from the mark. Every write is an ``INSERT ... ON
  CONFLICT`` on ``(branch, key)`` (a game's seats and summary lines are replaced as a
  whole), so a batch sent twice is stored once. A game the batch touches travels whole
  (:func:`whole_games`): the head office never holds half of a game's state. From
  :data:`COPY_AT` rows of a table in a batch (a first sync), the rows go by ``COPY``
  into a temporary table first.
* **Verified**: each touched game's checksum over its hand events is computed on the
  box, sent (``chain.game_checksums``) and computed again from what PostgreSQL stored;
  once the mark has caught up with the box, the rows per table are counted on both
  sides. Differences are reported in words.
* **A restored box**: the change at the head office's mark has another token on the box
  (or is gone): the sync refuses in words; ``--resend`` sends the branch afresh.

Every wait is bounded (:mod:`chain.sync_limits`). Exit status: 0 sent and
verified; 1 a fault the next run recovers from (the head office unreachable, lost or
silent mid-batch, a lock held there, the club file busy, or a difference found); 2
something a person must fix (arguments, a setting out of bounds, the club file refused,
read-only or on a full disk, psycopg missing, a box that does not match the branch).
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import sqlite_utils

import lexicon
from chain import bounds, box, branches, erasure, held, pg_schema, repair, sync_limits
from chain.refusals import BRANCH_RE, SyncError
from club.errors import UserError

BATCH = 5000
"""Changes per batch (one PostgreSQL transaction)."""
COPY_AT = 200
"""Rows of one table in a batch from which ``COPY`` into a temporary table pays."""
STOP_ENV = "JANTAKU_SYNC_TEST_STOP_AFTER_ROWS"
"""Test hook: stop (sleep, to be killed) once this many rows are written inside a batch's
transaction, before it commits."""
MARK = "changes"


@dataclass(frozen=True)
class Table:
    """One head office table: its columns (after ``branch``), its key, how a row is read
    from the box, and whether it is appended, updated in place or replaced per game."""

    name: str
    columns: tuple[str, ...]
    key: tuple[str, ...]
    select: str  # box SQL with one ``{keys}`` placeholder
    mode: str  # "upsert", "append" or "per_game"
    booleans: tuple[str, ...] = ()
    box_table: str = ""


LINE_COLUMNS = ("game_id", "seat", "player_id", "family", "club_day", "ended_at", "players",
                "rank", "result", "final_score", "busted", "hands", "wins", "tsumo_wins",
                "deal_ins", "riichi", "win_points", "deal_in_points", "chips", "penalties",
                "chombo")

TABLES: dict[str, Table] = {t.name: t for t in (
    Table("settings", ("key", "value"), ("key",),
          "SELECT key, value FROM stats_settings WHERE key IN ({keys})", "upsert",
          box_table="stats_settings"),
    Table("players", ("id", "name", "guest", "member_no", "active", "created_at"), ("id",),
          "SELECT id, name, guest, member_no, active, created_at FROM players "
          "WHERE id IN ({keys})", "upsert", booleans=("guest", "active")),
    Table("club_tables", ("id", "name", "rule_set", "created_at"), ("id",),
          "SELECT id, name, rule_set, created_at FROM club_tables WHERE id IN ({keys})",
          "upsert"),
    Table("games", ("id", "table_id", "rule_set", "rules", "players", "status", "start_key",
                    "started_at", "finished_at", "started_by"), ("id",),
          "SELECT id, table_id, rule_set, rules, players, status, start_key, started_at, "
          "finished_at, started_by FROM games WHERE id IN ({keys})", "upsert"),
    Table("game_seats", ("game_id", "seat", "player_id", "confirmed_at", "confirmed_by"),
          ("game_id", "seat"),
          "SELECT game_id, seat, player_id, confirmed_at, confirmed_by FROM game_seats "
          "WHERE game_id IN ({keys})", "per_game"),
    Table("hand_events", ("id", "game_id", "seq", "kind", "event", "target_seq",
                          "idempotency_key", "request_hash", "actor", "reason", "created_at"),
          ("id",),
          "SELECT id, game_id, seq, kind, event, target_seq, idempotency_key, request_hash, "
          "actor, reason, created_at FROM hand_events WHERE id IN ({keys})", "append"),
    Table("game_lines", LINE_COLUMNS, ("game_id", "seat"),
          f"SELECT {', '.join(LINE_COLUMNS)} FROM stats_lines WHERE game_id IN ({{keys}})",
          "per_game", box_table="stats_lines"),
    Table("audit_log", ("id", "at", "actor", "action", "target", "reason", "details"), ("id",),
          "SELECT id, at, actor, action, target, reason, details FROM audit_log "
          "WHERE id IN ({keys})", "append"),
    Table("member_links", ("id", "player_id", "chain_id", "kind", "previous_chain_id",
                           "merged_into", "at", "actor"), ("id",),
          "SELECT id, player_id, chain_id, kind, previous_chain_id, merged_into, at, actor "
          "FROM chain_links WHERE id IN ({keys})", "append", box_table="chain_links"),
)}
ORDER = ("settings", "players", "club_tables", "games", "game_seats", "hand_events",
         "game_lines", "audit_log", "member_links")
"""The order a batch writes in: a row after the rows it refers to."""
INT_KEYS = {"players", "games", "hand_events", "game_lines", "audit_log", "member_links"}
COLUMNS = {n: t.columns for n, t in TABLES.items()}


@dataclass
class Result:
    """What one run did and what its check found."""

    branch: str
    changes: int = 0
    rows: int = 0
    batches: int = 0
    seconds: float = 0.0
    mark: int = 0
    games_checked: int = 0
    counts: dict[str, tuple[int, int]] = field(default_factory=dict)
    differences: list[str] = field(default_factory=list)
    counted: bool = False
    repaired: list[int] = field(default_factory=list)
    """Games whose hand events differed and were sent again whole this run."""
    held: list[Any] = field(default_factory=list)
    """Records over the head office's bounds, left out and kept on the box
    (:mod:`chain.held`): every one the box holds back after this run."""


# ----------------------------------------------------------------------- checksums
def canonical_event(event: Any) -> str:
    """A hand event's JSON in one spelling (keys sorted, no spaces), whether it comes as
    the box's text or as PostgreSQL's ``jsonb`` read back."""
    if isinstance(event, str | bytes):
        event = json.loads(event)
    return json.dumps(event, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def game_checksum(rows: Iterable[Sequence[Any]]) -> tuple[int, str]:
    """``(events, sha256 hex)`` of a game's hand events, given as ``(seq, kind, event,
    target_seq, idempotency_key)`` in seq order: the same on both sides."""
    h = hashlib.sha256()
    n = 0
    for seq, kind, event, target, key in rows:
        h.update(f"{seq}|{kind}|{'' if target is None else target}|{key}|"
                 f"{canonical_event(event)}\n".encode())
        n += 1
    return n, h.hexdigest()


def _box_checksums(conn: sqlite3.Connection, game_ids: Sequence[int]) -> dict[int, tuple]:
    out: dict[int, tuple] = {}
    for chunk in _chunks(list(game_ids), 500):
        by_game: dict[int, list] = {g: [] for g in chunk}
        q = ",".join("?" * len(chunk))
        for r in conn.execute(
                f"SELECT game_id, seq, kind, event, target_seq, idempotency_key FROM hand_events "
                f"WHERE game_id IN ({q}) ORDER BY game_id, seq", chunk):
            by_game[r[0]].append(r[1:])
        for g, rows in by_game.items():
            out[g] = game_checksum(rows)
    return out


def head_office_checksums(pg: Any, branch: str, game_ids: Sequence[int]) -> dict[int, tuple]:
    """Each game's checksum recomputed from the hand events PostgreSQL stored."""
    out: dict[int, tuple] = {}
    for chunk in _chunks(list(game_ids), 2000):
        by_game: dict[int, list] = {g: [] for g in chunk}
        cur = pg.execute(
            "SELECT game_id, seq, kind, event, target_seq, idempotency_key "
            "FROM chain.hand_events WHERE branch = %s AND game_id = ANY(%s) "
            "ORDER BY game_id, seq", [branch, chunk])
        for r in cur:
            by_game[r[0]].append(r[1:])
        for g, rows in by_game.items():
            out[g] = game_checksum(rows)
    return out


def _chunks(items: list, n: int) -> Iterable[list]:
    for i in range(0, len(items), n):
        yield items[i:i + n]


# ----------------------------------------------------------------------- the box side
def open_box(path: str, busy_timeout: int = 30) -> sqlite3.Connection:
    """The club file, checked and brought up to date (the change log among its sets);
    a missing or refused file is a :class:`SyncError`."""
    if not Path(path).is_file():
        raise SyncError("sync.err.no_db", path=path)
    try:
        box.prepare(path)
    except UserError as e:
        if disk_nearly_full(path):  # SQLite's check cannot open its shared memory there
            raise SyncError("sync.err.box_full", path=path) from None
        raise SyncError("sync.err.db_refused", path=path,
                        reason=getattr(e, "message", None) or str(e)) from None
    conn = sqlite3.connect(path, timeout=busy_timeout, isolation_level=None)
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout) * 1000}")
        # a file the table daemon created first has only its own tables: the web's sets
        # (the change log among them) are brought in as the web app would at its start
        box.migrate(sqlite_utils.Database(conn))
    except BaseException:
        conn.close()
        raise
    return conn


FULL_BELOW = 1 << 20
"""Free bytes on the club file's disk below which a refused check is read as a full disk."""


def disk_nearly_full(path: str) -> bool:
    """Whether the disk of the club file at ``path`` has less than :data:`FULL_BELOW`
    free (a full disk makes SQLite's own check fail with an I/O error, not "full")."""
    try:
        st = os.statvfs(os.path.dirname(os.path.abspath(path)))
    except OSError:
        return False
    return st.f_bavail * st.f_frsize < FULL_BELOW


def box_fault(e: sqlite3.Error, path: str) -> SyncError:
    """An error of the club file as one line in words with its exit status: a full disk
    or a file that cannot be written needs a person (2); a file kept busy by another
    writer past the busy timeout is tried again by the next run (1)."""
    text = str(e)
    code = getattr(e, "sqlite_errorcode", None)
    if code == sqlite3.SQLITE_FULL or "disk is full" in text:
        return SyncError("sync.err.box_full", path=path)
    if code == sqlite3.SQLITE_READONLY or "readonly" in text:
        return SyncError("sync.err.box_readonly", path=path)
    if code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) or "locked" in text:
        return SyncError("sync.err.box_busy", 1, path=path)
    return SyncError("sync.err.box_error", path=path, reason=_first_line(e))


def box_branch(conn: sqlite3.Connection, given: str | None) -> str:
    """The branch id: the one this box was synced under, or ``given`` the first time (kept
    on the box). A different one given later is refused."""
    row = conn.execute("SELECT value FROM chain_box WHERE key = 'branch'").fetchone()
    if given is not None and not BRANCH_RE.fullmatch(given):
        raise SyncError("sync.err.bad_branch", branch=given)
    if row is None:
        if given is None:
            raise SyncError("sync.err.no_branch")
        conn.execute("INSERT INTO chain_box (key, value) VALUES ('branch', ?)", [given])
        return given
    if given is not None and given != row[0]:
        raise SyncError("sync.err.other_branch", branch=given, kept=row[0])
    return row[0]


def box_counts(conn: sqlite3.Connection) -> dict[str, int]:
    """Rows per mirrored table on the box."""
    return {name: conn.execute(f"SELECT count(*) FROM {t.box_table or name}").fetchone()[0]
            for name, t in TABLES.items()}


def whole_games(conn: sqlite3.Connection, keys: dict[str, dict[Any, None]]) -> list[int]:
    """Every game a batch's changes touch, made whole in ``keys``: its row, its seats, all
    its hand events and its summary lines as they stand in the reader's snapshot, with
    the players and tables they name. The box commits a game's event, status and lines
    together; sending the game whole means no batch boundary (nor a row read newer than
    the batch's last change) can leave a game at the head office half of one state and
    half of another: a finished game without its lines, hands that do not match its
    checksum. Returns the games, sorted."""
    games = set(keys.get("games", {})) | set(keys.get("game_lines", {}))
    events = list(keys.get("hand_events", {}))
    for chunk in _chunks(events, 500):
        games.update(g for (g,) in conn.execute(
            f"SELECT DISTINCT game_id FROM hand_events WHERE id IN ({','.join('?' * len(chunk))})",
            chunk))
    ordered = sorted(games)
    for name in ("games", "game_seats", "game_lines"):
        keys[name] = dict.fromkeys(ordered)
    ev, players, tables = keys.setdefault("hand_events", {}), keys.setdefault(
        "players", {}), keys.setdefault("club_tables", {})
    for chunk in _chunks(ordered, 500):
        q = ",".join("?" * len(chunk))
        ev.update(dict.fromkeys(i for (i,) in conn.execute(
            f"SELECT id FROM hand_events WHERE game_id IN ({q}) ORDER BY id", chunk)))
        players.update(dict.fromkeys(p for (p,) in conn.execute(
            f"SELECT player_id FROM game_seats WHERE game_id IN ({q}) UNION "
            f"SELECT player_id FROM stats_lines WHERE game_id IN ({q})", chunk + chunk)))
        tables.update(dict.fromkeys(t for (t,) in conn.execute(
            f"SELECT DISTINCT table_id FROM games WHERE id IN ({q})", chunk)))
    return ordered


@dataclass
class Batch:
    """One batch read from the box in one snapshot: its last change, the rows to write
    per head office table, the games replaced whole and the touched games' checksums."""

    last_seq: int
    last_token: str
    changes: int
    rows: dict[str, list[tuple]]
    whole_games: dict[str, list[int]]
    checksums: dict[int, tuple]
    rewrites: dict[str, list[tuple]] = field(default_factory=dict)
    """Rows written over the head office's copies (an erasure's rewrites)."""

    @property
    def row_count(self) -> int:
        return sum(len(r) for r in self.rows.values())


def read_batch(conn: sqlite3.Connection, mark: int, size: int) -> Batch | None:
    """The next batch after ``mark`` (None when the box has nothing newer)."""
    conn.execute("BEGIN")
    try:
        changes = conn.execute(
            "SELECT seq, tbl, key, token FROM chain_changes WHERE seq > ? ORDER BY seq LIMIT ?",
            [mark, size]).fetchall()
        if not changes:
            return None
        keys: dict[str, dict[Any, None]] = {}
        for _, tbl, key, _ in changes:
            keys.setdefault(tbl, {})[int(key) if tbl in INT_KEYS else key] = None
        last = changes[-1]
        return read_rows(conn, keys, last[0], last[3], len(changes))
    finally:
        conn.execute("COMMIT")


def read_rows(conn: sqlite3.Connection, keys: dict[str, dict[Any, None]], last_seq: int,
              last_token: str, changes: int = 0) -> Batch:
    """A batch of the rows named by ``keys`` (per head office table) as they stand in the
    reader's snapshot, games made whole; ``last_seq`` and ``last_token`` are the mark it
    leaves."""
    rows: dict[str, list[tuple]] = {}
    whole: dict[str, list[int]] = {}
    game_keys = whole_games(conn, keys)
    if game_keys:
        whole["game_seats"] = game_keys
        whole["game_lines"] = game_keys
    for name in ORDER:
        wanted = list(keys.get(name, {}))
        if not wanted:
            continue
        t = TABLES[name]
        got: list[tuple] = []
        for chunk in _chunks(wanted, 500):
            sql = t.select.format(keys=",".join("?" * len(chunk)))
            got.extend(conn.execute(sql, chunk).fetchall())
        if t.booleans:
            idx = [t.columns.index(b) for b in t.booleans]
            got = [tuple(bool(v) if i in idx else v for i, v in enumerate(r)) for r in got]
        rows[name] = got
    touched = set(game_keys) | {r[1] for r in rows.get("hand_events", [])}
    checksums = _box_checksums(conn, sorted(touched))
    return Batch(last_seq, last_token, changes, rows, whole, checksums)


# ----------------------------------------------------------------------- the head office side
def _stop_after() -> int | None:
    value = os.environ.get(STOP_ENV)
    return int(value) if value and value.isdigit() else None


_WRITTEN = [0]
"""Rows this process has written (the test hook's count, across batches)."""


class _Writer:
    """Writes a batch's rows inside the open transaction, counting them for the test hook."""

    def __init__(self, pg: Any, branch: str, copy_at: int) -> None:
        self.pg, self.branch, self.copy_at = pg, branch, copy_at
        self.stop_after = _stop_after()

    def _hook(self, n: int) -> None:
        _WRITTEN[0] += n
        if self.stop_after is not None and _WRITTEN[0] >= self.stop_after:
            print(f"sync: test hook: stopped inside the transaction after {_WRITTEN[0]} rows",
                  flush=True)
            time.sleep(3600)

    def write(self, t: Table, rows: list[tuple], whole_games: list[int] | None) -> None:
        if whole_games:
            self.pg.execute(f"DELETE FROM chain.{t.name} WHERE branch = %s AND game_id = ANY(%s)",
                            [self.branch, whole_games])
        if not rows:
            return
        cols = ", ".join(("branch", *t.columns))
        key = ", ".join(("branch", *t.key))
        if t.mode == "upsert":
            sets = ", ".join(f"{c} = EXCLUDED.{c}" for c in t.columns if c not in t.key)
            conflict = f"ON CONFLICT ({key}) DO UPDATE SET {sets}"
        else:  # appended rows never change; a replaced game's rows were deleted above
            conflict = "ON CONFLICT DO NOTHING"
        if len(rows) >= self.copy_at:
            tmp = f"sync_{t.name}"
            self.pg.execute(f"CREATE TEMP TABLE IF NOT EXISTS {tmp} (LIKE chain.{t.name}) "
                            "ON COMMIT DELETE ROWS")
            with self.pg.cursor() as cur:
                with cur.copy(f"COPY {tmp} ({cols}) FROM STDIN") as copy:
                    for i, r in enumerate(rows, 1):
                        copy.write_row((self.branch, *r))
                        if i % 1000 == 0:
                            self._hook(1000)
            self._hook(len(rows) % 1000)
            self.pg.execute(f"INSERT INTO chain.{t.name} ({cols}) SELECT {cols} FROM {tmp} "
                            f"{conflict}")
            return
        # One INSERT of many rows per chunk, never executemany: its implicit pipeline,
        # when the server refuses a row, may fail again while it ends, and psycopg then
        # logs "error ignored terminating Pipeline" on stderr, depending on how the
        # server's answers interleave with the rows still being sent.
        marks = "(" + ", ".join(["%s"] * (len(t.columns) + 1)) + ")"
        with self.pg.cursor() as cur:
            for chunk in _chunks(rows, 200):
                cur.execute(f"INSERT INTO chain.{t.name} ({cols}) VALUES "
                            f"{', '.join([marks] * len(chunk))} {conflict}",
                            [v for r in chunk for v in (self.branch, *r)])
                self._hook(len(chunk))


def _mark(pg: Any, branch: str, lock: bool = False) -> tuple[int, str] | None:
    row = pg.execute("SELECT mark, token FROM chain.sync_marks WHERE branch = %s AND tbl = %s"
                     + (" FOR UPDATE" if lock else ""), [branch, MARK]).fetchone()
    return (int(row[0]), row[1]) if row else None


def _forget_branch(pg: Any, branch: str) -> None:
    for name in ("member_links", "game_checksums", "game_lines", "audit_log", "hand_events",
                 "game_seats",
                 "games", "club_tables", "players", "settings", "sync_marks"):
        pg.execute(f"DELETE FROM chain.{name} WHERE branch = %s", [branch])


def write_batch(pg: Any, branch: str, batch: Batch, expected: tuple[int, str] | None,
                copy_at: int = COPY_AT, resend: bool = False) -> bool:
    """Write ``batch`` and move the mark in one transaction. False (nothing written) when
    another sync of this branch moved the mark meanwhile."""
    with pg.transaction():
        pg.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [f"jantaku.sync.{branch}"])
        # a batch lost to a crash of PostgreSQL right after its commit takes its mark with
        # it (same transaction): the box sends it again, so the commit need not wait for disk
        pg.execute("SET LOCAL synchronous_commit TO off")
        pg.execute("INSERT INTO chain.branches (branch, first_sync_at, last_sync_at) "
                   "VALUES (%s, now(), now()) ON CONFLICT (branch) DO UPDATE "
                   "SET last_sync_at = now()", [branch])
        if _mark(pg, branch, lock=True) != expected:
            return False
        if resend:
            if not branches.take_resend(pg, branch):
                raise SyncError("sync.err.resend_not_allowed", branch=branch)
            _forget_branch(pg, branch)
        w = _Writer(pg, branch, copy_at)
        for name in ORDER:
            t = TABLES[name]
            rows = batch.rows.get(name, [])
            if name == "hand_events" and rows:
                rows = _events_not_there(pg, branch, batch, rows)
            whole = batch.whole_games.get(name)
            if rows or whole:
                w.write(t, rows, whole)
        for name, rows in batch.rewrites.items():
            w.write(replace(TABLES[name], mode="upsert"), rows, None)
        if batch.checksums:
            w.write(Table("game_checksums", ("game_id", "events", "checksum"), ("game_id",),
                          "", "upsert"),
                    [(g, n, c) for g, (n, c) in sorted(batch.checksums.items())], None)
        pg.execute("INSERT INTO chain.sync_marks (branch, tbl, mark, token, updated_at) "
                   "VALUES (%s, %s, %s, %s, now()) ON CONFLICT (branch, tbl) DO UPDATE SET "
                   "mark = EXCLUDED.mark, token = EXCLUDED.token, updated_at = now()",
                   [branch, MARK, batch.last_seq, batch.last_token])
    return True


def _events_not_there(pg: Any, branch: str, batch: Batch, rows: list[tuple]) -> list[tuple]:
    """The batch's hand events less those of games the head office already holds whole
    (its stored checksum is the box's and it holds that many events: the log is
    append-only, so the same checksum means the same events; the check after the run
    recomputes it); a game sent whole again costs only its changed rows."""
    same: set[int] = set()
    games = sorted(batch.checksums)
    for chunk in _chunks(games, 5000):
        for g, n, c, stored in pg.execute(
                "SELECT c.game_id, c.events, c.checksum, (SELECT count(*) FROM chain.hand_events e "
                "WHERE e.branch = c.branch AND e.game_id = c.game_id) FROM chain.game_checksums c "
                "WHERE c.branch = %s AND c.game_id = ANY(%s)", [branch, chunk]):
            if batch.checksums.get(g) == (n, c) and stored == n:
                same.add(g)
    return [r for r in rows if r[1] not in same] if same else rows


def head_office_counts(pg: Any, branch: str) -> dict[str, int]:
    """Rows per mirrored table of ``branch`` at the head office."""
    return {name: pg.execute(f"SELECT count(*) FROM chain.{name} WHERE branch = %s",
                             [branch]).fetchone()[0] for name in TABLES}


def _check_mark(conn: sqlite3.Connection, mark: tuple[int, str] | None, branch: str) -> None:
    if mark is None or mark[0] == 0:
        return
    row = conn.execute("SELECT token FROM chain_changes WHERE seq = ?", [mark[0]]).fetchone()
    if row is None or row[0] != mark[1]:
        raise SyncError("sync.err.restored", branch=branch, mark=mark[0])


# ----------------------------------------------------------------------- the run
def run(db_path: str, url: str, branch: str | None = None, *, batch_size: int = BATCH,
        copy_at: int = COPY_AT, resend: bool = False, progress: Any = None,
        limits: sync_limits.Limits | None = None) -> Result:
    """Send every change of the club file at ``db_path`` newer than the head office's mark
    to ``url``, batch by batch, then verify. ``progress(text)`` is told after each batch
    of a long sync; ``limits`` bound every wait (:mod:`sync_limits`). Raises
    :class:`SyncError` (with its exit status) when it cannot."""
    started = time.perf_counter()
    limits = limits or sync_limits.Limits()
    try:
        box = open_box(db_path, limits.box_busy_timeout)
        try:
            name = box_branch(box, branch)
            pg = _connect(url, limits)
            try:
                return _run(box, pg, name, batch_size, copy_at, resend, progress, started,
                            limits)
            finally:
                pg.close()
        finally:
            box.close()
    except sqlite3.Error as e:
        raise box_fault(e, db_path) from None
    except OSError as e:  # the box's own disk or files (a temporary file on a full disk)
        key = "sync.err.box_full" if e.errno == errno.ENOSPC else "sync.err.box_error"
        raise SyncError(key, path=db_path, reason=_first_line(e)) from None


def _connect(url: str, limits: sync_limits.Limits | None = None) -> Any:
    psycopg = pg_schema.require_psycopg()
    limits = limits or sync_limits.Limits()
    try:
        pg = sync_limits.bounded_connection(psycopg, limits.answer).connect(
            url, autocommit=True, **limits.connect_args())
    except psycopg.OperationalError as e:
        raise SyncError("sync.err.unreachable", 1, reason=_first_line(e)) from None
    try:
        for sql in ["SET TIME ZONE 'UTC'", *limits.session_sql()]:
            pg.execute(sql)
        pg_schema.migrate(pg)
    except (psycopg.Error, sync_limits.Silent) as e:
        pg.close()
        timed_out = sync_limits.fault(psycopg, e, limits)
        if timed_out:
            raise SyncError(timed_out[0], 1, done="0", **timed_out[1]) from None
        if isinstance(e, psycopg.OperationalError):
            raise SyncError("sync.err.unreachable", 1, reason=_first_line(e)) from None
        # reached, but refused: rights, a schema it cannot migrate
        raise SyncError("sync.err.head_office_refused", reason=_first_line(e)) from None
    return pg


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__


def _run(box: sqlite3.Connection, pg: Any, branch: str, batch_size: int, copy_at: int,
         resend: bool, progress: Any, started: float,
         limits: sync_limits.Limits | None = None) -> Result:

    psycopg = pg_schema.require_psycopg()
    res = Result(branch)
    touched: set[int] = set()
    position = 0
    try:
        owner = branches.role_branch(pg)
        if owner is not None and owner != branch:
            raise SyncError("sync.err.not_your_branch", branch=branch, owner=owner or "-")
        mark = _mark(pg, branch)
        if resend:
            expected_first = mark
            position = 0
        else:
            _check_mark(box, mark, branch)
            expected_first = mark
            position = mark[0] if mark else 0
        pending = box.execute("SELECT count(*) FROM chain_changes WHERE seq > ?",
                              [position]).fetchone()[0]
        expected = expected_first
        first = True
        while True:
            batch = read_batch(box, position, batch_size)
            if batch is None:
                break
            erasure.extend(box, batch, TABLES, _box_checksums)
            held.keep(box, held.hold_back(batch, COLUMNS))
            bounds.check_batch(batch.rewrites, COLUMNS)
            ok = write_batch(pg, branch, batch, expected, copy_at, resend=resend and first)
            if not ok:  # another sync of this branch went first: go on from its mark
                mark = _mark(pg, branch)
                _check_mark(box, mark, branch)
                expected, position = mark, mark[0] if mark else 0
                resend = False
                continue
            held.sent(box, batch)
            first = False
            expected = (batch.last_seq, batch.last_token)
            position = batch.last_seq
            res.changes += batch.changes
            res.rows += batch.row_count
            res.batches += 1
            touched |= set(batch.checksums)
            if progress and pending > batch_size:
                rate = res.rows / max(time.perf_counter() - started, 1e-6)
                progress(lexicon.both("sync.progress", done=f"{res.changes:,}",
                                      total=f"{pending:,}", rows=f"{res.rows:,}",
                                      rate=f"{rate:,.0f}"))
        res.mark = position
        touched |= _retry_held(box, pg, branch, expected, copy_at)
        res.held = held.still_held(box)
        bad = repair.differing_games(pg, branch, sorted(touched), head_office_checksums)
        if bad:  # sent again whole from the box, then verified again
            repair.resend_games(box, pg, branch, bad, TABLES["hand_events"], _box_checksums)
            res.repaired = bad
        _verify(box, pg, branch, sorted(touched), res)
    except (psycopg.OperationalError, sync_limits.Silent) as e:
        timed_out = sync_limits.fault(psycopg, e, limits or sync_limits.Limits())
        if timed_out:
            raise SyncError(timed_out[0], 1, done=f"{res.changes:,}", **timed_out[1]) from None
        raise SyncError("sync.err.lost", 1, reason=_first_line(e),
                        done=f"{res.changes:,}") from None
    except psycopg.Error as e:  # a row the head office will not take: a person must look
        raise SyncError("sync.err.row_refused", reason=_first_line(e), mark=position,
                        done=f"{res.changes:,}") from None
    res.seconds = time.perf_counter() - started
    return res


def _retry_held(box: sqlite3.Connection, pg: Any, branch: str,
                expected: tuple[int, str] | None, copy_at: int) -> set[int]:
    """Send the records the box held back, as they stand now, in one transaction that
    leaves the mark at ``expected``; those still over a limit stay held. Returns the games
    sent (to verify)."""
    keys = held.pending(box, INT_KEYS)
    if not keys or expected is None:
        return set()
    box.execute("BEGIN")
    try:
        batch = read_rows(box, keys, expected[0], expected[1])
    finally:
        box.execute("COMMIT")
    again = held.hold_back(batch, COLUMNS)
    held.keep(box, again)
    if not write_batch(pg, branch, batch, expected, copy_at):
        return set()  # another sync of this branch went first: the next run retries
    still = {(h.tbl, h.key) for h in again}
    held.forget(box, [(t, str(k)) for t, ks in keys.items() for k in ks
                      if (t, str(k)) not in still])
    return set(batch.checksums)


def _verify(box: sqlite3.Connection, pg: Any, branch: str, games: list[int],
            res: Result) -> None:
    stored = {}
    for chunk in _chunks(games, 5000):
        for g, n, c in pg.execute("SELECT game_id, events, checksum FROM chain.game_checksums "
                                  "WHERE branch = %s AND game_id = ANY(%s)", [branch, chunk]):
            stored[g] = (n, c)
    again = head_office_checksums(pg, branch, games)
    for g in games:
        if stored.get(g) != again.get(g):
            res.differences.append(lexicon.both(
                "sync.diff.checksum", game=g, box=(stored.get(g) or (0, ""))[0],
                head=(again.get(g) or (0, ""))[0]))
    res.games_checked = len(games)
    if res.held:
        return  # a record held back is on the box only: the counts compare once it is sent
    # counts compare only in one snapshot of the box with the mark at its newest change
    box.execute("BEGIN")
    try:
        newest = box.execute("SELECT coalesce(max(seq), 0) FROM chain_changes").fetchone()[0]
        if newest != res.mark:
            return  # the box wrote meanwhile: the next run counts
        counts = box_counts(box)
    finally:
        box.execute("COMMIT")
    there = head_office_counts(pg, branch)
    res.counted = True
    for name in TABLES:
        res.counts[name] = (counts[name], there[name])
        if counts[name] != there[name]:
            res.differences.append(lexicon.both("sync.diff.count", table=name,
                                                box=counts[name], head=there[name]))
