"""``python -m chain sync``: send the box's records to the chain's head office on
PostgreSQL (docs/chain.md); a timer's job (``deploy/jantaku-sync.timer``). The head
office's own pages are a Flask app: ``python -m headoffice serve``."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

import lexicon
from chain import pg_schema, sync_limits
from chain.sync import BATCH, SyncError, run


def add_arguments(p: Any) -> None:
    """The ``sync`` subcommand's arguments."""
    p.add_argument("--to", required=False, default=os.environ.get("JANTAKU_HEADOFFICE_URL"),
                   help="the head office: postgresql://... (or $JANTAKU_HEADOFFICE_URL)")
    p.add_argument("--db", help="the club's SQLite file (or $JANTAKU_DB)")
    p.add_argument("--branch", default=os.environ.get("JANTAKU_BRANCH") or None,
                   help="this box's branch id at the head office (or $JANTAKU_BRANCH; the "
                   "first sync keeps it on the box)")
    p.add_argument("--batch", type=int, default=BATCH, help=f"changes per batch (default "
                   f"{BATCH})")
    p.add_argument("--resend", action="store_true", help="send this branch again from the "
                   "start (after the box was restored from a backup)")
    sync_limits.add_arguments(p)


def run_sync(args: Any) -> int:
    """Run the sync from parsed arguments; every refusal is one line on
    stderr, never a traceback. Returns the exit status."""
    def say(text: str) -> None:
        print(text, flush=True)

    try:
        if not args.to:
            raise SyncError("sync.err.no_url")
        db = args.db or os.environ.get("JANTAKU_DB")
        if not db:
            raise SyncError("sync.err.no_db_arg")
        if args.batch < 1:
            raise SyncError("sync.err.bad_batch", value=args.batch)
        try:
            limits = sync_limits.from_args(args)
        except sync_limits.LimitError as e:
            raise SyncError(e.key, **e.values) from None
        res = run(db, args.to, args.branch, batch_size=args.batch, resend=args.resend,
                  progress=say, limits=limits)
    except SyncError as e:
        print(f"sync: {e.message}", file=sys.stderr, flush=True)
        return e.status
    except pg_schema.ChainUnavailable as e:
        print(f"sync: {e}", file=sys.stderr, flush=True)
        return 2
    for d in res.differences:
        print(f"sync: {d}", file=sys.stderr, flush=True)
    key = "sync.done" if res.changes else "sync.nothing"
    say(lexicon.both(key, branch=res.branch, changes=f"{res.changes:,}", rows=f"{res.rows:,}",
                     seconds=f"{res.seconds:.1f}", games=f"{res.games_checked:,}",
                     mark=res.mark))
    for h in res.held:  # every run says it again until the record is fixed on the box
        print(f"sync: {h.message}", file=sys.stderr, flush=True)
    return 2 if res.held else 1 if res.differences else 0


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``python -m chain``: its commands (today ``sync``)."""
    p = argparse.ArgumentParser(prog="python -m chain", description="A chain of clubs.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)
    add_arguments(sub.add_parser("sync", help="send the club's records to the head office"))
    return p


def main(argv: list[str] | None = None) -> int:
    """Run a command of the chain; returns the exit status."""
    return run_sync(build_parser().parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
