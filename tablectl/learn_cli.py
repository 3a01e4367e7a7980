"""``tablectl learn TABLE --model NAME``: staff change the game once by hand while the
bridge records the switches; the sequence learned is written to club.toml.

Unlike the table commands this opens the table's port itself (the bridge's sense
inputs are read while nothing is sent to the table), so the table daemon must not hold
it: stop it first. Nothing is written unless the recording is one whole mode change;
club.toml is replaced whole (written beside it, then renamed) and only after the new
file passes the same checks the daemon makes at start.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
import tomllib
from pathlib import Path
from typing import Any, Callable

from . import words
from .config import config_from_mapping, load_config
from .errors import TableError
from .learn import (
    PANEL,
    LearnError,
    Recording,
    check_wiring,
    compare,
    demonstration,
    from_sequence,
    learn,
    with_model,
)

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
POLL_S = 0.25


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    """The ``learn`` subcommand."""
    sp = sub.add_parser("learn", help=(cmd_learn.__doc__ or "").splitlines()[0],
                        description=cmd_learn.__doc__, parents=[common])
    sp.add_argument("table", metavar="TABLE", help="table id from the config, e.g. t1")
    sp.add_argument("--model", required=True, help="the [models.NAME] section to write")
    sp.add_argument("--seconds", type=float, default=900.0,
                    help="the longest the recording runs (default 900)")
    sp.add_argument("--quiet", type=float, default=5.0,
                    help="a whole change followed by this many seconds of no press ends "
                         "the recording (default 5)")
    sp.add_argument("--dry-run", action="store_true", help="learn and say, write nothing")
    sp.set_defaults(func=cmd_learn)


def cmd_learn(args: argparse.Namespace) -> int:
    """Learn a table's switch sequence from one mode change made by hand (needs the
    bridge's sense inputs; stop the daemon first)."""
    lang = args.lang

    def say(key: str, **values: Any) -> None:
        # with --json the words go to stderr and stdout is the result alone
        print(words.say(f"table.learn.{key}", lang, **values), flush=True,
              file=sys.stderr if args.json else sys.stdout)

    def refuse(e: TableError) -> int:
        print(f"tablectl: {e.text(lang) if lang != words.BOTH else e.message}", file=sys.stderr)
        return 1

    if not _NAME.match(args.model):
        return refuse(LearnError(code="learn_bad_name", model=args.model))
    try:
        cfg = load_config(args.config)
        table = cfg.table(args.table)
    except TableError as e:
        print(f"tablectl: {e.text(lang) if lang != words.BOTH else e.message}", file=sys.stderr)
        return 2
    o = table.options
    if table.driver != "jpex-panel" or o.get("board") != "bridge":
        return refuse(LearnError(code="learn_not_bridge", table=table.id))
    channels = {n: int(o[n]) for n in PANEL if n in o}
    try:
        check_wiring(channels)
    except LearnError as e:
        return refuse(e)

    from .drivers.boards import BoardError
    from .drivers.bridge_board import BridgeBoard

    board = BridgeBoard(table.url, int(o["board_channels"]),
                        table.serial if o.get("serial_given") else None, lock_dir=cfg.lock_dir)
    try:
        board.open()
    except BoardError as e:
        refuse(e)
        say("port_hint")
        return 1
    try:
        board.record_start()
        say("press_now")
        recording = _record(board, channels, args.seconds, args.quiet,
                            lambda n: say("recorded", edges=n))
    except BoardError as e:
        return refuse(e)
    finally:
        board.close()
    power = sum(1 for e in recording.edges if e.source == "P")
    say("stopped", presses=(len(recording.edges) - power) // 2, power=power)
    try:
        learned = learn(recording, channels)
    except LearnError as e:
        return refuse(e)
    seen = learned.seen
    assert seen is not None
    say("learned", boot=learned.boot_ms, switch=learned.hold_switch, hold=learned.hold_ms,
        steps=len(seen.steps), press=learned.press_ms, wait=learned.step_wait_ms,
        reset=learned.reset_ms)
    guess = from_sequence(o["sequence"], o)
    findings = compare(guess, seen)
    say("guess_differs" if findings else "guess_agrees", model=o.get("model", "default"))
    for f in findings:
        say("finding", what=words.say(f"table.learn.what.{f.what}", lang), expected=f.expected,
            seen=f.seen)
    result = {"table": table.id, "model": args.model, "sequence": learned.model(),
              "boot_ms": learned.boot_ms, "steps": seen.net_steps,
              "findings": [vars(f) for f in findings], "written": None}
    if args.dry_run:
        say("dry_run")
    else:
        try:
            _write(Path(cfg.path), table.id, args.model, learned)
        except TableError as e:
            return refuse(e)
        say("written", path=cfg.path, model=args.model, table=table.id)
        result["written"] = cfg.path
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=2))
    return 0


def _record(board: Any, channels: dict[str, int], seconds: float, quiet: float,
            progress: Callable[[int], None]) -> Recording:
    """Record until a whole change has been followed by ``quiet`` seconds of nothing, or
    ``seconds`` have passed, or staff press Ctrl-C; the recording as the bridge kept it."""
    start = last_change = time.monotonic()
    edges, checked = 0, -1
    try:
        while time.monotonic() - start < seconds:
            time.sleep(POLL_S)
            status = board.record_status()
            if status["overflow"]:
                break
            if status["edges"] != edges:
                edges, last_change = status["edges"], time.monotonic()
                progress(edges)
            if edges and edges != checked and time.monotonic() - last_change >= quiet:
                checked = edges         # read back once per quiet spell
                try:
                    demonstration(board.record_read(), channels)
                    break
                except LearnError:
                    pass                # not a whole change yet: staff go on
    except KeyboardInterrupt:
        pass
    board.record_stop()
    result: Recording = board.record_read()
    return result


def _write(path: Path, table_id: str, name: str, learned: Any) -> None:
    """club.toml with the learned model, checked as the daemon checks it, then put in
    place whole (a crash leaves the old file or the new one, never half of one)."""
    text = path.read_text(encoding="utf-8")
    new = with_model(text, table_id, name, learned)
    config_from_mapping(tomllib.loads(new), path)      # refused in words, nothing written
    fd, tmp = tempfile.mkstemp(dir=str(path.parent), prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(new)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, path.stat().st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
