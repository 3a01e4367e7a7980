"""Per-branch access at the head office: each branch logs in as its own PostgreSQL role,
and row-level security lets that role see and write only its own branch's rows.

* ``chain.branch_roles (role, branch)`` maps a login role to the one branch it may write.
  The roles are made by the head office's operator (``python -m headoffice admin
  add-branch``), members of the group role ``jantaku_branch`` (no login, no BYPASSRLS,
  owning nothing), with a random name and password printed once.
* Every table holding a branch's rows has ``ENABLE`` and ``FORCE ROW LEVEL SECURITY`` and
  one policy: ``branch = chain.branch_of(current_user)``, or every row for a role that
  is not a branch's (the head office's own login, which owns the schema). A branch role
  without a mapping sees nothing. The group's grants are the sync's needs and no more:
  no DDL, no mapping, no derived tables, no granting of a resend.
* **A resend** (a box restored from a backup, or a new box for a branch) deletes the
  branch's rows at the head office: it needs an allowance the operator gives
  (``allow-resend``), recorded in ``chain.ho_audit``; the resend uses it up in the same
  transaction as its first batch (:func:`take_resend`).
"""

from __future__ import annotations

import secrets
from typing import Any

from werkzeug.security import generate_password_hash

from chain.refusals import BRANCH_RE

ROLES = ("owner", "area", "branch")
"""Head office accounts: the chain's owner, an area manager, a branch manager."""
MIN_PASSWORD = 12

GROUP = "jantaku_branch"
"""The group role every branch's login role belongs to (cluster-wide, no login)."""

BRANCH_TABLES = ("branches", "settings", "players", "club_tables", "games", "game_seats",
                 "hand_events", "audit_log", "game_lines", "sync_marks", "game_checksums",
                 "member_links", "resend_allowances")
"""Every head office table keyed by branch: row-level security on each."""

_WRITES = ("settings", "players", "club_tables", "games", "game_seats", "hand_events",
           "audit_log", "game_lines", "sync_marks", "game_checksums", "member_links")


def _policies() -> str:
    out = []
    for t in BRANCH_TABLES:
        out.append(f"""
ALTER TABLE chain.{t} ENABLE ROW LEVEL SECURITY;
ALTER TABLE chain.{t} FORCE ROW LEVEL SECURITY;
CREATE POLICY own_branch ON chain.{t}
    USING ((SELECT chain.branch_of(current_user)) IS NULL
           OR branch = (SELECT chain.branch_of(current_user)))
    WITH CHECK ((SELECT chain.branch_of(current_user)) IS NULL
                OR branch = (SELECT chain.branch_of(current_user)));""")
    return "\n".join(out)


MIGRATIONS: list[tuple[int, str, str]] = [
    (20, "branch_access", f"""
DO $$ BEGIN
    CREATE ROLE {GROUP} NOLOGIN NOBYPASSRLS;
EXCEPTION WHEN duplicate_object THEN NULL;
END $$;
CREATE TABLE chain.branch_roles (
    role name PRIMARY KEY,
    branch text NOT NULL UNIQUE REFERENCES chain.branches(branch),
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE chain.resend_allowances (
    id bigserial PRIMARY KEY,
    branch text NOT NULL REFERENCES chain.branches(branch),
    allowed_by text NOT NULL CHECK (length(allowed_by) BETWEEN 1 AND 100),
    reason text NOT NULL CHECK (length(reason) BETWEEN 1 AND 500),
    allowed_at timestamptz NOT NULL DEFAULT now(),
    used_at timestamptz
);
CREATE TABLE chain.ho_audit (
    id bigserial PRIMARY KEY,
    at timestamptz NOT NULL DEFAULT now(),
    actor text NOT NULL CHECK (length(actor) BETWEEN 1 AND 100),
    action text NOT NULL,
    branch text,
    reason text NOT NULL DEFAULT '' CHECK (length(reason) <= 500),
    details jsonb NOT NULL DEFAULT '{{}}'
);
CREATE FUNCTION chain.branch_of(r name) RETURNS text
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog AS $f$
    SELECT CASE
        WHEN (SELECT rolsuper FROM pg_roles WHERE rolname = r) THEN NULL
        WHEN pg_has_role(r, '{GROUP}', 'MEMBER')
            THEN coalesce((SELECT branch FROM chain.branch_roles WHERE role = r), '')
        ELSE NULL END
$f$;
REVOKE ALL ON FUNCTION chain.branch_of(name) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION chain.branch_of(name) TO PUBLIC;
GRANT USAGE ON SCHEMA chain TO {GROUP};
GRANT SELECT ON chain.migrations TO {GROUP};
GRANT SELECT ON chain.branches TO {GROUP};
GRANT INSERT (branch, first_sync_at, last_sync_at), UPDATE (last_sync_at)
    ON chain.branches TO {GROUP};
GRANT SELECT, INSERT, UPDATE, DELETE ON {", ".join("chain." + t for t in _WRITES)}
    TO {GROUP};
GRANT SELECT, UPDATE (used_at) ON chain.resend_allowances TO {GROUP};
{_policies()}
"""),
    (22, "ho_secret", """
CREATE TABLE chain.ho_secret (
    one boolean PRIMARY KEY DEFAULT true CHECK (one),
    key text NOT NULL CHECK (length(key) >= 32),
    created_at timestamptz NOT NULL DEFAULT now()
);
"""),
    (23, "ho_accounts", """
CREATE TABLE chain.ho_accounts (
    name text PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 64),
    pw_hash text NOT NULL,
    role text NOT NULL CHECK (role IN ('owner', 'area', 'branch')),
    branch text REFERENCES chain.branches(branch),
    created_at timestamptz NOT NULL DEFAULT now(),
    CHECK ((role = 'branch') = (branch IS NOT NULL))
);
CREATE TABLE chain.ho_signin_attempts (
    id bigserial PRIMARY KEY,
    name text NOT NULL,
    ip text NOT NULL,
    ok boolean NOT NULL,
    at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ho_signin_attempts_at ON chain.ho_signin_attempts (at);
"""),
]
"""The head office's steps for per-branch access (numbered after the core's); its
session key lives in ``chain.ho_secret``, its accounts (``headoffice/signin.py``) in
``chain.ho_accounts``: no branch login may read either."""


def session_key(pg: Any) -> str:
    """The head office's session key: made once at random and kept in PostgreSQL, so
    every process of the head office signs cookies alike and no constant key is ever
    used."""
    pg.execute("INSERT INTO chain.ho_secret (key) VALUES (%s) ON CONFLICT DO NOTHING",
               [secrets.token_urlsafe(48)])
    return str(pg.execute("SELECT key FROM chain.ho_secret").fetchone()[0])


class AdminError(Exception):
    """An operator's command that cannot be done; ``key`` and ``values`` word it."""

    def __init__(self, key: str, **values: Any) -> None:
        super().__init__(key)
        self.key, self.values = key, values


def role_branch(pg: Any) -> str | None:
    """The branch the connected role may write, or None for the head office's own login
    (which may write every branch). A branch role without a branch gives ``''``."""
    return pg.execute("SELECT chain.branch_of(current_user)").fetchone()[0]


def add_branch(pg: Any, branch: str, name: str, actor: str) -> tuple[str, str]:
    """Register ``branch`` with its display ``name`` and make its login role; returns
    ``(role, password)`` (the password is not kept anywhere in readable form)."""
    from psycopg import sql

    if not BRANCH_RE.fullmatch(branch):
        raise AdminError("sync.err.bad_branch", branch=branch)
    role = "jantaku_b_" + secrets.token_hex(8)
    password = secrets.token_urlsafe(24)
    with pg.transaction():
        if pg.execute("SELECT 1 FROM chain.branch_roles WHERE branch = %s",
                      [branch]).fetchone():
            raise AdminError("hoadmin.err.has_role", branch=branch)
        pg.execute("INSERT INTO chain.branches (branch, name) VALUES (%s, %s) "
                   "ON CONFLICT (branch) DO UPDATE SET name = EXCLUDED.name", [branch, name])
        pg.execute(sql.SQL("CREATE ROLE {} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE "
                           "NOBYPASSRLS NOREPLICATION INHERIT PASSWORD {} IN ROLE {}").format(
            sql.Identifier(role), sql.Literal(password), sql.Identifier(GROUP)))
        pg.execute("INSERT INTO chain.branch_roles (role, branch) VALUES (%s, %s)",
                   [role, branch])
        audit(pg, actor, "add_branch", branch, "", {"role": role, "name": name})
    return role, password


def add_account(pg: Any, name: str, password: str, role: str, branch: str | None,
                actor: str) -> None:
    """A head office account (audited); refused in words (``AdminError``)."""
    name = " ".join(name.split()).casefold()
    if not name or len(name) > 64 or not name.isprintable():
        raise AdminError("hoadmin.err.bad_account")
    if role not in ROLES or (role == "branch") != bool(branch):
        raise AdminError("hoadmin.err.bad_role")
    if len(password) < MIN_PASSWORD:
        raise AdminError("hoadmin.err.short_password", most=MIN_PASSWORD)
    with pg.transaction():
        if branch and not pg.execute("SELECT 1 FROM chain.branches WHERE branch = %s",
                                     [branch]).fetchone():
            raise AdminError("hoadmin.err.no_branch", branch=branch)
        if pg.execute("SELECT 1 FROM chain.ho_accounts WHERE name = %s", [name]).fetchone():
            raise AdminError("hoadmin.err.has_account", name=name)
        pg.execute("INSERT INTO chain.ho_accounts (name, pw_hash, role, branch) "
                   "VALUES (%s, %s, %s, %s)",
                   [name, generate_password_hash(password, method="scrypt"), role, branch])
        audit(pg, actor, "add_account", branch, "", {"name": name, "role": role})


def allow_resend(pg: Any, branch: str, actor: str, reason: str) -> int:
    """Allow one resend of ``branch`` (recorded in ``chain.ho_audit``); its id."""
    with pg.transaction():
        if not pg.execute("SELECT 1 FROM chain.branches WHERE branch = %s",
                          [branch]).fetchone():
            raise AdminError("hoadmin.err.no_branch", branch=branch)
        if not actor.strip() or not reason.strip():
            raise AdminError("hoadmin.err.need_reason")
        row = pg.execute("INSERT INTO chain.resend_allowances (branch, allowed_by, reason) "
                         "VALUES (%s, %s, %s) RETURNING id",
                         [branch, actor[:100], reason[:500]]).fetchone()
        audit(pg, actor, "allow_resend", branch, reason, {"allowance": row[0]})
    return int(row[0])


def take_resend(pg: Any, branch: str) -> bool:
    """Use up an allowance to resend ``branch``, inside the resend's transaction (a
    resend rolled back leaves it unused). False when the operator gave none."""
    row = pg.execute(
        "UPDATE chain.resend_allowances SET used_at = now() WHERE id = (SELECT id FROM "
        "chain.resend_allowances WHERE branch = %s AND used_at IS NULL ORDER BY id LIMIT 1 "
        "FOR UPDATE) RETURNING id", [branch]).fetchone()
    return row is not None


def audit(pg: Any, actor: str, action: str, branch: str | None, reason: str,
          details: dict[str, Any]) -> None:
    """One row of the head office's own audit log."""
    from psycopg.types.json import Jsonb

    pg.execute("INSERT INTO chain.ho_audit (actor, action, branch, reason, details) "
               "VALUES (%s, %s, %s, %s, %s)",
               [actor[:100], action, branch, reason[:500], Jsonb(details)])
