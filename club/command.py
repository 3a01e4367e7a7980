"""What the command line of every background process shares: its parser made from its
options, and a refusal said as one line on stderr (exit status 2), never a traceback."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

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
