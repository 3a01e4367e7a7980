"""``python -m club.notify``: the word sender, a service of its own
(``deploy/jantaku-notify.service``). It checks the club file and the ``[notify]`` settings,
takes the one-per-club lock, then empties the outbox until stopped (``--once``: what is
due now, then stop). A refusal is one line on stderr, exit status 2."""

from __future__ import annotations

import argparse
import sys

from club import command
from club.notify import outbox
from club.notify.config import load
from club.notify.sender import run


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The sender's options."""
    command.worker_arguments(p, "notify", "send")


def start(args: argparse.Namespace) -> int:
    """Check the club file and the settings, then send (raises :class:`UserError`)."""
    with command.worker_file(args.db, lambda: load(args.config), "notify",
                             [outbox.MIGRATIONS], "notify.") as (db, settings):
        return run(db, settings, once=args.once)


def main(argv: list[str] | None = None) -> int:
    """Run the sender from the command line; returns the exit status."""
    return command.main("club.notify", "Send the outbox's word by LINE and e-mail.",
                        add_arguments, start, argv)


if __name__ == "__main__":
    sys.exit(main())
