"""``python -m web``: run the club web app, add staff accounts, or start the whole demo club.

    python -m web serve --db PATH [--host 127.0.0.1] [--port 8000]
    python -m web create-staff NAME --db PATH [--password-stdin] [--reset]
    python -m web demo [--host 127.0.0.1] [--port 8000] [--dir DIR]

``serve`` prints ``Serving on http://HOST:PORT/`` once it listens (``--port 0``
picks a free port). ``demo`` writes a demo club (database, ``club.toml`` with
four simulated tables in different modes), starts ``python -m tablectl serve``
on it and the web app, and prints the staff and tablet addresses; Ctrl-C (or
SIGTERM) stops both. Library errors become one line on stderr, exit status 2.
"""

from __future__ import annotations

import argparse
import getpass
import logging
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from werkzeug.serving import make_server

from .errors import UserError


class CliError(Exception):
    """A problem the user can fix; printed as one line."""


def _say(text: str = "") -> None:
    print(text, flush=True)


# ----------------------------------------------------------------------------- app + server
def _secret_for(db_path: Path) -> str:
    """JANTAKU_SECRET_KEY, else a key kept beside the database (so restarts keep sessions)."""
    key = os.environ.get("JANTAKU_SECRET_KEY")
    if key:
        return key
    path = db_path.parent / (db_path.name + ".secret")
    if not path.exists():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_hex(32))
    return path.read_text().strip()


def build_app(db: str, *, secure_cookies: bool = True, public_url: str | None = None,
              secret: str | None = None):
    """The Flask app on database ``db`` (created and migrated if new)."""
    from . import create_app

    path = Path(db).resolve()
    if not path.parent.is_dir():
        raise CliError(f"the folder for the database does not exist: {path.parent}")
    config = {"DATABASE": str(path), "SECRET_KEY": secret or _secret_for(path),
              "COOKIE_SECURE": secure_cookies}
    if public_url:
        config["PUBLIC_URL"] = public_url
    return create_app(config)


def _listen(host: str, port: int, app):
    """A threaded HTTP server bound to host:port (one thread per request)."""
    try:
        return make_server(host, port, app, threaded=True)
    except OSError as e:
        reason = e.strerror or str(e)
    except SystemExit:  # werkzeug reports a port in use itself, then exits
        reason = "the address is in use"
    raise CliError(f"cannot listen on {host}:{port}: {reason}; choose another "
                   "port with --port (0 = any free port)")


def _stop_on_sigterm() -> None:
    # systemd and the demo's test stop us with SIGTERM: leave like Ctrl-C does.
    def handler(_signum, _frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, handler)
    # Ctrl-C must work even if we were started with SIGINT ignored (a background job).
    signal.signal(signal.SIGINT, signal.default_int_handler)


def _address(host: str, port: int) -> str:
    shown = host
    if host in ("0.0.0.0", "", "::"):
        shown = _lan_ip()
    if ":" in shown:
        shown = f"[{shown}]"
    return f"http://{shown}:{port}"


def _lan_ip() -> str:
    """This machine's address on the local network (for tablet URLs), else 127.0.0.1."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))  # no packet is sent: this only picks a route
            return s.getsockname()[0]
    except OSError:
        return "127.0.0.1"


def cmd_serve(args) -> int:
    """Run the web app (threaded server) until Ctrl-C / SIGTERM."""
    db = args.db or os.environ.get("JANTAKU_DB")
    if not db:
        raise CliError("give the database with --db PATH (or set JANTAKU_DB)")
    app = build_app(db, secure_cookies=not args.insecure_cookies, public_url=args.public_url)
    if args.behind_proxy:
        # Trust one proxy's X-Forwarded-For/-Proto/-Host: the sign-in rate limit then
        # counts the tablet's address, not the proxy's.
        from werkzeug.middleware.proxy_fix import ProxyFix
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=1, x_proto=1, x_host=1)
    server = _listen(args.host, args.port, app)
    _stop_on_sigterm()
    _say(f"Serving on {_address(args.host, server.server_port)}/ (database {Path(db).resolve()})")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    _say("Stopped.")
    return 0


def cmd_create_staff(args) -> int:
    """Add a staff account (or --reset its password)."""
    from .auth import create_staff, set_staff_password
    from .db import get_db

    db = args.db or os.environ.get("JANTAKU_DB")
    if not db:
        raise CliError("give the database with --db PATH (or set JANTAKU_DB)")
    password = _read_password(args.password_stdin)
    app = build_app(db)
    with app.app_context():
        if args.reset:
            set_staff_password(get_db(), args.name, password)
            _say(f"New password set for staff account {args.name}.")
        else:
            create_staff(get_db(), args.name, password)
            _say(f"Staff account {args.name} created.")
    return 0


def _read_password(from_stdin: bool) -> str:
    if from_stdin:
        return sys.stdin.readline().rstrip("\n")
    first = getpass.getpass("Password: ")
    if first != getpass.getpass("Password again: "):
        raise CliError("the two passwords differ; nothing was changed")
    return first


# ----------------------------------------------------------------------------- demo
DEMO_TABLES = (
    # id, name, rule set, AMOS mode (02 自動卓設定表): four tables, four modes.
    ("t1", "卓1 四人A", "nekohouse-4a", 1),
    ("t2", "卓2 三人A", "nekohouse-3a", 4),
    ("t3", "卓3 三人B花", "nekohouse-3b", 5),
    ("t4", "卓4 国際", "mcr", 3),
)
DEMO_MEMBERS = ("佐藤", "鈴木", "高橋", "田中", "伊藤", "渡辺", "山本", "中村", "小林", "加藤")
DEMO_STAFF = ("staff", "mahjong")


def demo_club_toml(tables=DEMO_TABLES, time_scale: float = 0.01) -> str:
    """The ``tablectl`` config of the demo: four simulated tables (``sim://``)."""
    lines = ['# Demo club: written by `python -m web demo`.',
             'db = "jantaku.sqlite"', 'log_dir = "logs"', ""]
    for tid, name, _rules, mode in tables:
        lines += ["[[tables]]", f'id = "{tid}"', f'name = "{name}"',
                  f'url = "sim://?mode={mode}&autodeal=1&time_scale={time_scale}"', ""]
    return "\n".join(lines)


def seed_demo(app, *, pair_ttl: float = 7 * 24 * 3600) -> dict:
    """Fill a new demo database: staff account, members, four tables, a pairing code each."""
    from . import games
    from .auth import create_staff
    from .db import get_db
    from .security import create_pairing

    with app.app_context():
        db = get_db()
        create_staff(db, *DEMO_STAFF)
        for i, name in enumerate(DEMO_MEMBERS, 1):
            games.add_player(db, name, member_no=f"M{i:03d}")
        codes = {}
        for tid, name, rules, _mode in DEMO_TABLES:
            games.save_table(db, tid, name, rules, actor="demo")
            codes[tid] = create_pairing(db, tid, actor="demo", label="demo", ttl=pair_ttl)["code"]
    return codes


def _start_daemon(config: Path, log: Path) -> subprocess.Popen:
    # Own session: Ctrl-C in the terminal reaches only us, and we stop the
    # daemon in order (SIGTERM, then wait) instead of racing it.
    out = open(log, "ab")
    try:
        return subprocess.Popen(
            [sys.executable, "-m", "tablectl", "serve", "--config", str(config)],
            stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True, cwd=str(config.parent))
    finally:
        out.close()


def _stop_daemon(proc: subprocess.Popen) -> None:
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=5)


def _wait_for_daemon(db: str, proc: subprocess.Popen, timeout: float = 15.0) -> bool:
    """Wait until the daemon's heartbeat shows it running (or it exits)."""
    from tablectl import store

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        if store.daemon_status(db)["running"]:
            return True
        time.sleep(0.1)
    return False


def cmd_demo(args) -> int:
    """Start the demo club: daemon with simulated tables + web app + demo database."""
    made_dir = args.dir is None
    folder = Path(args.dir or tempfile.mkdtemp(prefix="jantaku-demo-")).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / "jantaku.sqlite"
    if db.exists():
        raise CliError(f"{db} already exists: give an empty folder with --dir, or none "
                       "(a temporary one is used)")
    try:
        return _run_demo(args, folder, db)
    finally:
        if made_dir and not args.keep:
            shutil.rmtree(folder, ignore_errors=True)


def _run_demo(args, folder: Path, db: Path) -> int:
    config = folder / "club.toml"
    config.write_text(demo_club_toml(time_scale=args.time_scale), encoding="utf-8")
    (folder / "logs").mkdir(exist_ok=True)
    server = _listen(args.host, args.port, build_app(str(db), secure_cookies=False,
                                                     secret=secrets.token_hex(32)))
    # Keep the terminal for the addresses: no line per request (serve keeps them for journald).
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    base = _address(args.host, server.server_port)
    server.app.config["PUBLIC_URL"] = base
    codes = seed_demo(server.app)
    _stop_on_sigterm()
    daemon = _start_daemon(config, folder / "tablectl.log")
    try:
        up = _wait_for_daemon(str(db), daemon)
        _print_demo(base, folder, config, daemon, up, codes, args)
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        _stop_daemon(daemon)
    _say("Demo stopped (web app and table daemon).")
    return 0


def _print_demo(base, folder, config, daemon, up, codes, args) -> None:
    from urllib.parse import quote

    _say("Jantaku demo club — everything runs on this machine, the tables are simulated.")
    _say(f"  data folder:   {folder}" + ("" if args.dir or args.keep
                                         else "  (deleted when you stop the demo)"))
    state = "running" if up else f"NOT running yet — see {folder / 'tablectl.log'}"
    _say(f"  table daemon:  python -m tablectl serve --config {config}  "
         f"(pid {daemon.pid}, {state})")
    _say(f"  staff console: {base}/staff/   sign in as {DEMO_STAFF[0]} / {DEMO_STAFF[1]}")
    for tid, name, rules, mode in DEMO_TABLES:
        _say(f"  tablet {tid}:     {base}/auth/pair?code={quote(codes[tid])}   "
             f"({name}, {rules}, mode {mode:02d})")
    _say("  (cookies are sent without the Secure flag: plain http, for this demo only)")
    _say("Press Ctrl-C to stop.")


# ------------------------------------------------------------ export, leaderboard, club day
def _db_of(args) -> str:
    db = args.db or os.environ.get("JANTAKU_DB")
    if not db:
        raise CliError("give the database with --db PATH (or set JANTAKU_DB)")
    return db


def cmd_export(args) -> int:
    """Write the nightly export of a club day (games, hands, leaderboards, manifest)."""
    from .export import main_export

    args.db = _db_of(args)
    return main_export(args)


def cmd_leaderboard(args) -> int:
    """Print a leaderboard of one rule family over a period."""
    from .export import main_leaderboard

    args.db = _db_of(args)
    return main_leaderboard(args)


def cmd_club_day(args) -> int:
    """Show or set when a club day ends (closing hour, time zone)."""
    from .export import main_club_day

    args.db = _db_of(args)
    return main_club_day(args)


def add_club_day_commands(sub) -> None:
    """``export``, ``leaderboard`` and ``club-day``: the club's data commands (docs/stats.md)."""
    from .export import add_club_day_arguments, add_export_arguments, add_leaderboard_arguments

    for name, fn, add_arguments in (("export", cmd_export, add_export_arguments),
                                    ("leaderboard", cmd_leaderboard, add_leaderboard_arguments),
                                    ("club-day", cmd_club_day, add_club_day_arguments)):
        sp = sub.add_parser(name, help=fn.__doc__.strip().splitlines()[0])
        sp.add_argument("--db", help="the club's SQLite file (or $JANTAKU_DB)")
        sp.add_argument("--json", action="store_true", help="answer in JSON for scripts")
        add_arguments(sp)
        sp.set_defaults(func=fn)


# ----------------------------------------------------------------------------- parser
def build_parser() -> argparse.ArgumentParser:
    """The argparse parser, one subcommand per action."""
    p = argparse.ArgumentParser(prog="python -m web", description="Jantaku club web app.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)

    s = sub.add_parser("serve", help="run the web app")
    s.add_argument("--db", help="the SQLite file shared with tablectl (or $JANTAKU_DB)")
    s.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    s.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 = any free)")
    s.add_argument("--public-url", help="address tablets use, for pairing QR codes")
    s.add_argument("--insecure-cookies", action="store_true",
                   help="send cookies without the Secure flag (plain http on loopback only)")
    s.add_argument("--behind-proxy", action="store_true",
                   help="trust X-Forwarded-* from one reverse proxy (TLS in front of us)")
    s.set_defaults(func=cmd_serve)

    c = sub.add_parser("create-staff", help="add a staff account")
    c.add_argument("name", metavar="NAME", help="the staff member's sign-in name")
    c.add_argument("--db", help="the SQLite file (or $JANTAKU_DB)")
    c.add_argument("--password-stdin", action="store_true", help="read the password from stdin")
    c.add_argument("--reset", action="store_true", help="set a new password for an existing name")
    c.set_defaults(func=cmd_create_staff)

    d = sub.add_parser("demo", help="start the demo club (daemon + web + demo data)")
    d.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    d.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 = any free)")
    d.add_argument("--dir", help="folder for the demo's files (default: a temporary folder)")
    d.add_argument("--keep", action="store_true", help="keep the temporary folder at exit")
    d.add_argument("--time-scale", type=float, default=0.01,
                   help="simulated table speed (1 = real time; default 0.01)")
    d.set_defaults(func=cmd_demo)
    add_club_day_commands(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point: run a subcommand; user errors are one line on stderr, exit 2."""
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (CliError, UserError) as e:
        print(f"web: {getattr(e, 'message', None) or e}", file=sys.stderr)
        return 2
    except OSError as e:  # e.g. the port is taken
        print(f"web: {e.strerror or e}", file=sys.stderr)
        return 2
