"""``python -m scoring``: the command line, a thin layer of arguments over the engine.

Each subcommand is one entry of :data:`SUBCOMMANDS`: its help line, the function adding
its arguments and the function running it. A run function imports only the part of the
engine it needs, so ``batch`` starts without loading the game, docs or MCR modules.
Library errors become messages and exit codes here, at the edge, never tracebacks.

    python -m scoring batch --rules netmahjong < hands.jsonl > results.jsonl
    python -m scoring hand --rules nekohouse-4a --hand 234m456p678s2345s --win 5s --tsumo --riichi
    python -m scoring game --rules mahjongbu < events.jsonl > game.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Callable, TextIO

from .errors import ScoringError

_RULES_HELP = ("preset id (netmahjong, mahjongbu, nekohouse-4a, ...) or a .toml file "
               "(default: netmahjong)")


# --------------------------------------------------------------------------- batch
def add_batch_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--rules", default="netmahjong",
                    help=_RULES_HELP + "; a line's own \"rules\" wins")
    ap.add_argument("--workers", type=int, default=0,
                    help="processes scoring in parallel for large inputs (default: one per CPU, "
                         "at most 4; 1 = this process only)")


def run_batch(args: argparse.Namespace) -> int:
    from .batch import main
    from .rules import load_rules

    main(load_rules(args.rules), args.workers)  # a bad --rules stops here, before any output
    return 0


# --------------------------------------------------------------------------- hand
_FLAGS = ("tsumo", "riichi", "double_riichi", "open_riichi", "ippatsu", "rinshan", "chankan",
          "haitei", "houtei", "tenhou", "chiihou", "renhou", "pocchi", "ankan_chankan",
          # MCR win conditions (--rules mcr)
          "last_tile", "wall_last", "kong_replacement", "robbing_kong")


def add_hand_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--rules", default="netmahjong", help=_RULES_HELP)
    ap.add_argument("--hand", required=True,
                    help="concealed tiles with the winning tile, e.g. 234m456p678s2345s")
    ap.add_argument("--win", required=True, help="the winning tile, e.g. 5s")
    ap.add_argument("--meld", action="append", default=[], metavar="TYPE:TILES[:FROM]",
                    help="a called or declared set, e.g. pon:555z:across, chi:345m, ankan:1111z "
                         "(repeatable)")
    for flag in _FLAGS:
        ap.add_argument("--" + flag.replace("_", "-"), dest=flag, action="store_true")
    ap.add_argument("--seat", default="E", help="seat wind E/S/W/N (default E, the dealer)")
    ap.add_argument("--round", default="E", help="round wind E/S/W/N (default E)")
    ap.add_argument("--dora", default="", help="dora indicators, e.g. 3m7z")
    ap.add_argument("--ura", default="", help="ura-dora indicators")
    for counter in ("nukidora", "honba", "kyoutaku", "flowers"):
        ap.add_argument("--" + counter, type=int, default=0)
    ap.add_argument("--json", action="store_true",
                    help="print the batch output line instead of the explanation")


def _meld(text: str) -> dict[str, Any]:
    parts = text.split(":")
    if len(parts) not in (2, 3):
        raise ScoringError(
            f"--meld {text!r}: write TYPE:TILES or TYPE:TILES:FROM, e.g. pon:555z:across",
            reason="cli_meld_format", text=text,
        )
    out = {"type": parts[0], "tiles": parts[1]}
    if len(parts) == 3:
        out["from"] = parts[2]
    return out


def hand_line(args: argparse.Namespace) -> dict[str, Any]:
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
    elif rules.table.family == "mcr":
        from .mcr import explanation as mcr_explanation

        print("\n".join(mcr_explanation(line, out)))
    elif not out["ok"]:
        print(f"not scored ({out['error']['code']}): {out['error']['message']}")
    else:
        print("\n".join(explanation(line, out, rules)))
    return 0 if out["ok"] else 1


def explanation(line: dict[str, Any], out: dict[str, Any], rules: Any) -> list[str]:
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
    rows.append(f"  {'= fu':<40} {out['fu']:>3}"
                + ("" if rules.fu.use_fu else "  (this rule set pays without fu)"))
    rows += ["", f"value: {out['value']}" + (f" ({out['limit']})" if out["limit"] else "")]
    rows.append("pay:   " + _pay_text(out["pay"]))
    extras = [f"honba +{out['honba_bonus']}", f"deposits +{out['kyoutaku_bonus']}",
              f"chips {out['chips'].get('total', 0)}"]
    rows.append("       " + ", ".join(extras))
    return rows


def _pay_text(pay: dict[str, Any]) -> str:
    if "ron" in pay:
        return f"{pay['ron']} from the discarder"
    if "all" in pay:
        return f"{pay['all']} from each player"
    return f"{pay['dealer']} from the dealer, {pay['non_dealer']} from each other player"


# --------------------------------------------------------------------------- game
def add_game_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--rules", default="netmahjong", help=_RULES_HELP)


def run_game(args: argparse.Namespace) -> int:
    return game_main(args.rules, sys.stdin, sys.stdout, sys.stderr)


def game_main(rules_spec: Any, stdin: TextIO, stdout: TextIO,
              stderr: TextIO | None = None) -> int:
    """``python -m scoring game --rules R < events.jsonl > game.json``.

    Writes the contract's JSON (docs/contracts/game-events.md); on a refused event writes
    ``{"ok": false, "error": {...}, "line": n}`` and returns 1 (2 for bad rules)."""
    from .game import read_events, replay
    from .rules import load_rules

    try:
        out = replay(read_events(stdin), load_rules(rules_spec))
    except ScoringError as e:
        line = getattr(e, "line", None)
        err = {"ok": False, "error": e.as_result(), **({"line": line} if line else {})}
        json.dump(err, stdout, ensure_ascii=False)
        stdout.write("\n")
        if stderr is not None:
            stderr.write(f"error: {e.message}\n")
        return 1 if line else 2
    json.dump(out, stdout, ensure_ascii=False)
    stdout.write("\n")
    return 0


# --------------------------------------------------------------------------- rules-doc
def add_doc_arguments(ap: argparse.ArgumentParser) -> None:
    from .docs import add_arguments

    add_arguments(ap)


def run_doc(args: argparse.Namespace) -> int:
    from .docs import run

    return run(args)


# --------------------------------------------------------------------------- dispatch
# name -> (help, add_arguments, run); add a subcommand by adding a line
SUBCOMMANDS: dict[str, tuple[str, Callable[..., Any], Callable[[argparse.Namespace], int]]] = {
    "batch": ("score JSON lines from stdin to stdout (docs/contracts/scoring-batch.md)",
              add_batch_arguments, run_batch),
    "hand": ("score one hand and explain it: yaku, fu line by line, payments",
             add_hand_arguments, run_hand),
    "game": ("replay a game's events (JSON lines) to its hands and settlement "
             "(docs/contracts/game-events.md)", add_game_arguments, run_game),
    "rules-doc": ("write docs/rules.md from the rules schema, the presets and the yaku registry",
                  add_doc_arguments, run_doc),
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; only ``command``'s arguments are added (every subcommand is listed in
    --help all the same). None: every subcommand's arguments."""
    ap = argparse.ArgumentParser(prog="python -m scoring", description="Jantaku scoring engine")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name, (help_, add_arguments, _run) in SUBCOMMANDS.items():
        sp = sub.add_parser(name, help=help_, description=help_)
        if command is None or name == command:
            add_arguments(sp)
    return ap


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    # the subcommand is the first word that is not an option (the top level has no others)
    command = next((a for a in argv if not a.startswith("-")), "")
    args = build_parser(command).parse_args(argv)
    try:
        return SUBCOMMANDS[args.command][2](args)
    except ScoringError as e:
        print(f"error: {e.message}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # `... | head` closed the pipe: not an error of ours. Point stdout at nothing so the
        # interpreter's last flush does not report the closed pipe either.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
