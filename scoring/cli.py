"""``python -m scoring``: a thin dispatcher over the scoring engine.

Each subcommand is one entry of :data:`SUBCOMMANDS`: its name, a one-line
help, and the module holding its ``add_arguments(parser)`` and
``run(args) -> int`` (imported only when that subcommand runs, so a slow or
broken module never delays another). Library errors become messages and
exit codes here, at the edge, never tracebacks.

    python -m scoring batch --rules netmahjong < hands.jsonl > results.jsonl
    python -m scoring hand --rules nekohouse-4a --hand 234m456p678s2345s --win 5s --tsumo --riichi
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import os
import signal
import stat
import sys

from .errors import ScoringError

# name -> (help, module, add_arguments function, run function); add a subcommand by adding a line
SUBCOMMANDS: dict[str, tuple[str, str, str, str]] = {
    "batch": ("score JSON lines from stdin to stdout (docs/contracts/scoring-batch.md)",
              "scoring.cli", "add_batch_arguments", "run_batch"),
    "hand": ("score one hand and explain it: yaku, fu line by line, payments",
             "scoring.cli", "add_hand_arguments", "run_hand"),
    "game": ("replay a game's events (JSON lines) to its hands and settlement (docs/contracts/game-events.md)",
             "scoring.game", "add_arguments", "run"),
    "rules-doc": ("write docs/rules.md from the rules schema, the presets and the yaku registry",
                  "scoring.docs", "add_arguments", "run"),
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; only ``command``'s module is imported to add its arguments (every
    subcommand is listed in --help all the same). None: every module's arguments."""
    ap = argparse.ArgumentParser(prog="python -m scoring", description="Jantaku scoring engine")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name, (help_, module, add_fn, _run) in SUBCOMMANDS.items():
        sp = sub.add_parser(name, help=help_, description=help_)
        if command is None or name == command:
            getattr(importlib.import_module(module), add_fn)(sp)
    return ap


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    # the subcommand is the first word that is not an option (the top level has no others)
    command = next((a for a in argv if not a.startswith("-")), "")
    args = build_parser(command).parse_args(argv)
    _help, module, _add, run_fn = SUBCOMMANDS[args.command]
    try:
        return getattr(importlib.import_module(module), run_fn)(args)
    except ScoringError as e:
        print(f"error: {e.message}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `... | head` closed the pipe: not an error of ours
        return 0


# --------------------------------------------------------------------------- batch
ROUND = 1 << 22  # bytes of input read at a time (about 20,000 lines), shared out among workers
MIN_SHARE = 1 << 16  # below this much input per worker, one process is quicker than forking


def add_batch_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--rules", default="netmahjong",
                    help="preset id (netmahjong, mahjongbu, nekohouse-4a, ...) or a .toml file; "
                         "a line's own \"rules\" wins (default: netmahjong)")
    ap.add_argument("--workers", type=int, default=0,
                    help="processes scoring in parallel for large inputs (default: one per CPU, at most 4; "
                         "1 = this process only)")


def _chunks(stream, size: int):
    """Whole lines of a binary stream, in pieces of about ``size`` bytes."""
    held: list[bytes] = []
    while data := stream.read(size):
        cut = data.rfind(b"\n") + 1
        if not cut:  # no line ends here yet
            held.append(data)
            continue
        held.append(data[:cut])
        yield b"".join(held)
        held = [data[cut:]]
    if any(held):
        yield b"".join(held)


def _cut_points(start: int, end: int, n: int, after_line_end) -> list[int]:
    """``[start, ..., end]``: offsets cutting ``start``..``end`` into at most ``n`` parts of
    about equal size, each cut moved on to ``after_line_end(pos)``, the offset just past the
    first newline at or after ``pos`` (``end`` if there is none)."""
    cuts = [start]
    for i in range(1, n):
        pos = after_line_end(max(start + (end - start) * i // n, cuts[-1]))
        if pos >= end:
            break
        if pos > cuts[-1]:
            cuts.append(pos)
    cuts.append(end)
    return cuts


def _shares(data: bytes, n: int) -> list[bytes]:
    """``data`` cut at line ends into at most ``n`` pieces of about equal size, in order."""
    cuts = _cut_points(0, len(data), n, lambda pos: data.find(b"\n", pos) + 1 or len(data))
    return [data[a:b] for a, b in zip(cuts, cuts[1:], strict=False)]


def _score_chunk(data: bytes, rules) -> bytes:
    """Score a piece of the input; the output bytes, one line per input line.

    A bad byte becomes U+FFFD, so its line is reported as not JSON instead of stopping
    the batch (a newline is never part of a multi-byte sequence, so cutting the input
    at newlines first changes nothing)."""
    from .hand import score_batch

    lines = data.decode("utf-8", errors="replace").split("\n")
    if not lines[-1]:
        lines.pop()
    return "".join([text + "\n" for text in score_batch(lines, rules)]).encode("utf-8")


def score_shares(sources: list, rules, out, score=_score_chunk) -> None:
    """Write the scores of every share of the input to ``out``, in order. A share is a
    function giving its input pieces (bytes of whole lines); the first is scored here while
    a forked child scores each other one into a spool. Forking shares the loaded engine and
    its warm caches with no copying or pickling. A child that dies (killed, out of memory)
    has its share scored here instead, from the start, so no line is lost or answered twice."""
    children = []
    for source in sources[1:]:
        spool = _spool()
        pid = os.fork()
        if pid == 0:  # the child: score, write, leave without running the parent's exit code
            code = 1
            try:
                for data in source():
                    spool.write(score(data, rules))
                spool.flush()
                code = 0
            finally:
                os._exit(code)
        children.append((pid, spool, source))
    try:
        for data in sources[0]():
            out.write(score(data, rules))
        while children:
            pid, spool, source = children[0]
            _, status = os.waitpid(pid, 0)
            children.pop(0)
            with spool:
                if status == 0:
                    spool.seek(0)
                    while block := spool.read(1 << 20):
                        out.write(block)
                else:
                    for data in source():
                        out.write(score(data, rules))
    except BaseException:  # the reader went away (`| head`), Ctrl-C: stop the children too
        for pid, spool, _source in children:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            spool.close()
        raise


def _spool():
    """An anonymous temporary file for a child's output."""
    import tempfile

    return tempfile.TemporaryFile()


class _Range:
    """Bytes ``start``..``end`` of a file, read by offset (``os.pread``), so that each worker
    reads its own share of a file on stdin without moving a shared file position."""

    def __init__(self, fd: int, start: int, end: int) -> None:
        self.fd, self.pos, self.end = fd, start, end

    def read(self, n: int) -> bytes:
        n = min(n, self.end - self.pos)
        data = os.pread(self.fd, n, self.pos) if n > 0 else b""
        self.pos += len(data)
        return data


def _file_region(stream) -> tuple[int, int] | None:
    """``(position, size)`` of a regular file on ``stream``; None for a pipe or terminal."""
    try:
        fd = stream.fileno()
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None
        return os.lseek(fd, 0, os.SEEK_CUR), st.st_size
    except (OSError, ValueError):  # no file descriptor, or one that cannot seek
        return None


def _cuts(fd: int, start: int, end: int, n: int) -> list[int]:
    """:func:`_cut_points` of bytes ``start``..``end`` of a file, read by offset."""

    def after_line_end(pos: int) -> int:
        while pos < end:
            block = os.pread(fd, 1 << 16, pos)
            if not block:
                break
            line_end = block.find(b"\n")
            if line_end >= 0:
                return pos + line_end + 1
            pos += len(block)
        return end

    return _cut_points(start, end, n, after_line_end)


def _quiet_gc() -> None:
    # Scoring makes no reference cycles (tests/scoring/test_batch_cli.py checks), so reference
    # counting frees everything and the cyclic collector's passes over the many small
    # objects of each line (about a tenth of the run) find nothing: it is switched off.
    gc.disable()


def run_batch(args: argparse.Namespace) -> int:
    """One output line per input line, in order; bad lines become ``ok: false`` lines.

    With ``--workers`` above 1, a file on stdin is cut into that many shares, each read
    and scored by its own process (this one and forked children); piped input is read a
    round at a time and each round shared out the same way. Small input is scored here.
    """
    from .rules import load_rules

    rules = load_rules(args.rules)  # a bad --rules stops here, before any output
    _quiet_gc()
    workers = max(1, args.workers or min(os.cpu_count() or 1, 4))
    out = sys.stdout.buffer  # UTF-8 whatever the locale says
    region = _file_region(sys.stdin.buffer)
    if region is not None and workers > 1:
        fd, (start, end) = sys.stdin.buffer.fileno(), region
        cuts = _cuts(fd, start, end, max(1, min(workers, (end - start) // MIN_SHARE)))
        shares = [_pieces_of(fd, a, b) for a, b in zip(cuts, cuts[1:], strict=False)]
        score_shares(shares, rules, out)
    else:
        for data in _chunks(sys.stdin.buffer, ROUND):
            n = min(workers, len(data) // MIN_SHARE)
            if n < 2:
                out.write(_score_chunk(data, rules))
            else:
                score_shares([_given(x) for x in _shares(data, n)], rules, out)
    out.flush()
    return 0


def _pieces_of(fd: int, start: int, end: int):
    """A share of a file: its pieces read afresh each time it is asked for."""
    return lambda: _chunks(_Range(fd, start, end), ROUND)


def _given(data: bytes):
    """A share already in memory."""
    return lambda: (data,)


# --------------------------------------------------------------------------- hand
_FLAGS = ("tsumo", "riichi", "double_riichi", "open_riichi", "ippatsu", "rinshan", "chankan", "haitei",
          "houtei", "tenhou", "chiihou", "renhou", "pocchi", "ankan_chankan",
          # MCR win conditions (--rules mcr)
          "last_tile", "wall_last", "kong_replacement", "robbing_kong")


def add_hand_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--rules", default="netmahjong", help="preset id or .toml file (default: netmahjong)")
    ap.add_argument("--hand", required=True, help="concealed tiles with the winning tile, e.g. 234m456p678s2345s")
    ap.add_argument("--win", required=True, help="the winning tile, e.g. 5s")
    ap.add_argument("--meld", action="append", default=[], metavar="TYPE:TILES[:FROM]",
                    help="a called or declared set, e.g. pon:555z:across, chi:345m, ankan:1111z (repeatable)")
    for flag in _FLAGS:
        ap.add_argument("--" + flag.replace("_", "-"), dest=flag, action="store_true")
    ap.add_argument("--seat", default="E", help="seat wind E/S/W/N (default E, the dealer)")
    ap.add_argument("--round", default="E", help="round wind E/S/W/N (default E)")
    ap.add_argument("--dora", default="", help="dora indicators, e.g. 3m7z")
    ap.add_argument("--ura", default="", help="ura-dora indicators")
    for counter in ("nukidora", "honba", "kyoutaku", "flowers"):
        ap.add_argument("--" + counter, type=int, default=0)
    ap.add_argument("--json", action="store_true", help="print the batch output line instead of the explanation")


def _meld(text: str) -> dict:
    parts = text.split(":")
    if len(parts) not in (2, 3):
        raise ScoringError(f"--meld {text!r}: write TYPE:TILES or TYPE:TILES:FROM, e.g. pon:555z:across")
    out = {"type": parts[0], "tiles": parts[1]}
    if len(parts) == 3:
        out["from"] = parts[2]
    return out


def hand_line(args: argparse.Namespace) -> dict:
    """The batch input line the ``hand`` options describe."""
    line = {"hand": args.hand, "win": args.win, "melds": [_meld(m) for m in args.meld],
            "seat_wind": args.seat, "round_wind": args.round, "dora": args.dora, "ura": args.ura,
            "nukidora": args.nukidora, "honba": args.honba, "kyoutaku": args.kyoutaku}
    if args.flowers:
        line["flowers"] = args.flowers
    line.update({f: True for f in _FLAGS if getattr(args, f)})
    return line


def run_hand(args: argparse.Namespace) -> int:
    from .hand import score_hand
    from .rules import load_rules

    rules = load_rules(args.rules)
    line = hand_line(args)
    out = score_hand(line, rules)
    if args.json:
        print(json.dumps(out, ensure_ascii=False))
        return 0 if out["ok"] else 1
    if rules.table.family == "mcr":
        from .mcr import explanation as mcr_explanation

        print("\n".join(mcr_explanation(line, out)))
        return 0 if out["ok"] else 1
    if not out["ok"]:
        print(f"not scored ({out['error']['code']}): {out['error']['message']}")
        return 1
    print("\n".join(explanation(line, out, rules)))
    return 0


def explanation(line: dict, out: dict, rules) -> list[str]:
    """A readable account of a scored hand: yaku with han, fu line by line, payments."""
    from .yaku import BY_ID

    how = "tsumo" if line.get("tsumo") else "ron"
    rows = [f"{line['hand']}  win {line['win']} ({how})  seat {line.get('seat_wind', 'E')} "
            f"round {line.get('round_wind', 'E')}  rules {rules.name}"]
    if out.get("pocchi_as"):
        rows.append(f"pocchi taken as {out['pocchi_as']}")
    rows += ["", f"yaku ({out['wait']} wait):"]
    for y in out["yaku"]:
        ja = BY_ID[y["name"]].ja if y["name"] in BY_ID else ""
        worth = f"yakuman x{y['yakuman']}" if y.get("yakuman") else f"{y['han']} han"
        rows.append(f"  {y['name']:<20} {ja:<12} {worth}")
    total = f"yakuman x{out['yakuman']}" if out["yakuman"] else f"{out['han']} han"
    rows.append(f"  {'total':<20} {'':<12} {total}")
    rows += ["", "fu:"]
    rows += [f"  {reason:<40} {fu:>3}" for reason, fu in out["fu_detail"]]
    rows.append(f"  {'= fu':<40} {out['fu']:>3}" + ("" if rules.fu.use_fu else "  (this rule set pays without fu)"))
    rows += ["", f"value: {out['value']}" + (f" ({out['limit']})" if out["limit"] else "")]
    rows.append("pay:   " + _pay_text(out["pay"]))
    extras = [f"honba +{out['honba_bonus']}", f"deposits +{out['kyoutaku_bonus']}",
              f"chips {out['chips'].get('total', 0)}"]
    rows.append("       " + ", ".join(extras))
    return rows


def _pay_text(pay: dict) -> str:
    if "ron" in pay:
        return f"{pay['ron']} from the discarder"
    if "all" in pay:
        return f"{pay['all']} from each player"
    return f"{pay['dealer']} from the dealer, {pay['non_dealer']} from each other player"
