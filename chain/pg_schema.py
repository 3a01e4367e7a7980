"""The head office's schema on PostgreSQL: its own schema ``chain``, numbered migrations
recorded in ``chain.migrations``, and tables mirroring what each box sends.

Every mirrored table is keyed by ``(branch, <the box's own key>)``: a branch is one box
(one club file), named by ``python -m chain sync --branch ID``; the ids inside it are the
box's own and are never renumbered, so a row sent twice lands on the same key. Times are
``timestamptz`` (the box stores UTC ISO text); a club day is a ``date`` worked out on the
box with its own time zone and closing hour, so the head office never re-derives it.

The tables (what C2's head office reads):

``branches``
    one row per branch: ``branch`` (its id), ``name``, ``first_sync_at``,
    ``last_sync_at``.
``settings``
    ``(branch, key) -> value``: the box's club settings (``stats_settings``: its time
    zone, closing hour, ...), which a branch's 日報 needs to read times and days.
``players``
    ``(branch, id)``: the box's players (``name``, ``guest``, ``member_no``, ``active``,
    ``created_at``). Chain-wide members link to these.
``club_tables``
    ``(branch, id)``: the branch's tables (``name``, ``rule_set``), for occupancy.
``games``
    ``(branch, id)``: every game with ``status`` (live → finished → void, updated in
    place as the box changes it), ``rules`` (the rules it was played under, ``jsonb``)
    and ``money`` (its ``[money]`` switches, a column generated from ``rules``),
    ``started_at``, ``finished_at``.
``game_seats``
    ``(branch, game_id, seat)``: who sat where (``player_id`` is the branch's player).
``hand_events``
    ``(branch, id)``: the append-only event log (``event`` as ``jsonb``), UNIQUE
    ``(branch, idempotency_key)``; corrections and voids are rows of their own.
``audit_log``
    ``(branch, id)``: every staff change with who, when, why (``details`` as ``jsonb``).
``game_lines``
    ``(branch, game_id, seat)``: the money lines. The box's per-seat summary of each
    finished game (``stats_lines``: ``family``, ``club_day``, ``ended_at``, ``rank``,
    ``result``, ``final_score``, ``chips``, the counts ...). What a branch's 日報 needs is
    these lines (rank and chips per seat, the club day) joined with their game (its
    ``money`` switches, start and finish for a fee by the hour) and ``club_tables`` for
    occupancy: the same inputs ``club/daily_report.py`` reads on the box, so the same
    ``scoring.money`` arithmetic gives the same report. A corrected game's lines are
    replaced; a voided game has none (as on the box). They are also what the chain
    leaderboards and R across branches read.
``member_links``
    ``(branch, id)``: the box's append-only ``chain_links`` (a player's chain member id,
    newest row per player; ``previous_chain_id`` an id it replaced, ``merged_into`` a
    player of the same box it was merged into; see ``chain/members.py``).
``sync_marks``
    ``(branch, tbl)``: the high-water mark of each branch's sync: for ``tbl =
    'changes'`` the last change-log sequence applied, with that change's random
    ``token`` (a box restored from a backup re-uses sequences with other tokens, which is
    how the sync notices and starts over). Advanced in the same transaction as the rows.
``game_checksums``
    ``(branch, game_id)``: the box's checksum of a game's hand events (``events`` rows,
    ``checksum`` sha256 hex) as of the last sync; the sync recomputes it from the stored
    rows to verify them.

Indexes serve the head office: a member's games (``game_seats (branch, player_id)``,
``game_lines (branch, player_id, ended_at)``), games per branch per day
(``game_lines (branch, club_day)``, ``games (branch, started_at)``), chain leaderboards
(``game_lines (family, club_day)``) and a game's events in order.

psycopg is imported only inside functions: a box without the ``chain`` extra imports
this module (and ``web``) as before.
"""

from __future__ import annotations

from typing import Any

from chain import bounds, branches

SCHEMA = "chain"

MIGRATIONS: list[tuple[int, str, str]] = [
    (1, "core", """
CREATE TABLE chain.branches (
    branch text PRIMARY KEY,
    name text NOT NULL DEFAULT '',
    first_sync_at timestamptz,
    last_sync_at timestamptz
);
CREATE TABLE chain.settings (
    branch text NOT NULL REFERENCES chain.branches(branch),
    key text NOT NULL,
    value text NOT NULL,
    PRIMARY KEY (branch, key)
);
CREATE TABLE chain.players (
    branch text NOT NULL REFERENCES chain.branches(branch),
    id bigint NOT NULL,
    name text NOT NULL,
    guest boolean NOT NULL DEFAULT false,
    member_no text,
    active boolean NOT NULL DEFAULT true,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (branch, id)
);
CREATE INDEX players_member_no ON chain.players (branch, member_no);
CREATE TABLE chain.club_tables (
    branch text NOT NULL REFERENCES chain.branches(branch),
    id text NOT NULL,
    name text NOT NULL,
    rule_set text NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (branch, id)
);
CREATE TABLE chain.games (
    branch text NOT NULL REFERENCES chain.branches(branch),
    id bigint NOT NULL,
    table_id text NOT NULL,
    rule_set text NOT NULL,
    rules jsonb NOT NULL,
    money jsonb GENERATED ALWAYS AS (rules -> 'money') STORED,
    players smallint NOT NULL CHECK (players IN (3, 4)),
    status text NOT NULL CHECK (status IN ('live', 'finished', 'void')),
    start_key text NOT NULL,
    started_at timestamptz NOT NULL,
    finished_at timestamptz,
    started_by text NOT NULL DEFAULT '',
    PRIMARY KEY (branch, id)
);
CREATE INDEX games_started ON chain.games (branch, started_at);
CREATE TABLE chain.game_seats (
    branch text NOT NULL,
    game_id bigint NOT NULL,
    seat smallint NOT NULL CHECK (seat BETWEEN 0 AND 3),
    player_id bigint NOT NULL,
    confirmed_at timestamptz,
    confirmed_by text,
    PRIMARY KEY (branch, game_id, seat),
    FOREIGN KEY (branch, game_id) REFERENCES chain.games (branch, id)
);
CREATE INDEX game_seats_player ON chain.game_seats (branch, player_id);
CREATE TABLE chain.hand_events (
    branch text NOT NULL,
    id bigint NOT NULL,
    game_id bigint NOT NULL,
    seq integer NOT NULL,
    kind text NOT NULL,
    event jsonb NOT NULL,
    target_seq integer,
    idempotency_key text NOT NULL,
    request_hash text NOT NULL,
    actor text NOT NULL DEFAULT '',
    reason text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL,
    PRIMARY KEY (branch, id),
    UNIQUE (branch, idempotency_key),
    FOREIGN KEY (branch, game_id) REFERENCES chain.games (branch, id)
);
CREATE INDEX hand_events_game ON chain.hand_events (branch, game_id, seq);
CREATE TABLE chain.audit_log (
    branch text NOT NULL REFERENCES chain.branches(branch),
    id bigint NOT NULL,
    at timestamptz NOT NULL,
    actor text NOT NULL,
    action text NOT NULL,
    target text NOT NULL,
    reason text NOT NULL DEFAULT '',
    details jsonb NOT NULL DEFAULT '{}',
    PRIMARY KEY (branch, id)
);
CREATE INDEX audit_log_at ON chain.audit_log (branch, at);
CREATE TABLE chain.game_lines (
    branch text NOT NULL,
    game_id bigint NOT NULL,
    seat smallint NOT NULL,
    player_id bigint NOT NULL,
    family text NOT NULL,
    club_day date NOT NULL,
    ended_at timestamptz NOT NULL,
    players smallint NOT NULL,
    rank smallint NOT NULL,
    result double precision NOT NULL,
    final_score integer NOT NULL,
    busted integer NOT NULL,
    hands integer NOT NULL,
    wins integer NOT NULL,
    tsumo_wins integer NOT NULL,
    deal_ins integer NOT NULL,
    riichi integer NOT NULL,
    win_points integer NOT NULL,
    deal_in_points integer NOT NULL,
    chips integer NOT NULL,
    penalties integer NOT NULL,
    chombo integer NOT NULL,
    PRIMARY KEY (branch, game_id, seat),
    FOREIGN KEY (branch, game_id) REFERENCES chain.games (branch, id)
);
CREATE INDEX game_lines_day ON chain.game_lines (branch, club_day, game_id);
CREATE INDEX game_lines_player ON chain.game_lines (branch, player_id, ended_at);
CREATE INDEX game_lines_family ON chain.game_lines (family, club_day);
CREATE TABLE chain.sync_marks (
    branch text NOT NULL REFERENCES chain.branches(branch),
    tbl text NOT NULL,
    mark bigint NOT NULL,
    token text NOT NULL DEFAULT '',
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (branch, tbl)
);
CREATE TABLE chain.game_checksums (
    branch text NOT NULL,
    game_id bigint NOT NULL,
    events integer NOT NULL,
    checksum text NOT NULL,
    PRIMARY KEY (branch, game_id),
    FOREIGN KEY (branch, game_id) REFERENCES chain.games (branch, id)
);
"""),
    (2, "member_links", """
CREATE TABLE chain.member_links (
    branch text NOT NULL REFERENCES chain.branches(branch),
    id bigint NOT NULL,
    player_id bigint NOT NULL,
    chain_id text NOT NULL,
    kind text NOT NULL,
    previous_chain_id text,
    merged_into bigint,
    at timestamptz NOT NULL,
    actor text NOT NULL DEFAULT '',
    PRIMARY KEY (branch, id)
);
CREATE INDEX member_links_player ON chain.member_links (branch, player_id, id);
CREATE INDEX member_links_chain ON chain.member_links (chain_id);
"""),
]
"""``(number, name, SQL)``, applied in order, each once, each in its own transaction.
Append new steps; never edit one that has shipped."""

MIRRORED = ("players", "club_tables", "games", "game_seats", "hand_events", "audit_log",
            "game_lines", "settings", "member_links")
"""The tables that hold a branch's rows (counted on both sides by the sync's check)."""


def migrate(conn: Any, extra: list[tuple[int, str, str]] | None = None) -> list[str]:
    """Bring the head office's schema up to date on a psycopg connection and return the
    names of the steps applied now. Safe to run from several processes at once (an
    advisory lock serialises them). ``extra`` steps (another module's, numbered after
    these) are applied in the same way."""

    steps = sorted(MIGRATIONS + branches.MIGRATIONS + bounds.MIGRATIONS + list(extra or []))
    applied: list[str] = []
    # a branch's own login may not create anything: when every step is there, it need not
    if conn.execute(f"SELECT to_regclass('{SCHEMA}.migrations')").fetchone()[0]:
        have = {r[0] for r in conn.execute(f"SELECT number FROM {SCHEMA}.migrations")}
        if all(n in have for n, _, _ in steps):
            return applied
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtext('jantaku.chain.migrate'))")
        conn.execute(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}")
        conn.execute(f"CREATE TABLE IF NOT EXISTS {SCHEMA}.migrations (number integer "
                     "PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL "
                     "DEFAULT now())")
    for number, name, sql in steps:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(hashtext('jantaku.chain.migrate'))")
            done = conn.execute(f"SELECT 1 FROM {SCHEMA}.migrations WHERE number = %s",
                                [number]).fetchone()
            if done:
                continue
            conn.execute(sql)
            conn.execute(f"INSERT INTO {SCHEMA}.migrations (number, name) VALUES (%s, %s)",
                         [number, name])
            applied.append(f"{number:03d}_{name}")
    return applied


def connect(url: str, **kwargs: Any) -> Any:
    """A psycopg connection to the head office (UTC session, autocommit: the caller opens
    its transactions with ``conn.transaction()``). Raises ``ChainUnavailable`` in words
    when psycopg is not installed."""
    psycopg = require_psycopg()
    conn = psycopg.connect(url, autocommit=True, **kwargs)
    conn.execute("SET TIME ZONE 'UTC'")
    return conn


def begin_snapshot(conn: Any) -> None:
    """Open one REPEATABLE READ, READ ONLY transaction on an autocommit connection: every
    read until :func:`end_snapshot` sees the same committed state."""
    end_snapshot(conn)
    conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")


def end_snapshot(conn: Any) -> None:
    """Close the snapshot :func:`begin_snapshot` opened (nothing was written: rolled
    back); a broken connection is left to be reopened."""
    if conn.closed or conn.broken:
        return
    try:
        conn.rollback()
    except Exception:  # noqa: BLE001 (a connection lost meanwhile: the next page reopens it)
        conn.close()


def migrate_url(url: str) -> list[str]:
    """:func:`migrate` on a new connection to ``url`` (closed afterwards)."""
    with connect(url) as conn:
        return migrate(conn)


class ChainUnavailable(Exception):
    """The chain's extra (psycopg) is missing; the message says how to install it."""


def require_psycopg() -> Any:
    """psycopg 3, or :class:`ChainUnavailable` saying to install the ``chain`` extra."""
    try:
        import psycopg
    except ImportError:
        import lexicon

        raise ChainUnavailable(lexicon.t("sync.err.no_psycopg")) from None
    return psycopg
