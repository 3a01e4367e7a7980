"""``python -m club.notify``: the word sender, a service of its own
(``deploy/jantaku-notify.service``). It checks the club file and the ``[notify]`` settings,
takes the one-per-club lock, then empties the outbox until stopped (``--once``: what is
due now, then stop). A refusal is one line on stderr, exit status 2."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from club import command
from club.db import AlreadyRunning, one_per_club, prepare
from club.errors import UserError
from club.notify import outbox
from club.notify.config import load
from club.notify.sender import run


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The sender's options."""
    p.add_argument("--db", help="the club's SQLite file (or $JANTAKU_DB)")
    p.add_argument("--config", required=True, help="club.toml with a [notify] section")
    p.add_argument("--once", action="store_true", help="send what is due now, then stop")


def start(args: argparse.Namespace) -> int:
    """Check the club file and the settings, then send (raises :class:`UserError`)."""
    db = args.db or os.environ.get("JANTAKU_DB")
    if not db or not Path(db).is_file():
        raise UserError("notify.no_db", path=str(db))
    settings = load(args.config)
    prepare(db, [outbox.MIGRATIONS])  # the sender's own table; the web app checks the rest
    try:
        with one_per_club(db, "notify"):
            return run(db, settings, once=args.once)
    except AlreadyRunning as e:
        raise UserError("notify.already_running", path=e.path) from None


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``python -m club.notify``."""
    return command.parser("club.notify", "Send the outbox's word by LINE and e-mail.",
                          add_arguments)


def main(argv: list[str] | None = None) -> int:
    """Run the sender from the command line; returns the exit status."""
    return command.run("club.notify", start, build_parser().parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
