"""``python -m club.printing``: the print worker, a service of its own
(``deploy/jantaku-print.service``). It prints the print queue of the club file on the
printer of ``club.toml``'s ``[printer]`` until SIGTERM or Ctrl-C (``--once``: what is due
now, then stop). One worker per club file: a second is refused (it would put the first
one's job in hand back in the queue and print it twice). A refusal is one line on
stderr, exit status 2."""

from __future__ import annotations

import argparse
import signal
import sys

import clubdb
import lexicon
from club import command
from club.db import Db, connect
from club.printing import config, queue
from club.printing.config import PrinterConfig
from club.printing.worker import Worker


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The worker's options."""
    command.worker_arguments(p, "printer", "print")


def start(args: argparse.Namespace) -> int:
    """Check the club file and the printer's settings, then print (raises
    :class:`UserError`)."""
    with command.worker_file(args.db, lambda: config.load(args.config), "print",
                             [queue.MIGRATIONS], "print.err.") as (db_path, cfg):
        db = connect(db_path)
        try:
            # a worker started before the upgraded web app finds its table
            clubdb.migrate(db, [queue.MIGRATIONS])
            return _serve(db, cfg, db_path, once=args.once)
        finally:
            db.conn.close()


def _serve(db: Db, cfg: PrinterConfig, db_path: str, *, once: bool) -> int:
    worker = Worker(db, cfg)
    if cfg.kind == "none":
        print(lexicon.both("print.console.no_printer"), flush=True)
    if once:
        worker.beat(force=True)
        queue.recover(db)
        while worker.step() == 0:
            pass
        return 0
    signal.signal(signal.SIGTERM, lambda *_: worker.stopping.set())
    print(f"Printing the queue of {db_path} on {cfg.where() or cfg.kind} "
          f"({cfg.width_mm} mm)", flush=True)
    try:
        worker.run()
    except KeyboardInterrupt:
        pass
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the worker from the command line; returns the exit status."""
    return command.main("club.printing", "Print the print queue on the receipt printer.",
                        add_arguments, start, argv)


if __name__ == "__main__":
    sys.exit(main())
