"""``python -m web``: run the club web app, add staff accounts, start the whole demo club,
back up and restore the club file, and the owner's nightly export and rankings.

    python -m web serve --db PATH [--host 127.0.0.1] [--port 8000] [--public-url URL]
                        [--workers N] [--threads N] [--behind-proxy] [--insecure-cookies]
                        [--connection-limit N] [--idle-timeout S] [--request-timeout S]
    python -m web create-staff NAME --db PATH [--password-stdin] [--reset] [--role ROLE]
    python -m web backup --db PATH --dir DIR [--keep N]
    python -m web restore BACKUP --db PATH [--force]
    python -m web demo [--host 127.0.0.1] [--port 8000] [--dir DIR]
    python -m web export --db PATH [--date YYYY-MM-DD] --out DIR [--keep N] [--min-games N]
    python -m web leaderboard --db PATH [--family F] [--period P] [--day | --start --end]
                              [--order rating]
    python -m web club-day --db PATH [--closing-hour HH:MM] [--timezone TZ] [--opening-hour HH:MM]
    python -m web notify --config club.toml [--db PATH] [--once]
    python -m web print-worker --config club.toml [--db PATH] [--once]
    python -m web sync --to postgresql://... --db PATH [--branch ID] [--batch N] [--resend]

``serve`` runs the app on waitress (a production WSGI server, one process per
core: see :mod:`web.server`) and prints ``Serving on http://HOST:PORT/`` once
it listens (``--port 0`` picks a free port). ``demo`` writes a demo club
(database, ``club.toml`` with four simulated tables in different modes and a stock
table driven at its switches through the simulated bridge), starts
``python -m tablectl serve`` on it and the web app, and prints the staff and
tablet addresses; Ctrl-C (or SIGTERM) stops both. Library errors become one
line on stderr, exit status 2.

``backup``, ``export``, ``notify``, ``print-worker`` and ``sync`` are the same as the
background processes' own commands (``python -m club.backup``, ``python -m club.export``,
``python -m club.notify``, ``python -m club.printing``, ``python -m chain sync``), which
the deploy units run; they stay here for staff at the console.
"""

from __future__ import annotations

import argparse
import functools
import getpass
import json
import logging
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from flask import Flask

from chain import __main__ as chain_main
from chain.box import prepare
from club import backup as backups
from club import club_tables, games, readings, roster
from club.accounts import ROLES, create_staff, set_staff_password, set_staff_role
from club.backup import __main__ as backup_main
from club.db import AlreadyRunning, Db, connect, one_per_club
from club.errors import UserError
from club.export import __main__ as export_main
from club.notify import __main__ as notify_main
from club.printing import __main__ as print_main
from club.printing.config import PrinterConfig
from club.printing.worker import Worker
from club.text import whole_number
from tablectl import store
from web import create_app, private_file, server
from web.db import get_db
from web.limits import BODY_LIMITS, DEFAULT_BODY_LIMIT
from web.security import create_pairing
from web.signin import sign_in_wait

if TYPE_CHECKING:
    from club.printing.worker import Worker


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
        private_file(path, secrets.token_hex(32))
    return path.read_text().strip()


def build_app(db: str, *, secure_cookies: bool = True, public_url: str | None = None,
              secret: str | None = None, club_config: str | None = None) -> Flask:
    """The Flask app on database ``db`` (created and migrated if new); ``club_config``
    (``club.toml``) gives it the LINE channel of its ``[notify]`` section and secrets
    file, which members link their LINE through."""
    path = Path(db).resolve()
    if not path.parent.is_dir():
        raise CliError(f"the folder for the database does not exist: {path.parent}")
    prepare(str(path))  # a file that is refused gets no session key beside it
    config = {"DATABASE": str(path), "SECRET_KEY": secret or _secret_for(path),
              "COOKIE_SECURE": secure_cookies}
    if public_url:
        config["PUBLIC_URL"] = public_url
    if club_config:
        from club.notify import config as notify_config

        config["LINE_LINK"] = notify_config.line_link(notify_config.load(club_config))
    return create_app(config)


def _bind(host: str, port: int) -> list:
    """The listening sockets for host:port, or a CliError that says what to do."""
    try:
        return server.bind(host, port)
    except OSError as e:
        reason = e.strerror or str(e)
    raise CliError(f"cannot listen on {host}:{port}: {reason}; choose another "
                   "port with --port (0 = any free port)")


def _serve(socks: list[socket.socket], app: Flask, **options: Any) -> None:
    """Serve ``app`` on bound sockets until Ctrl-C / SIGTERM (see :func:`web.server.serve`),
    refusing a body larger than any route takes before it is read, in the app's words."""
    server.serve(socks, app, say=_say, must_wait=functools.partial(sign_in_wait, app),
                 max_body=max(DEFAULT_BODY_LIMIT, *BODY_LIMITS.values()),
                 refuse=server.worded_refusal(app), **options)


def cmd_serve(args: argparse.Namespace) -> int:
    """Run the web app (the production server) until Ctrl-C / SIGTERM."""
    db = _db_arg(args)
    app = build_app(db, secure_cookies=not args.insecure_cookies, public_url=args.public_url,
                    club_config=args.config)
    # Behind the proxy, waitress believes X-Forwarded-For/-Proto/-Host from the proxy's
    # address only (its last hop): the sign-in throttle and the audit then see the
    # client's address, and nobody else can name one.
    trusted_proxy = server.PROXY_ADDRESS if args.behind_proxy else None
    socks = _bind(args.host, args.port)
    base = server.address(args.host, socks[0].getsockname()[1])
    # Pairing QR codes use the configured address, else the bound one: never a request's Host.
    app.config["PUBLIC_URL"] = args.public_url or base
    server.stop_on_sigterm()
    # waitress warns on every request queued behind busy workers: one line per request
    # under load, when the queue is only the work waiting its turn
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)
    processes = "1 process" if args.workers == 1 else f"{args.workers} processes"
    _say(f"Serving on {base}/ (database {Path(db).resolve()}; {processes} of "
         f"{args.threads} threads)")
    try:
        _serve(socks, app, workers=args.workers, threads=args.threads,
               connection_limit=args.connection_limit, idle_timeout=args.idle_timeout,
               request_timeout=args.request_timeout, trusted_proxy=trusted_proxy)
    except KeyboardInterrupt:
        pass
    _say("Stopped.")
    return 0


def cmd_create_staff(args: argparse.Namespace) -> int:
    """Add a staff account (or --reset its password)."""
    db = _db_arg(args)
    password = _read_password(args.password_stdin)
    app = build_app(db)
    with app.app_context():
        if args.reset:
            set_staff_password(get_db(), args.name, password)
            if args.role:
                set_staff_role(get_db(), args.name, args.role)
            _say(f"New password set for staff account {args.name}.")
        else:
            create_staff(get_db(), args.name, password, role=args.role or "staff")
            _say(f"Staff account {args.name} created.")
    return 0


def _positive(value: str) -> int:
    number = whole_number(value)
    if number is None or number < 1:
        raise argparse.ArgumentTypeError(f"give a whole number of 1 or more, not {value!r}")
    return number


def _db_arg(args: argparse.Namespace) -> str:
    db = args.db or os.environ.get("JANTAKU_DB")
    if not db:
        raise CliError("give the database with --db PATH (or set JANTAKU_DB)")
    return db


def cmd_backup(args: argparse.Namespace) -> int:
    """Copy the live database into the backup folder (checked), keeping the newest N."""
    try:
        return backup_main.run(_db_arg(args), args.dir, args.keep)
    except backups.BackupError as e:
        raise CliError(str(e)) from None


def cmd_restore(args: argparse.Namespace) -> int:
    """Replace the database with a checked backup (the replaced one is kept beside it)."""
    try:
        saved = backups.restore(args.backup, _db_arg(args), force=args.force)
    except backups.BackupError as e:
        raise CliError(str(e)) from None
    into = str(Path(_db_arg(args)).resolve())
    _say(backups.words("backup.restored_saved", backup=args.backup, db=into, saved=str(saved))
         if saved else backups.words("backup.restored", backup=args.backup, db=into))
    return 0


def _read_password(from_stdin: bool) -> str:
    if from_stdin:
        return sys.stdin.readline().rstrip("\n")
    first = getpass.getpass("Password: ")
    if first != getpass.getpass("Password again: "):
        raise CliError("the two passwords differ; nothing was changed")
    return first


# ----------------------------------------------------------------------------- demo
DemoTable = tuple[str, str, str, int]
"""A demo table: id, name, rule set, AMOS mode."""

DEMO_TABLES: tuple[DemoTable, ...] = (
    # id, name, rule set, AMOS mode (02 自動卓設定表): four tables, four modes.
    ("t1", "卓1 四人A", "nekohouse-4a", 1),
    ("t2", "卓2 三人A", "nekohouse-3a", 4),
    ("t3", "卓3 三人B花", "nekohouse-3b", 5),
    ("t4", "卓4 国際", "mcr", 3),
)
STOCK_TABLE = ("t5", "卓5 三人B花 スイッチ操作", "nekohouse-3b", 1)
"""The demo's stock table: no data port, driven at its own switches (``jpex-panel``)
through the simulated bridge; its display starts at 01 and nobody has told the driver."""
STOCK_WIRING = {"up": 2, "down": 3, "dice_left": 4, "dice_right": 5}
"""The bridge's relays 2..5, as the simulator wires them; the table's power is the
bridge's own power output (no relay)."""
STOCK_TIMINGS = ("press_ms = 60", "repeat_ms = 80", "hold_ms = 400", "reset_ms = 400",
                 "boot_ms = 300")
"""The driver's timings for the simulated table's quick reactions (``--fast``)."""
DEMO_MEMBERS = ("佐藤", "鈴木", "高橋", "田中", "伊藤", "渡辺", "山本", "中村", "小林", "加藤")
DEMO_STAFF = ("staff", "mahjong-club")


def demo_club_toml(tables: Sequence[DemoTable] = DEMO_TABLES, time_scale: float = 0.01,
                   sticks_dir: Path | None = None, stock_port: str | None = None) -> str:
    """The ``tablectl`` config of the demo: four simulated tables (``sim://``); with
    ``sticks_dir`` each table's simulated players move their point sticks as
    ``sticks-<table>.json`` there says (:class:`StickWriter` writes it); with
    ``stock_port`` the stock table too, a ``jpex-panel`` table on the simulated
    bridge's pty (its relays 2..5 across the switches, its power output on the outlet)."""
    lines = ['# Demo club: written by `python -m web demo`.',
             'db = "jantaku.sqlite"', 'log_dir = "logs"', ""]
    for tid, name, _rules, mode in tables:
        url = f"sim://?mode={mode}&autodeal=1&time_scale={time_scale}"
        if sticks_dir is not None:
            url += "&sticks=" + quote(str(sticks_dir / f"sticks-{tid}.json"), safe="")
        lines += ["[[tables]]", f'id = "{tid}"', f'name = "{name}"', f'url = "{url}"', ""]
    if stock_port is not None:
        tid, name, _rules, _number = STOCK_TABLE
        lines += ["# a stock table at its own switches, through the simulated bridge",
                  "[[tables]]", f'id = "{tid}"', f'name = "{name}"', f'url = "{stock_port}"',
                  'driver = "jpex-panel"', 'board = "bridge"',
                  *(f"{switch} = {ch}" for switch, ch in STOCK_WIRING.items()),
                  *STOCK_TIMINGS, *_stock_camera(sticks_dir, tid), ""]
    return "\n".join(lines)


def _stock_camera(folder: Path | None, tid: str) -> list[str]:
    """The stock table's camera: the simulator writes its picture and the region staff
    would drag (``hardware_sim.stock_bridge --camera``); none when it wrote no region
    (OpenCV, the ``camera`` extra, is not installed)."""
    if folder is None:
        return []
    try:
        region = json.loads((folder / f"camera-{tid}.region.json").read_text("utf-8"))
        corners = ", ".join(f"[{float(x):.0f}, {float(y):.0f}]" for x, y in region)
    except (OSError, ValueError, TypeError):
        return []
    return [f'camera = "camera-{tid}.png"', f"camera_region = [{corners}]"]


def _start_stock_table(folder: Path, log: Path, fast: bool) -> tuple[subprocess.Popen, str]:
    """The simulated stock table behind the simulated bridge, in its own process: returns
    it and its pty. Its drawers and faults follow ``sticks-t5.json`` in ``folder`` (the
    demo's players write it too); what its display shows is in ``stock-t5.json``."""
    tid, _name, _rules, number = STOCK_TABLE
    out = open(log, "ab")
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "hardware_sim.stock_bridge", "--pty",
             "--control", str(folder / f"sticks-{tid}.json"),
             "--state", str(folder / f"stock-{tid}.json"), "--number", str(number),
             "--sticks", "25000,25000,25000,25000", *(["--fast"] if fast else []),
             "--camera", str(folder / f"camera-{tid}.png")],
            stdout=subprocess.PIPE, stderr=out, stdin=subprocess.DEVNULL,
            start_new_session=True, cwd=str(folder))
    finally:
        out.close()
    assert proc.stdout is not None
    port = proc.stdout.readline().decode("utf-8", "replace").strip()
    if not port.startswith("/dev/"):
        _stop_daemon(proc)
        raise CliError(f"the simulated stock table did not start: see {log}")
    return proc, port


class StickWriter(threading.Thread):
    """The demo's players: after every recorded hand (or correction, or new game) they pay
    with point sticks, so each simulated table's drawers hold the recorded scores and the
    tablet's 点数が一致しません warning stays for a real difference. Writes
    ``sticks-<table>.json`` (read by :mod:`hardware_sim.players`) when a table's recorded
    scores change; tables whose games are not counted in points (MCR) have no sticks."""

    POLL_S = 0.25

    def __init__(self, db: str, folder: Path,
                 tables: Sequence[DemoTable] = DEMO_TABLES) -> None:
        super().__init__(name="demo-sticks", daemon=True)
        self.db, self.folder, self.tables = db, folder, tables
        self.stopping = threading.Event()
        self._written: dict[str, list] = {}

    def run(self) -> None:
        conn = connect(self.db)
        try:
            while not self.stopping.wait(self.POLL_S):
                for tid, *_ in self.tables:
                    try:
                        self._follow(conn, tid)
                    except Exception:  # noqa: BLE001  (a demo nicety never stops the demo)
                        logging.getLogger(__name__).exception("demo sticks of %s", tid)
        finally:
            conn.conn.close()

    def _follow(self, conn: Db, tid: str) -> None:
        game = games.current_game(conn, tid)
        if game is None or game["status"] != "live":
            return
        if not game["rules"]["settlement"]["use_points"]:
            return
        scores = readings.current_scores(games.game_view(conn, game["id"]))
        if not scores or scores == self._written.get(tid):
            return
        path = self.folder / f"sticks-{tid}.json"
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"points": scores}), encoding="utf-8")
        os.replace(tmp, path)
        self._written[tid] = scores


def seed_demo(app: Flask, *, pair_ttl: float = 7 * 24 * 3600) -> dict:
    """Fill a new demo database: staff account, members, five tables, a pairing code each."""
    with app.app_context():
        db = get_db()
        create_staff(db, *DEMO_STAFF)
        for i, name in enumerate(DEMO_MEMBERS, 1):
            roster.add_player(db, name, member_no=f"M{i:03d}")
        codes = {}
        for tid, name, rules, _mode in (*DEMO_TABLES, STOCK_TABLE):
            club_tables.save_table(db, tid, name, rules, actor="demo")
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
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        if store.daemon_status(db)["running"]:
            return True
        time.sleep(0.1)
    return False


def cmd_demo(args: argparse.Namespace) -> int:
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


def _run_demo(args: argparse.Namespace, folder: Path, db: Path) -> int:
    config = folder / "club.toml"
    (folder / "logs").mkdir(exist_ok=True)
    stock, port = _start_stock_table(folder, folder / "logs" / "stock-table.log",
                                     fast=args.time_scale < 0.5)
    try:
        config.write_text(demo_club_toml(time_scale=args.time_scale, sticks_dir=folder,
                                         stock_port=port), encoding="utf-8")
        return _run_demo_club(args, folder, db, config)
    finally:
        _stop_daemon(stock)


def _run_demo_club(args: argparse.Namespace, folder: Path, db: Path, config: Path) -> int:
    # the session key is kept in the folder, beside the database: a restarted web app
    # still reads the tablets' sessions (and their CSRF tokens)
    app = build_app(str(db), secure_cookies=False)
    socks = _bind(args.host, args.port)
    base = server.address(args.host, socks[0].getsockname()[1])
    app.config["PUBLIC_URL"] = base
    # the stock table's drawers follow a file here: the guided change's button writes it
    app.config["DEMO_STICKS_DIR"] = str(folder)
    codes = seed_demo(app)
    server.stop_on_sigterm()
    daemon = _start_daemon(config, folder / "tablectl.log")
    sticks = StickWriter(str(db), folder, (*DEMO_TABLES, STOCK_TABLE))
    sticks.start()
    printer = _start_demo_printer(str(db), folder)
    try:
        up = _wait_for_daemon(str(db), daemon)
        _print_demo(base, folder, config, daemon, up, codes, args)
        _serve(socks, app, workers=1)  # one process: the demo's sticks writer lives in it
    except KeyboardInterrupt:
        pass
    finally:
        sticks.stopping.set()
        if printer is not None:
            printer.stopping.set()
        _stop_daemon(daemon)
    _say("Demo stopped (web app and table daemon).")
    return 0


def _start_demo_printer(db: str, folder: Path) -> Worker | None:
    """The demo's receipt printer: the print worker in a thread, writing each receipt's
    ESC/POS bytes to ``receipt.bin`` in the data folder (the newest one). It holds the
    club file's one-worker lock as ``print-worker`` does, so a worker started beside it
    is refused (two would race for the same jobs); when another holds the lock already,
    the demo prints through that one and starts none (None)."""
    import contextlib

    held = contextlib.ExitStack()
    try:
        held.enter_context(one_per_club(db, "print"))
    except AlreadyRunning as e:
        _say(f"  receipts:      printed by the print worker already running ({e.path})")
        return None
    worker = Worker(connect(db), PrinterConfig(kind="file", path=str(folder / "receipt.bin")))

    def run() -> None:
        with held:                      # the lock goes when the worker stops
            worker.run()

    threading.Thread(target=run, name="demo-printer", daemon=True).start()
    return worker


def _print_demo(base: str, folder: Path, config: Path, daemon: subprocess.Popen, up: bool,
                codes: dict, args: argparse.Namespace) -> None:

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
    tid, name, rules, number = STOCK_TABLE
    _say(f"  tablet {tid}:     {base}/auth/pair?code={quote(codes[tid])}   "
         f"({name}, {rules}, a stock table through the bridge; its display shows "
         f"{number:02d}: {folder / f'stock-{tid}.json'})")
    _say(f"  its mode change: {base}/staff/tables/{tid}/mode  (with the table switched "
         "off, 「シミュレーター: 点棒を入れる」 puts the new game's sticks in its drawers)")
    _say("  (cookies are sent without the Secure flag: plain http, for this demo only)")
    _say("Press Ctrl-C to stop.")


# ------------------------------------------------------------ export, leaderboard, club day
Command = Callable[[argparse.Namespace], int]
"""A subcommand: parsed arguments in, the exit status out."""


def _on_club_file(run: Command) -> Command:
    """A subcommand that runs ``run(args)`` on the club file (``--db`` or $JANTAKU_DB)."""

    def command(args: argparse.Namespace) -> int:
        args.db = _db_arg(args)
        return run(args)

    return command


def cmd_sync(args: argparse.Namespace) -> int:
    """Send the club's records to the chain's head office on PostgreSQL (docs/chain.md)."""
    return chain_main.run_sync(args)


def add_sync_command(sub: argparse._SubParsersAction) -> None:
    """``sync``: the box's records to the head office (psycopg only when it runs)."""
    sp = sub.add_parser("sync", help=(cmd_sync.__doc__ or "").strip().splitlines()[0])
    chain_main.add_arguments(sp)
    sp.set_defaults(func=cmd_sync)


def add_club_day_commands(sub: argparse._SubParsersAction) -> None:
    """``export``, ``leaderboard`` and ``club-day``: the club's data commands (docs/stats.md)."""
    for name, words, run, add_arguments in (
            ("export",
             "Write the nightly export of a club day (games, hands, leaderboards, manifest).",
             functools.partial(export_main.run_export, prog="python -m web export"),
             export_main.add_export_arguments),
            ("leaderboard", "Print a leaderboard of one rule family over a period.",
             export_main.run_leaderboard, export_main.add_leaderboard_arguments),
            ("club-day", "Show or set when a club day ends (closing hour, time zone) and "
             "when the floor opens.", export_main.run_club_day,
             export_main.add_club_day_arguments)):
        sp = sub.add_parser(name, help=words)
        sp.add_argument("--db", help="the club's SQLite file (or $JANTAKU_DB)")
        sp.add_argument("--json", action="store_true", help="answer in JSON for scripts")
        add_arguments(sp)
        sp.set_defaults(func=_on_club_file(run))


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
    s.add_argument("--config", help="club.toml: the LINE channel members link their LINE "
                                    "through ([notify] and its secrets file)")
    s.add_argument("--insecure-cookies", action="store_true",
                   help="send cookies without the Secure flag (plain http on loopback only)")
    s.add_argument("--behind-proxy", action="store_true",
                   help="trust X-Forwarded-For/-Proto/-Host from one reverse proxy on "
                        f"{server.PROXY_ADDRESS} (TLS in front of us)")
    s.add_argument("--workers", type=_positive, default=server.WORKERS,
                   help=f"server processes (default {server.WORKERS}: one per core)")
    s.add_argument("--threads", type=_positive, default=server.SERVER_THREADS,
                   help=f"worker threads per process (default {server.SERVER_THREADS})")
    s.add_argument("--connection-limit", type=int, default=server.CONNECTION_LIMIT,
                   help=f"open connections at most (default {server.CONNECTION_LIMIT})")
    s.add_argument("--idle-timeout", type=int, default=server.IDLE_TIMEOUT_S, metavar="SECONDS",
                   help=f"close a connection idle this long (default {server.IDLE_TIMEOUT_S})")
    s.add_argument("--request-timeout", type=_positive, default=server.REQUEST_TIMEOUT_S,
                   metavar="SECONDS", help="cut off a client whose request has not arrived "
                   f"whole this long after it began (default {server.REQUEST_TIMEOUT_S})")
    s.set_defaults(func=cmd_serve)

    c = sub.add_parser("create-staff", help="add a staff account")
    c.add_argument("name", metavar="NAME", help="the staff member's sign-in name")
    c.add_argument("--db", help="the SQLite file (or $JANTAKU_DB)")
    c.add_argument("--password-stdin", action="store_true", help="read the password from stdin")
    c.add_argument("--reset", action="store_true", help="set a new password for an existing name")
    c.add_argument("--role", choices=ROLES, default=None,
                   help="owner, manager or staff (default staff; a club's first account is "
                        "its owner)")
    c.set_defaults(func=cmd_create_staff)

    b = sub.add_parser("backup", help="copy the live database into a backup folder")
    backup_main.add_arguments(b)
    b.set_defaults(func=cmd_backup)

    r = sub.add_parser("restore", help="replace the database with a backup (checked first)")
    r.add_argument("backup", metavar="BACKUP", help="the backup file to restore")
    r.add_argument("--db", help="the SQLite file to replace (or $JANTAKU_DB)")
    r.add_argument("--force", action="store_true",
                   help="restore even though the table daemon looks alive")
    r.set_defaults(func=cmd_restore)

    d = sub.add_parser("demo", help="start the demo club (daemon + web + demo data)")
    d.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    d.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 = any free)")
    d.add_argument("--dir", help="folder for the demo's files (default: a temporary folder)")
    d.add_argument("--keep", action="store_true", help="keep the temporary folder at exit")
    d.add_argument("--time-scale", type=float, default=0.01,
                   help="simulated table speed (1 = real time; default 0.01)")
    d.set_defaults(func=cmd_demo)
    n = sub.add_parser("notify", help="send the outbox's word by LINE and e-mail (a service)")
    notify_main.add_arguments(n)
    n.set_defaults(func=_on_club_file(notify_main.start))
    w = sub.add_parser("print-worker", help="print the print queue on the receipt printer")
    print_main.add_arguments(w)
    w.set_defaults(func=_on_club_file(print_main.start))
    add_club_day_commands(sub)
    add_sync_command(sub)
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
