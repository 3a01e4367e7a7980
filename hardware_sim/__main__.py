"""``python -m hardware_sim``: a simulated AMOS JP-EX table on a pty or TCP port.

The first line on stdout is the device to open: the pty's path (``--pty``)
or ``socket://HOST:PORT`` (``--tcp``); with both, the pty line comes first.
When an unplugged (hung-up) pty is plugged back, ``pty NEW_PATH`` is printed.
Then the table serves until killed (SIGTERM/SIGINT) or told ``quit``.

While it runs, faults are injected by writing commands, one a line, on
standard input or to the ``--control`` Unix socket; each is answered with one
line starting ``ok`` or ``error`` (``help`` lists them).
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import sys
import threading

from tablectl.commands import parse_seat
from tablectl.errors import TableError
from tablectl.modes import mode_names
from tablectl.protocol.tiles import tile_code, tile_name

from .faults import LinkFaults
from .simulator import Simulator

CONTROL_HELP = """\
control commands (stdin or --control socket), one a line:
  points SEAT TOTAL|none     put sticks worth TOTAL in SEAT's drawer (none: take them out);
                             SEAT 1-4 as in tablectl (1 = East .. 4 = North) or a wind name
  sticks MODE                put the mode's starting sticks in its playing seats and empty
                             the others (e.g. sanma: 35000 in East, South, West)
  lid open|close             open or close the lid / centre box
  jam | unjam                jam a motor / remove the stuck tile
  overrun [N]                the next N cycles run too long
  remove-tile [TILE] [machine|table]   take a tile (e.g. 5m) out of a set
  restore-tiles              make both sets complete again
  power off|on               cut / restore the power
  unplug [hangup|silent] | plug        pull / plug the serial cable
  drop P | corrupt P | duplicate P     byte fault probabilities (0..1)
  delay MS | direction rx|tx|both      latency; which way rate faults apply
  once drop|corrupt|duplicate|delay rx|tx [COUNT] [DELAY_MS] [any|reply|event]
                             one-shot faults on the next chunks (on tx: frames)
  faults off                 clear every link fault
  state | dealt | counters   print the table's state, last deal, link counters
  help | quit"""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m hardware_sim",
        description="A simulated AMOS JP-EX automatic mahjong table speaking the tablectl "
                    "protocol (docs/protocol.md).",
        epilog=CONTROL_HELP + "\n\nmodes: " + mode_names(),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    t = p.add_argument_group("transport (at least one)")
    t.add_argument("--pty", action="store_true",
                   help="serve on a new pseudo-terminal; print its path")
    t.add_argument("--link", metavar="PATH",
                   help="with --pty: also keep a symlink PATH to the pty (it follows replugs)")
    t.add_argument("--tcp", metavar="PORT", type=int,
                   help="serve on TCP PORT (0: any free port) for pyserial socket://")
    t.add_argument("--host", default="127.0.0.1", help="TCP address to bind (default 127.0.0.1)")
    m = p.add_argument_group("the table")
    m.add_argument("--mode", default="1",
                   help="mode stored in the table at power-on (number or name)")
    m.add_argument("--no-autodeal", dest="auto_deal", action="store_false",
                   help="the model without auto-deal (DEAL answers WALLS_ONLY)")
    m.add_argument("--time-scale", type=float, default=1.0,
                   help="multiply mechanical durations (0.001 turns the 70 s cycle into 70 ms)")
    m.add_argument("--cycle-seconds", type=float, default=70.0, help="nominal cycle (default 70)")
    m.add_argument("--boot-seconds", type=float, default=2.0, help="power-on to ready (default 2)")
    m.add_argument("--auto-sticks", action="store_true",
                   help="SELECT_MODE puts the right point sticks in by itself")
    m.add_argument("--points", action="append", default=[], metavar="SEAT=TOTAL",
                   type=_points_arg,
                   help="sticks in a seat's drawer at start (SEAT 1-4, 1 = East, or a wind "
                        "name; TOTAL 'none' = empty); repeatable")
    m.add_argument("--sticks-file", metavar="PATH",
                   help='JSON {"points": [...]} the players\' sticks follow (hardware_sim.players)')
    m.add_argument("--model", default="AMOS JP-EX COLOR", help="model name reported in HELLO")
    m.add_argument("--firmware", default="SIM-1.0", help="firmware version reported in HELLO")
    m.add_argument("--protocol-version", type=int, default=1,
                   help="protocol version HELLO answers (another one: a newer table)")
    f = p.add_argument_group("faults at start")
    f.add_argument("--drop", type=float, default=0.0, help="probability a byte is lost")
    f.add_argument("--corrupt", type=float, default=0.0,
                   help="probability a byte gets a bit flipped")
    f.add_argument("--duplicate", type=float, default=0.0, help="probability a byte is sent twice")
    f.add_argument("--delay-ms", type=float, default=0.0, help="latency added to every chunk")
    f.add_argument("--fault-direction", choices=("rx", "tx", "both"), default="both",
                   help="bytes to the table (rx), from it (tx) or both")
    f.add_argument("--seed", type=int, help="seed of the link-fault random generator")
    f.add_argument("--unplug-mode", choices=("hangup", "silent"), default="hangup",
                   help="what 'unplug' does: close the pty / drop TCP (hangup) or go silent")
    f.add_argument("--jam", action="store_true", help="start with a jammed motor")
    f.add_argument("--lid-open", action="store_true", help="start with the lid open")
    f.add_argument("--missing-tile", metavar="TILE", type=_tile_arg,
                   help="start with TILE (e.g. 5m) missing from the next set")
    f.add_argument("--overrun", type=int, default=0, metavar="N", help="the first N cycles overrun")
    c = p.add_argument_group("control")
    c.add_argument("--control", metavar="SOCKET",
                   help="also accept control commands on this Unix socket")
    c.add_argument("--no-stdin", action="store_true", help="do not read control commands on stdin")
    c.add_argument("-v", "--verbose", action="store_true",
                   help="print every command and event on stderr")
    return p


def _points_arg(text: str) -> tuple[int, int | None]:
    """``SEAT=TOTAL`` as people type it: seat 1-4 (1 = East) or a wind, TOTAL or none."""
    seat, sep, total = text.partition("=")
    try:
        points = None if total.strip().lower() == "none" else int(total)
    except ValueError:
        points = -1
    if not sep or points is not None and points < 0:
        raise argparse.ArgumentTypeError(
            f"'{text}': give SEAT=TOTAL, e.g. 1=25000 or north=none")
    try:
        return parse_seat(seat), points
    except TableError as e:
        raise argparse.ArgumentTypeError(e.text("en")) from None


def _tile_arg(text: str) -> int:
    try:
        return tile_code(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def control(sim: Simulator, line: str) -> str:
    """Run one control command; the answer line."""
    words = line.split()
    if not words:
        return "ok"
    cmd, args = words[0].lower(), words[1:]
    try:
        answer = _control(sim, cmd, args)
        return f"ok {answer}" if answer else "ok"
    except SystemExit:
        raise
    except (ValueError, IndexError, KeyError, TableError, OSError) as e:
        return f"error {e}"


def _control(sim: Simulator, cmd: str, args: list[str]) -> str:  # noqa: C901 - a flat dispatcher
    if cmd == "points":
        total = None if args[1].lower() == "none" else int(args[1])
        sim.set_points(parse_seat(args[0]), total)
        return ""
    if cmd == "sticks":
        sim.sticks_for(args[0])
        return ""
    if cmd == "lid":
        {"open": sim.open_lid, "close": sim.close_lid}[args[0]]()
        return ""
    if cmd in ("jam", "unjam"):
        (sim.jam if cmd == "jam" else sim.clear_jam)()
        return ""
    if cmd == "overrun":
        sim.overrun(int(args[0]) if args else 1)
        return ""
    if cmd == "remove-tile":
        tile = tile_code(args[0]) if args and args[0] not in ("machine", "table") else None
        which = args[-1] if args and args[-1] in ("machine", "table") else "machine"
        return tile_name(sim.remove_tile(tile, which))
    if cmd == "restore-tiles":
        sim.restore_tiles()
        return ""
    if cmd in ("power", "power-cut", "power-restore"):
        on = (args[0] == "on") if args else cmd == "power-restore"
        (sim.power_restore if on else sim.power_cut)()
        return ""
    if cmd == "unplug":
        sim.unplug(args[0] if args else None)
        return ""
    if cmd == "plug":
        sim.plug()
        return sim.pty_path or ""
    if cmd in ("drop", "corrupt", "duplicate"):
        sim.faults.set(**{cmd: float(args[0])})
        return ""
    if cmd == "delay":
        sim.faults.set(delay=float(args[0]) / 1000)
        return ""
    if cmd == "direction":
        sim.faults.set(direction=args[0])
        return ""
    if cmd == "once":
        count = int(args[2]) if len(args) > 2 else 1
        delay = float(args[3]) / 1000 if len(args) > 3 else 0.0
        sim.faults.once(args[0], args[1], count, delay, args[4] if len(args) > 4 else "any")
        return ""
    if cmd == "faults":
        sim.faults.clear()
        return ""
    if cmd == "state":
        return repr(sim.state())
    if cmd == "dealt":
        return repr(sim.dealt())
    if cmd == "counters":
        return repr(sim.link_counters())
    if cmd == "help":
        return CONTROL_HELP.replace("\n", " | ")
    if cmd in ("quit", "exit"):
        raise SystemExit(0)
    raise ValueError(f"unknown command {cmd!r} (try 'help')")


def _serve_control_socket(path: str, sim: Simulator, stop: threading.Event) -> socket.socket:
    if os.path.exists(path):
        os.unlink(path)
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    # bound and listening under another name first: a client that sees the path can
    # connect at once (between bind and listen a connect is refused)
    fresh = path + ".new"
    if os.path.exists(fresh):
        os.unlink(fresh)
    srv.bind(fresh)
    srv.listen(4)
    os.replace(fresh, path)
    srv.settimeout(0.2)

    def loop():
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except (TimeoutError, socket.timeout):
                continue
            except OSError:
                return
            # separate reader and writer: a text file's write() drops what it had read ahead
            with conn, conn.makefile("r", encoding="utf-8") as rf, \
                    conn.makefile("w", encoding="utf-8") as wf:
                for line in rf:
                    try:
                        ans = control(sim, line)
                    except SystemExit:
                        wf.write("ok bye\n")
                        wf.flush()
                        stop.set()
                        return
                    wf.write(ans + "\n")
                    wf.flush()

    threading.Thread(target=loop, name="hardware_sim:control", daemon=True).start()
    return srv


def _make_simulator(args) -> Simulator:
    faults = LinkFaults(drop=args.drop, corrupt=args.corrupt, duplicate=args.duplicate,
                        delay=args.delay_ms / 1000, direction=args.fault_direction,
                        seed=args.seed)
    return Simulator(mode=args.mode, auto_deal=args.auto_deal, time_scale=args.time_scale,
                     cycle_seconds=args.cycle_seconds, boot_seconds=args.boot_seconds,
                     auto_sticks=args.auto_sticks, faults=faults, model=args.model,
                     firmware=args.firmware, unplug_mode=args.unplug_mode,
                     protocol_version=args.protocol_version, sticks_file=args.sticks_file)


def _start_faults(sim: Simulator, args) -> None:
    for seat, total in args.points:
        sim.set_points(seat, total)
    if args.jam:
        sim.jam()
    if args.lid_open:
        sim.open_lid()
    if args.missing_tile is not None:
        sim.remove_tile(args.missing_tile)
    if args.overrun:
        sim.overrun(args.overrun)


def _read_stdin(sim: Simulator, say, stop: threading.Event) -> None:
    def run():
        for line in sys.stdin:
            try:
                ans = control(sim, line)
            except SystemExit:
                say("ok bye")
                stop.set()
                return
            say(ans)

    threading.Thread(target=run, name="hardware_sim:stdin", daemon=True).start()


def _install_signals(stop: threading.Event) -> None:
    """SIGTERM and SIGINT stop cleanly; SIGHUP (terminal closed) is ignored."""
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    signal.signal(signal.SIGHUP, signal.SIG_IGN)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if not args.pty and args.tcp is None:
        build_parser().error("choose a transport: --pty and/or --tcp PORT")
    try:
        sim = _make_simulator(args)
    except (ValueError, TableError) as e:
        print(f"python -m hardware_sim: {e}", file=sys.stderr)
        return 2
    stop = threading.Event()
    out_lock = threading.Lock()

    def say(text: str) -> None:
        with out_lock:
            print(text, flush=True)

    def on_change(what: str) -> None:
        if what.startswith("pty "):
            say(what)              # the device path changed (replug after a hangup)
        elif args.verbose:
            print(f"[{sim.name}] {what}", file=sys.stderr, flush=True)

    sim.on_change = on_change
    sim.start()
    srv = None
    try:
        _start_faults(sim, args)
        if args.pty:
            say(sim.serve_pty(args.link))
        if args.tcp is not None:
            say(f"socket://{args.host}:{sim.serve_tcp(args.tcp, args.host)}")
        _install_signals(stop)
        if args.control:
            srv = _serve_control_socket(args.control, sim, stop)
        if not args.no_stdin:
            _read_stdin(sim, say, stop)
        while not stop.wait(0.5):
            pass
    except (ValueError, OSError, TableError) as e:
        print(f"python -m hardware_sim: {e}", file=sys.stderr)
        return 1
    finally:
        sim.stop()
        if srv is not None:
            srv.close()
            try:
                os.unlink(args.control)
            except OSError:
                pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
