"""``tablectl``: the staff command line and the daemon's entry point.

Every table command goes through the shared store (request, then wait), so
it works while the daemon runs and never talks to a serial port itself.
Add a subcommand by writing ``cmd_<name>(args) -> int`` and registering it
in :func:`build_parser` (one ``_add`` call).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import uuid
from typing import Callable

from . import store
from .config import ConfigError, load_config

DEFAULT_CONFIG = os.environ.get("TABLECTL_CONFIG", "/etc/jantaku/club.toml")

# How long each command waits by default: a real cycle takes about 70 s.
DEFAULT_WAIT = {"cycle": 150.0, "deal": 60.0}
DEFAULT_WAIT_OTHER = 20.0


class CliError(Exception):
    """A problem the user can fix; printed as one line, exit status 2."""


# --------------------------------------------------------------------------- plumbing
def _db_path(args) -> str:
    """The store's path; it must exist (a typo must not create an empty store)."""
    if getattr(args, "db", None):
        path = args.db
    else:
        try:
            path = load_config(args.config).db
        except ConfigError as e:
            raise CliError(f"{e.message} (or give the store directly with --db PATH)") from None
    if not os.path.exists(path):
        raise CliError(f"there is no tablectl store at {path}: has the daemon ever run with "
                       "this config? (check --config / --db)")
    return path


def _emit(args, data, text: str) -> None:
    if args.json:
        print(json.dumps(data, ensure_ascii=False, indent=2, default=str))
    else:
        print(text)


def _mode_number(text: str) -> int:
    """A mode by number (``04``, ``4``) or by name/alias (``sanma``)."""
    from .errors import TableError
    from .modes import mode_by_name

    try:
        return mode_by_name(text).number
    except TableError as e:  # mode_by_name's own error already lists the valid names
        raise CliError(e.message) from None


def _mode_label(number) -> str:
    from .modes import MODES

    if number is None:
        return "unknown"
    if not 0 <= int(number) < len(MODES):
        return f"{int(number):02d} (not a known mode)"
    m = MODES[int(number)]
    tiles = f", {m.tiles} tiles" if m.tiles else ""
    return f"{m.code} {m.name} ({m.words('ja')}{tiles})"


# --------------------------------------------------------------------------- table commands
def _run_table_command(args, command: str, cmd_args: dict | None = None) -> int:
    db = _db_path(args)
    wait = args.wait if args.wait is not None else DEFAULT_WAIT.get(command, DEFAULT_WAIT_OTHER)
    key = f"cli-{uuid.uuid4()}"
    try:
        cid = store.request_command(db, args.table, command, cmd_args, key,
                                    expires_in=wait, source="cli")
    except store.StoreError as e:
        raise CliError(e.message) from None
    daemon = store.daemon_status(db)
    if not daemon["running"] and not args.json:
        print(f"note: the tablectl daemon does not seem to be running; request #{cid} is "
              f"queued and will be dropped if not sent within {wait:g} s", file=sys.stderr)
    row = store.wait_command(db, cid, wait)
    if row["status"] in ("queued",):
        row = store.withdraw_command(
            db, cid, f"not sent: nothing took the request within {wait:g} s "
                     "(is the tablectl daemon running?) / デーモン未応答のため送信しませんでした")
    return _report(args, row, daemon)


def _report(args, row: dict, daemon: dict) -> int:
    status = row["status"]
    if status == "done":
        _emit(args, row, f"{args.table}: {describe_result(row['command'], row['result'] or {})}")
        return 0
    if status == "sending":
        _emit(args, row, f"{args.table}: command #{row['id']} is still being carried out; "
                         f"see `tablectl show {row['id']}` later")
        return 3
    msg = row["error_message"] or status
    if row["error_code"] == "not_sent" and not daemon["running"]:
        msg += " — start it with `systemctl start tablectl` or `tablectl serve --config ...`"
    _emit(args, row, f"{args.table}: {row['command']} {status.replace('_', ' ')}: {msg}")
    return 1


def describe_result(command: str, result: dict) -> str:
    """A result dict from the daemon in plain words (one line per fact)."""
    fn = _DESCRIBE.get(command)
    if fn is not None:
        try:
            return fn(result)
        except (KeyError, TypeError, ValueError):
            pass  # an unexpected shape: fall back to listing the fields
    return ", ".join(f"{k}: {v}" for k, v in result.items()) or "done"


def _describe_mode(r: dict) -> str:
    if r.get("applied_now"):
        return f"mode {_mode_label(r['mode'])} selected (already the current mode)"
    return (f"mode {_mode_label(r['requested'])} selected; it applies from the next cycle "
            f"(playing now: {_mode_label(r['mode'])})")


def _describe_cycle(r: dict) -> str:
    lines = [f"cycle finished in mode {_mode_label(r.get('mode'))}"]
    if r.get("walls_only"):
        lines.append("this table has no auto-deal: walls raised only, players take their hands")
    elif r.get("hands") is not None:
        lines.append("hands raised: " + ", ".join(f"seat {i + 1} {n} tiles"
                                                  for i, n in enumerate(r["hands"])))
    if r.get("dice"):
        lines.append(f"dice {r['dice'][0]} + {r['dice'][1]} = {sum(r['dice'])}")
    return "; ".join(lines)


def _describe_dice(r: dict) -> str:
    return f"dice {r['dice'][0]} + {r['dice'][1]} = {sum(r['dice'])}"


def _describe_check(r: dict) -> str:
    ok = "tile count OK" if r["ok"] else "tile count WRONG"
    return f"{ok}: counted {r['counted']} of {r['expected']} tiles"


def _describe_points(r: dict) -> str:
    seats = ", ".join(f"seat {i + 1}: {p}" for i, p in enumerate(r["points"]) if p is not None)
    return f"point sticks — {seats}"


def _describe_reset(r: dict) -> str:
    text = f"errors cleared: {', '.join(r['cleared']) or 'none'}"
    if r["remaining"]:
        text += f"; still present (fix the cause first): {', '.join(r['remaining'])}"
    return text


def _describe_status(r: dict) -> str:
    return (f"mode {_mode_label(r.get('mode'))}, cycle {r.get('cycle_state')}, "
            f"lid {r.get('lid')}, errors: {', '.join(map(str, r.get('errors') or [])) or 'none'}")


_DESCRIBE: dict[str, Callable[[dict], str]] = {
    "mode": _describe_mode, "cycle": _describe_cycle, "dice": _describe_dice,
    "check": _describe_check, "points": _describe_points, "status": _describe_status,
    "deal": _describe_cycle, "reset": _describe_reset,
}


def cmd_mode(args) -> int:
    """Select a game mode (applies from the next cycle)."""
    return _run_table_command(args, "mode", {"mode": _mode_number(args.mode)})


def cmd_cycle(args) -> int:
    """Shuffle, raise the walls and (auto-deal tables) the hands."""
    return _run_table_command(args, "cycle")


def cmd_dice(args) -> int:
    """Roll the table's dice."""
    return _run_table_command(args, "dice")


def cmd_check(args) -> int:
    """Count the tiles in the set against the mode."""
    return _run_table_command(args, "check")


def cmd_points(args) -> int:
    """Read each seat's point-stick total."""
    return _run_table_command(args, "points")


def cmd_reset(args) -> int:
    """Clear the table's latched errors (the reset: both dice switches held)."""
    return _run_table_command(args, "reset")


# --------------------------------------------------------------------------- status / show / serve
def cmd_status(args) -> int:
    """Every table: connected?, model, mode, cycle, errors; and whether the daemon runs."""
    db = _db_path(args)
    tables = store.list_tables(db)
    daemon = store.daemon_status(db)
    if args.json:
        _emit(args, {"daemon": daemon, "tables": tables}, "")
        return 0
    print(f"daemon: {'running (pid %s)' % daemon['pid'] if daemon['running'] else 'NOT running'}")
    if not tables:
        print("no tables configured yet (the daemon registers them from its config)")
    for t in tables:
        print(_table_line(t))
    return 0


def _table_line(t: dict) -> str:
    if not t["connected"]:
        why = f" — {t['last_error']}" if t.get("last_error") else ""
        return f"{t['table_id']} ({t['name']}): DISCONNECTED{why}"
    pending = t.get("pending_mode")
    parts = [f"{t['table_id']} ({t['name']}): {t.get('model') or '?'} "
             f"fw {t.get('firmware') or '?'}",
             f"mode {_mode_label(t.get('mode'))}"]
    if pending is not None and pending != t.get("mode"):
        parts.append(f"next cycle: {_mode_label(pending)}")
    parts.append(f"cycle {t.get('cycle_state') or '?'}, lid {t.get('lid') or '?'}")
    errs = t.get("errors") or []
    parts.append("errors: " + (", ".join(map(str, errs)) if errs else "none"))
    return "; ".join(parts)


def cmd_show(args) -> int:
    """One journalled command by id."""
    try:
        row = store.get_command(_db_path(args), args.id)
    except store.StoreError as e:
        raise CliError(e.message) from None
    text = (f"#{row['id']} {row['command']} {row['args'] or ''} on {row['table_id']}: "
            f"{row['status']}")
    if row["status"] == "done":
        text += " — " + describe_result(row["command"], row["result"] or {})
    elif row["error_message"]:
        text += f" — {row['error_message']}"
    _emit(args, row, text)
    return 0


def cmd_serve(args) -> int:
    """Run the daemon (normally under systemd)."""
    from .daemon import serve

    return serve(args.config)


# --------------------------------------------------------------------------- parser
def _common(suppress: bool) -> argparse.ArgumentParser:
    # The same options before or after COMMAND; on the subcommand they default
    # to SUPPRESS so they do not overwrite a value given before it.
    d = (lambda v: argparse.SUPPRESS) if suppress else (lambda v: v)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--config", default=d(DEFAULT_CONFIG),
                        help=f"club TOML (default {DEFAULT_CONFIG}, or $TABLECTL_CONFIG)")
    common.add_argument("--db", default=d(None),
                        help="the shared SQLite store (overrides the config's db)")
    common.add_argument("--json", action="store_true", default=d(False),
                        help="answer in JSON for scripts")
    return common


def build_parser() -> argparse.ArgumentParser:
    """The argparse parser: one subparser per command."""
    p = argparse.ArgumentParser(prog="tablectl", description="Drive the club's automatic tables.",
                                parents=[_common(False)])
    common = _common(True)
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def _add(name, fn, table=True, **kw):
        sp = sub.add_parser(name, help=fn.__doc__.strip().splitlines()[0], parents=[common], **kw)
        if table:
            sp.add_argument("table", metavar="TABLE", help="table id from the config, e.g. t1")
            sp.add_argument("--wait", type=float, default=None,
                            help="seconds to wait for the table (default: 20, cycle 150)")
        sp.set_defaults(func=fn)
        return sp

    _add("status", cmd_status, table=False)
    mode = _add("mode", cmd_mode)
    mode.add_argument("mode", metavar="MODE", help="number (04) or name (sanma, yonma, check...)")
    _add("cycle", cmd_cycle)
    _add("dice", cmd_dice)
    _add("check", cmd_check)
    _add("points", cmd_points)
    _add("reset", cmd_reset)
    _add("show", cmd_show, table=False).add_argument("id", type=int, help="command id")
    _add("serve", cmd_serve, table=False)
    return p


def main(argv: list[str] | None = None) -> int:
    """Console entry point; returns the exit status (0 ok, 1 table said no, 2 usage)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except CliError as e:
        print(f"tablectl: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
