"""``tablectl``: the staff command line and the daemon's entry point.

Every table command goes through the shared store (:class:`tablectl.client.TableClient`:
request, then wait), so it works while the daemon runs and never opens a port
itself. The table commands are made from the rows of :mod:`tablectl.commands`
(one subcommand per row). Everything printed is in words from the catalogue,
Japanese and English (``--lang ja|en``, or ``$JANTAKU_LANG``, for one of them).
"""

from __future__ import annotations

import argparse
import getpass
import json
import os
import re
import sys
import unicodedata
from typing import Any

from . import commands, store, words
from .client import TableClient
from .config import DEFAULT_TIMEZONE, load_config
from .errors import TableError

DEFAULT_CONFIG = os.environ.get("TABLECTL_CONFIG", "/etc/jantaku/club.toml")


class CliError(Exception):
    """A problem the user can fix; printed as one line, exit status 2."""


# --------------------------------------------------------------------------- plumbing
def _place(args: argparse.Namespace) -> tuple[str, str]:
    """The store's path and the club's time zone; the store must exist (a typo must not
    create an empty store)."""
    tz = DEFAULT_TIMEZONE
    if getattr(args, "db", None):
        path = args.db
        if os.path.exists(args.config):
            try:
                tz = load_config(args.config, tables=False).timezone
            except TableError:
                pass
    else:
        try:
            cfg = load_config(args.config, tables=False)
        except TableError as e:
            raise CliError(e.text(args.lang) if args.lang != words.BOTH else e.message) from None
        path, tz = cfg.db, cfg.timezone
    if not os.path.exists(path):
        raise CliError(words.code("no_store", args.lang, {"path": path}))
    return str(path), tz


def _emit(args: argparse.Namespace, data: Any, text: str) -> None:
    if args.json:
        print(json.dumps(data, ensure_ascii=False, indent=2, default=str))
    else:
        print(text)


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "?"


# --------------------------------------------------------------------------- table commands
def run_table_command(args: argparse.Namespace) -> int:
    """Send one staff command (``args.command``) to ``args.table`` and report its outcome."""
    spec = commands.get(args.command)
    db, tz = _place(args)
    try:
        cmd_args = spec.from_person({a.name: getattr(args, a.name, None) for a in spec.args})
    except TableError as e:
        raise CliError(_err(e, args.lang)) from None
    client = TableClient(db, source="cli", actor=_user(), tz=tz, lang=args.lang)
    note = None if args.json else (lambda text: print(text, file=sys.stderr))
    try:
        answer = client.send(args.table, spec.name, cmd_args, wait=args.wait, note=note)
    except store.CommandInFlight as e:
        _emit(args, {"error": e.code, **e.values}, e.text(args.lang))
        return 1
    except TableError as e:
        raise CliError(_err(e, args.lang)) from None
    text = answer.text(args.lang)
    if answer.state == "running":
        text = words.say("table.wait.still_running", args.lang, id=answer.row["id"],
                     command=spec.label(args.lang) if args.lang != words.BOTH else spec.name)
    _emit(args, answer.row, f"{args.table}: {text}")
    return answer.exit_code


def _err(e: TableError, lang: str) -> str:
    return e.message if lang == words.BOTH else e.text(lang)


# --------------------------------------------------------------------------- status / show / serve
def cmd_status(args: argparse.Namespace) -> int:
    """Every table: connected?, model, mode, cycle, errors; and whether the daemon runs.
    With a TABLE: ask that table for its state now."""
    if args.table:
        args.command = "status"
        return run_table_command(args)
    db, tz = _place(args)
    tables = sorted(store.list_tables(db), key=lambda t: natural_key(t["table_id"]))
    daemon = store.daemon_status(db)
    if args.json:
        _emit(args, {"daemon": daemon, "tables": tables}, "")
        return 0
    lang = args.lang
    print(_daemon_line(daemon, lang, tz))
    if not tables:
        print(words.say("table.status.no_tables", lang))
    for t in tables:
        print(table_line(t, daemon, lang))
        row = store.in_flight(db, t["table_id"])
        if row is not None:
            spec = commands.COMMANDS.get(row["command"])
            print("    " + one_line(words.say(
                "table.status.in_flight", lang,
                running=spec.running(lang) if spec else row["command"],
                who=row["actor"] or row["source"] or "?",
                since=words.clock(row["started_at"] or row["created_at"], tz))))
    return 0


def natural_key(text: str) -> list[Any]:
    """Sort key that puts numbers in their order: ``t2`` before ``t10``."""
    return [int(part) if part.isdigit() else part.casefold()
            for part in re.split(r"(\d+)", text)]


_BREAKS = {"Cc", "Cf", "Zl", "Zp", "Cs"}


def one_line(text: str) -> str:
    """``text`` on one line: each run of control, format and line-break characters (text a
    device sent, such as a model string with a newline or an escape sequence) is one space."""
    out: list[str] = []
    for ch in text:
        if unicodedata.category(ch) in _BREAKS:
            if out and out[-1] != " ":
                out.append(" ")
        else:
            out.append(ch)
    return "".join(out).strip()


def _daemon_line(daemon: dict[str, Any], lang: str, tz: str) -> str:
    state = daemon["state"]
    if state == "running":
        return words.say("table.status.daemon_running", lang, pid=daemon["pid"])
    if state == "stale":
        return words.say("table.status.daemon_stale", lang, age=round(daemon["age_s"]),
                     pid=daemon["pid"], at=words.clock(daemon["heartbeat_at"], tz, seconds=True))
    return words.say(f"table.status.daemon_{state}", lang)


def table_line(t: dict[str, Any], daemon: dict[str, Any], lang: str) -> str:
    """One table's state in one line of words (device text kept on that line)."""
    if lang == words.BOTH:
        return words.in_both(lambda one: table_line(t, daemon, one), lang)
    return one_line(_table_words(t, daemon, lang))


def _table_words(t: dict[str, Any], daemon: dict[str, Any], lang: str) -> str:
    who = {"id": t["table_id"], "name": t["name"]}
    if daemon["state"] != "running" and daemon["state"] != "stopped" and t["connected"]:
        return words.say("table.status.unknown", lang, **who)
    if not t["connected"]:
        return words.say("table.status.disconnected", lang, **who,
                     reason=words.link(t.get("last_error"), lang, t.get("last_error_values")))
    parts = [words.say("table.status.connected", lang, **who, model=t.get("model") or "?",
                   firmware=t.get("firmware") or "?", mode=words.mode(t.get("mode"), lang))]
    pending = t.get("pending_mode")
    if pending is not None and pending != t.get("mode"):
        parts.append(words.say("table.status.next_mode", lang, mode=words.mode(pending, lang)))
    if t.get("cycle_state"):
        parts.append(words.say("table.status.state", lang,
                           cycle=words.say(f"table.cycle.{t['cycle_state']}", lang),
                           lid=words.say(f"table.lid.{t.get('lid')}", lang)))
    errs = t.get("errors") or []
    parts.append(words.say("table.status.errors", lang,
                       errors=words.listing((words.code(e, lang) for e in errs), lang)))
    return "; ".join(parts)


def cmd_show(args: argparse.Namespace) -> int:
    """One journalled command by id."""
    db, tz = _place(args)
    try:
        row = store.get_command(db, args.id)
    except TableError as e:
        raise CliError(_err(e, args.lang)) from None
    spec = commands.COMMANDS.get(row["command"])

    def line(lang: str) -> str:
        head = words.say("table.status.show", lang, id=row["id"],
                     command=spec.label(lang) if spec else row["command"],
                     args=json.dumps(row["args"], ensure_ascii=False) if row["args"] else "",
                     table=row["table_id"], status=words.say(f"table.status.{row['status']}", lang))
        return f"{head} — {commands.describe(row, lang, tz)}"
    _emit(args, row, words.in_both(line, args.lang))
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    """Run the daemon (normally under systemd)."""
    from .daemon import serve

    return serve(args.config)


# --------------------------------------------------------------------------- parser
def _common(suppress: bool) -> argparse.ArgumentParser:
    # The same options before or after COMMAND; on the subcommand they default to
    # SUPPRESS so they do not overwrite a value given before it.
    d = (lambda v: argparse.SUPPRESS) if suppress else (lambda v: v)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--config", default=d(DEFAULT_CONFIG),
                        help=f"club TOML (default {DEFAULT_CONFIG}, or $TABLECTL_CONFIG)")
    common.add_argument("--db", default=d(None),
                        help="the shared SQLite store (overrides the config's db)")
    common.add_argument("--json", action="store_true", default=d(False),
                        help="answer in JSON for scripts")
    common.add_argument("--lang", choices=words.LANG_CHOICES,
                        default=d(os.environ.get("JANTAKU_LANG", words.BOTH)),
                        help="the language of what is printed (default: both, or $JANTAKU_LANG)")
    return common


def build_parser() -> argparse.ArgumentParser:
    """The argparse parser: status, show, serve, and one subcommand per staff command."""
    p = argparse.ArgumentParser(prog="tablectl", description="Drive the club's automatic tables.",
                                parents=[_common(False)])
    common = _common(True)
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)

    st = sub.add_parser("status", help=(cmd_status.__doc__ or "").splitlines()[0],
                        parents=[common])
    st.add_argument("table", metavar="TABLE", nargs="?", help="ask this table (e.g. t1)")
    st.add_argument("--wait", type=float, default=None, help="seconds to wait for the table")
    st.set_defaults(func=cmd_status)
    for spec in commands.COMMANDS.values():
        if spec.name == "status":
            continue
        sp = sub.add_parser(spec.name, help=spec.help(), description=spec.help(),
                            parents=[common])
        sp.add_argument("table", metavar="TABLE", help="table id from the config, e.g. t1")
        for a in spec.args:
            if a.cli.startswith("--"):
                sp.add_argument(a.cli, dest=a.name, metavar=a.name.upper(), help=a.help)
            else:
                sp.add_argument(a.name, metavar=a.cli, help=a.help)
        sp.add_argument("--wait", type=float, default=None,
                        help=f"seconds to wait for the table (default {spec.wait:g})")
        sp.set_defaults(func=run_table_command)
    sh = sub.add_parser("show", help=cmd_show.__doc__, parents=[common])
    sh.add_argument("id", type=int, help="command id")
    sh.set_defaults(func=cmd_show)
    sub.add_parser("serve", help=cmd_serve.__doc__, parents=[common]).set_defaults(func=cmd_serve)
    from .learn_cli import add_parser as add_learn

    add_learn(sub, common)
    return p


def main(argv: list[str] | None = None) -> int:
    """Console entry point; returns the exit status (0 ok, 1 table said no, 2 usage,
    3 still running when the wait ended)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status: int = args.func(args)
        return status
    except CliError as e:
        print(f"tablectl: {e}", file=sys.stderr)
        return 2
    except store.DatabaseRefused as e:
        print(f"tablectl: {_err(e, args.lang)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
