"""``python -m club.backup``: copy the live club file into the backup folder (checked),
keeping the newest N; a timer's job (``deploy/jantaku-backup.timer``). Restoring one is
a person's decision: ``python -m web restore``. A refusal is one line on stderr, exit
status 2."""

from __future__ import annotations

import argparse
import os
import sys

from club import backup as backups
from club import command


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The backup's options."""
    p.add_argument("--db", help="the club's SQLite file (or $JANTAKU_DB)")
    p.add_argument("--dir", required=True, help="the backup folder (created if missing)")
    p.add_argument("--keep", type=int, default=48,
                   help="backups to keep, the oldest beyond are removed (default 48)")


def run(db: str, folder: str, keep: int) -> int:
    """Take one backup and say what was kept (raises :class:`~club.backup.BackupError`,
    its notes said first)."""
    notes: list[str] = []
    try:
        path = backups.backup(db, folder, keep=keep, notes=notes)
    finally:
        for note in notes:
            print(note, flush=True)
    kept = len(backups.list_backups(folder))
    print(backups.words("backup.done", path=str(path), size=f"{path.stat().st_size:,}",
                        kept=kept), flush=True)
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``python -m club.backup``."""
    return command.parser("club.backup", "Copy the live club file into a backup folder.",
                          add_arguments)


def main(argv: list[str] | None = None) -> int:
    """Run one backup from the command line; returns the exit status."""
    p = build_parser()
    args = p.parse_args(argv)
    db = args.db or os.environ.get("JANTAKU_DB")
    if not db:
        p.error("give the database with --db PATH (or set JANTAKU_DB)")
    return command.run("club.backup", lambda a: run(db, a.dir, a.keep), args,
                       (backups.BackupError,))


if __name__ == "__main__":
    sys.exit(main())
