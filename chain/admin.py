"""``python -m headoffice admin``: the head office operator's commands.

* ``add-branch ID --name 表示名``: register a branch with its display name and make its
  own PostgreSQL login; the connection settings are printed once (the password is not
  kept in readable form anywhere).
* ``add-account NAME --role owner|area|branch [--branch ID]``: a head office account,
  its password read from the first line of standard input (never an argument).
* ``allow-resend ID --by WHO --reason WHY``: let that branch's next ``sync --resend``
  replace its rows at the head office (once), recorded in ``chain.ho_audit``.

Every refusal is one line in both languages on stderr, exit 2.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import lexicon
from chain import branches, pg_schema


def add_arguments(p: Any) -> None:
    """The ``admin`` command's arguments."""
    p.add_argument("--db", default=os.environ.get("JANTAKU_HEADOFFICE_DB"),
                   help="the head office's database as its owner, postgresql://... "
                   "(or $JANTAKU_HEADOFFICE_DB)")
    sub = p.add_subparsers(dest="action", required=True, metavar="ACTION",
                          help="add-branch, add-account or allow-resend")
    a = sub.add_parser("add-branch", help="register a branch and make its own login")
    a.add_argument("branch", metavar="ID")
    a.add_argument("--name", required=True, help="the branch's display name")
    a.add_argument("--by", default=os.environ.get("USER") or "operator",
                   help="who does it (for the audit)")
    c = sub.add_parser("add-account", help="a head office account (password on stdin)")
    c.add_argument("name", metavar="NAME")
    c.add_argument("--role", required=True, choices=("owner", "area", "branch"))
    c.add_argument("--branch", help="the branch of a branch manager")
    c.add_argument("--by", default=os.environ.get("USER") or "operator",
                   help="who does it (for the audit)")
    r = sub.add_parser("allow-resend", help="allow one resend of a branch (audited)")
    r.add_argument("branch", metavar="ID")
    r.add_argument("--by", required=True, help="who allows it")
    r.add_argument("--reason", required=True, help="why (for the audit)")


def main(args: Any) -> int:
    """Run one operator's command; returns the exit status."""
    try:
        if not args.db:
            raise branches.AdminError("hoadmin.err.no_db")
        psycopg = pg_schema.require_psycopg()
        try:
            conn = pg_schema.connect(args.db, connect_timeout=10)
        except psycopg.OperationalError as e:
            raise branches.AdminError("hoadmin.err.db", reason=str(e).strip().splitlines()[0]
                                      if str(e).strip() else type(e).__name__) from None
        with conn:
            try:
                pg_schema.migrate(conn)
                if branches.role_branch(conn) is not None:
                    raise branches.AdminError("hoadmin.err.branch_login")
                if args.action == "add-branch":
                    name = clean_name(args.name)
                    if not name:
                        raise branches.AdminError("hoadmin.err.bad_name")
                    role, password = branches.add_branch(conn, args.branch, name, args.by)
                    print(lexicon.both("hoadmin.added", branch=args.branch, name=name,
                                       role=role, password=password), flush=True)
                elif args.action == "add-account":
                    password = sys.stdin.readline().rstrip("\n")
                    branches.add_account(conn, args.name, password, args.role, args.branch,
                                       args.by)
                    print(lexicon.both("hoadmin.account_added", name=args.name,
                                       role=args.role), flush=True)
                else:
                    n = branches.allow_resend(conn, args.branch, args.by, args.reason)
                    print(lexicon.both("hoadmin.allowed", branch=args.branch, id=n),
                          flush=True)
            except psycopg.Error as e:
                raise branches.AdminError("hoadmin.err.db", reason=str(e).strip()
                                          .splitlines()[0]) from None
    except branches.AdminError as e:
        print(f"headoffice admin: {lexicon.both(e.key, **e.values)}", file=sys.stderr,
              flush=True)
        return 2
    except pg_schema.ChainUnavailable as e:
        print(f"headoffice admin: {e}", file=sys.stderr, flush=True)
        return 2
    return 0


def clean_name(text: str, limit: int = 100) -> str:
    """A display name without control characters, trimmed; '' when none is left or it is
    longer than ``limit``."""
    out = "".join(ch for ch in text if ch.isprintable()).strip()
    return out if len(out) <= limit else ""
