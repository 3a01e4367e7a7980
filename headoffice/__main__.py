"""``python -m headoffice``: the chain's head office, for the chain's owner and managers.

    python -m headoffice serve --db postgresql://... [--host H] [--port 8100] [--behind-proxy]
    python -m headoffice admin --db postgresql://... add-branch ID --name 表示名
    python -m headoffice admin --db postgresql://... add-account NAME --role owner|area|branch
    python -m headoffice admin --db postgresql://... allow-resend ID --by WHO --reason WHY

``serve`` answers the pages from PostgreSQL (read-only over what the branches synced);
``admin`` is the operator's (docs/chain.md, "Per-branch access"). A refusal is one line
on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys

import lexicon
from chain import admin, pg_schema
from headoffice import create_app
from web import server
from web.limits import DEFAULT_BODY_LIMIT

PORT = 8100


class Refusal(Exception):
    """A problem the operator can fix; printed as one line."""


def _positive(value: str) -> int:
    if not value.isascii() or not value.isdigit() or int(value) < 1:
        raise argparse.ArgumentTypeError(f"give a whole number of 1 or more, not {value!r}")
    return int(value)


def _say(text: str = "") -> None:
    print(text, flush=True)


def serve(args: argparse.Namespace) -> int:
    """Serve the head office's pages until Ctrl-C or SIGTERM."""
    url = args.db or os.environ.get("JANTAKU_HEADOFFICE_DB")
    if not url or not url.startswith(("postgresql://", "postgres://")):
        raise Refusal("give the head office's database with --db postgresql://... "
                      "(or set JANTAKU_HEADOFFICE_DB)")
    if not server.loopback(args.host) and not args.behind_proxy:
        raise Refusal(lexicon.both("hoadmin.err.not_loopback", host=args.host))
    try:
        app = create_app(url, secret=os.environ.get("JANTAKU_SECRET_KEY", ""))
    except pg_schema.ChainUnavailable as e:
        raise Refusal(str(e)) from None
    except Exception as e:  # noqa: BLE001 (psycopg's errors: the server unreachable, refused)
        if type(e).__module__.split(".")[0] != "psycopg":
            raise
        raise Refusal(f"cannot reach the head office's database: {str(e).strip()[:200]}") \
            from None
    try:
        socks = server.bind(args.host, args.port)
    except OSError as e:
        raise Refusal(f"cannot listen on {args.host}:{args.port}: {e.strerror or e}; choose "
                      "another port with --port (0 = any free port)") from None
    base = server.address(args.host, socks[0].getsockname()[1])
    server.stop_on_sigterm()
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)
    _say(f"Serving the head office on {base}/")
    try:
        # its own sign-in keeps its own throttle: nothing is held back in front of Flask
        server.serve(socks, app, say=_say,
                     workers=args.workers, threads=args.threads,
                     must_wait=lambda _address: 0.0, max_body=DEFAULT_BODY_LIMIT,
                     refuse=server.worded_refusal(app))
    except KeyboardInterrupt:
        pass
    _say("Stopped.")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``python -m headoffice``."""
    p = argparse.ArgumentParser(prog="python -m headoffice",
                                description="The chain's head office over PostgreSQL.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)
    s = sub.add_parser("serve", help="serve the head office's pages")
    s.add_argument("--db", help="the head office's database, postgresql://... "
                                "(or $JANTAKU_HEADOFFICE_DB)")
    s.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    s.add_argument("--port", type=int, default=PORT,
                   help=f"port (default {PORT}; 0 = any free)")
    s.add_argument("--workers", type=_positive, default=1, help="server processes (default 1)")
    s.add_argument("--threads", type=_positive, default=server.SERVER_THREADS,
                   help=f"worker threads per process (default {server.SERVER_THREADS})")
    s.add_argument("--behind-proxy", action="store_true",
                   help="listen beyond loopback: only behind a proxy serving HTTPS")
    s.set_defaults(func=serve)
    a = sub.add_parser("admin", help="the operator's commands (add a branch and its login, "
                                     "add an account, allow a resend)")
    admin.add_arguments(a)
    a.set_defaults(func=admin.main)
    return p


def main(argv: list[str] | None = None) -> int:
    """Run a command of the head office; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except Refusal as e:
        print(f"headoffice: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"headoffice: {e.strerror or e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
