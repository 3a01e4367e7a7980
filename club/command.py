"""What the command line of every background process shares: its parser made from its
options, a refusal said as one line on stderr (exit status 2), never a traceback, and
for a worker that runs until stopped, its club file held by the one-per-club lock."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from club.db import AlreadyRunning, one_per_club, prepare
from club.errors import UserError


def parser(prog: str, description: str,
           add_arguments: Callable[[argparse.ArgumentParser], None]) -> argparse.ArgumentParser:
    """The parser of ``python -m <prog>`` with the options ``add_arguments`` adds."""
    p = argparse.ArgumentParser(prog=f"python -m {prog}", description=description)
    add_arguments(p)
    return p


def run(prog: str, start: Callable[[argparse.Namespace], int], args: argparse.Namespace,
        refusals: tuple[type[Exception], ...] = (UserError,)) -> int:
    """``start(args)``'s exit status; one of ``refusals`` is one line ``prog: words`` on
    stderr and exit status 2."""
    try:
        return start(args)
    except refusals as e:
        print(f"{prog}: {getattr(e, 'message', None) or e}", file=sys.stderr)
        return 2


def main(prog: str, description: str, add_arguments: Callable[[argparse.ArgumentParser], None],
         start: Callable[[argparse.Namespace], int], argv: list[str] | None) -> int:
    """``python -m <prog>`` run on ``argv`` (None: the command line): its exit status."""
    return run(prog, start, parser(prog, description, add_arguments).parse_args(argv))


def worker_arguments(p: argparse.ArgumentParser, section: str, doing: str) -> None:
    """A worker's options: the club file, the ``club.toml`` with its ``[section]``, and
    ``--once`` (``doing`` what is due now, then stop)."""
    p.add_argument("--db", help="the club's SQLite file (or $JANTAKU_DB)")
    p.add_argument("--config", required=True, help=f"club.toml with a [{section}] section")
    p.add_argument("--once", action="store_true", help=f"{doing} what is due now, then stop")


@contextmanager
def worker_file(given: str | None, settings: Callable[[], Any], lock: str,
                migrations: Sequence[Any], refusal: str) -> Iterator[tuple[str, Any]]:
    """The club file of a worker (``given``, else $JANTAKU_DB) and its settings (read by
    ``settings()`` once the file is there, before anything is written), the worker's own
    tables made ready (the web app checks the rest), held by the one-per-club lock
    ``lock`` while the worker runs; refused in words: ``<refusal>no_db``,
    ``<refusal>already_running``."""
    path = given or os.environ.get("JANTAKU_DB")
    if not path or not os.path.isfile(path):
        raise UserError(f"{refusal}no_db", path=str(path))
    read = settings()
    prepare(path, list(migrations))
    try:
        with one_per_club(path, lock):
            yield path, read
    except AlreadyRunning as e:
        raise UserError(f"{refusal}already_running", path=e.path) from None
