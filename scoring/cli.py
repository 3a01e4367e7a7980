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
import itertools
import json
import multiprocessing
import os
import sys

from .errors import ScoringError

# name -> (help, module, add_arguments function, run function); add a subcommand by adding a line
SUBCOMMANDS: dict[str, tuple[str, str, str, str]] = {
    "batch": ("score JSON lines from stdin to stdout (contracts/scoring-batch.md)",
              "scoring.cli", "add_batch_arguments", "run_batch"),
    "hand": ("score one hand and explain it: yaku, fu line by line, payments",
             "scoring.cli", "add_hand_arguments", "run_hand"),
    "game": ("replay a game's events (JSON lines) to its hands and settlement (contracts/game-events.md)",
             "scoring.game", "add_arguments", "run"),
    "rules-doc": ("write docs/rules.md from the rules schema, the presets and the yaku registry",
                  "scoring.docs", "add_arguments", "run"),
}


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m scoring", description="Jantaku scoring engine")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name, (help_, module, add_fn, _run) in SUBCOMMANDS.items():
        sp = sub.add_parser(name, help=help_, description=help_)
        getattr(importlib.import_module(module), add_fn)(sp)
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    _help, module, _add, run_fn = SUBCOMMANDS[args.command]
    try:
        return getattr(importlib.import_module(module), run_fn)(args)
    except ScoringError as e:
        print(f"error: {e.message}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `... | head` closed the pipe: not an error of ours
        return 0


# --------------------------------------------------------------------------- batch
CHUNK = 1 << 17  # bytes of input per unit of work (about 700 lines)


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


_WORKER_RULES = None


def _init_worker(rules) -> None:
    global _WORKER_RULES
    _WORKER_RULES = rules
    _quiet_gc()


def _score_chunk(data: bytes) -> bytes:
    """Score a piece of the input; the output bytes, one line per input line.

    A bad byte becomes U+FFFD, so its line is reported as not JSON instead of stopping
    the batch (a newline is never part of a multi-byte sequence, so cutting the input
    at newlines first changes nothing)."""
    from .hand import score_batch

    lines = data.decode("utf-8", errors="replace").split("\n")
    if not lines[-1]:
        lines.pop()
    return "".join([text + "\n" for text in score_batch(lines, _WORKER_RULES)]).encode("utf-8")


def _quiet_gc() -> None:
    # Scoring makes no reference cycles (tests/test_batch_cli.py checks), so reference
    # counting frees everything and the cyclic collector's passes over the many small
    # objects of each line (about a tenth of the run) find nothing: it is switched off.
    gc.freeze()
    gc.disable()


def run_batch(args: argparse.Namespace) -> int:
    """One output line per input line, in order; bad lines become ``ok: false`` lines.

    Large inputs are scored in pieces by a pool of worker processes (order kept);
    a small input, or ``--workers 1``, is scored here.
    """
    global _WORKER_RULES
    from .rules import load_rules

    rules = load_rules(args.rules)  # a bad --rules stops here, before any output
    _WORKER_RULES = rules
    _quiet_gc()
    workers = args.workers or min(os.cpu_count() or 1, 4)
    chunks = _chunks(sys.stdin.buffer, CHUNK)
    head = list(itertools.islice(chunks, 2))
    out = sys.stdout.buffer  # UTF-8 whatever the locale says
    if workers < 2 or len(head) < 2:
        for chunk in itertools.chain(head, chunks):
            out.write(_score_chunk(chunk))
        out.flush()
        return 0
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(workers, initializer=_init_worker, initargs=(rules,)) as pool:
        for data in pool.imap(_score_chunk, itertools.chain(head, chunks)):
            out.write(data)
    out.flush()
    return 0


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
