"""Scoring speed: ``python -m scoring batch`` against the ``mahjong`` library, same hands, one run.

    python benchmarks/bench_scoring.py [--hands 20000 100000] [--seed 1] [--repeat 3]
                                       [--mcr-hands 20000]

Riichi: N seeded random complete hands (the generator of
tests/scoring/test_oracle_riichi.py: closed and open, seven pairs, kokushi, kans,
red fives, riichi, dora, ura ...) are written to a JSONL file; then the same for a mix
rich in hands that read several ways (``--sets``: "random" and "multi", the
generator's ``multi=True``: one suit, chinitsu and chuuren shapes, a run twice,
consecutive triplets that are also runs, kans, and yakuman), where picking the best
reading costs the most. Our side is
the real command, a subprocess reading that file on stdin and writing
results to a file (start-up included). The library's side reads the same
lines in this process and, per line, does what a caller of the library must:
``json.loads``, ``TilesConverter`` for hand, melds and indicators,
``HandConfig`` and ``HandCalculator.estimate_hand_value``. Both rates and
their ratio are printed, by wall-clock time (our command with its worker
processes against the library on one core, as a user sees it) and by CPU
time (work per hand, whatever the number of cores and however busy the
machine); the target is ratio >= 5. The command's start-up (Python, imports, rules) is
timed on empty input and printed: it is paid once per run, so the rate of a small batch
is lower than that of a large one, and two sizes are measured. Each side runs
``--repeat`` times, interleaved, and its best run counts: on a shared machine a run can
only be slowed by others, never
sped up, so the best run is the closest to what the code itself costs.

MCR: benchmarks/bench_mcr.py's :func:`measure` times ``python -m scoring
batch --rules mcr`` against PyMahjongGB the same way; its report is printed
below the riichi figures (``--mcr-hands 0`` leaves it out).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mahjong.hand_calculating.hand import HandCalculator  # noqa: E402
from mahjong.hand_calculating.hand_config import HandConfig, OptionalRules  # noqa: E402
from mahjong.meld import Meld  # noqa: E402
from mahjong.tile import TilesConverter  # noqa: E402

from tests.scoring.test_oracle_riichi import OPTIONS  # noqa: E402
from tests.scoring.test_oracle_riichi import lines as random_lines  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks"))
import bench_mcr  # noqa: E402

WIND = {"E": 27, "S": 28, "W": 29, "N": 30}
MELD = {
    "chi": Meld.CHI,
    "pon": Meld.PON,
    "minkan": Meld.KAN,
    "ankan": Meld.KAN,
    "kakan": Meld.SHOUMINKAN,
}
_AKA = {16, 52, 88}


def _ids(text: str, used: set) -> list[int]:
    """136 ids for a tile string, each physical tile once (the converter repeats ids)."""
    out = []
    for t in TilesConverter.one_line_string_to_136_array(text, has_aka_dora=True):
        if t in _AKA and t not in used:
            used.add(t)
            out.append(t)
            continue
        base = t - t % 4
        for i in range(base, base + 4):
            if i not in used and i not in _AKA:
                used.add(i)
                out.append(i)
                break
    return out


def library_score(raw: str, options: OptionalRules):
    """Score one JSON line with the library, converting its fields the library's way."""
    line = json.loads(raw)
    used: set = set()
    melds, tiles = [], []
    for m in line.get("melds", []):
        ids = _ids(m["tiles"], used)
        tiles += ids
        melds.append(Meld(meld_type=MELD[m["type"]], tiles=ids, opened=m["type"] != "ankan"))
    hand = _ids(line["hand"], used)
    tiles += hand
    win34 = TilesConverter.one_line_string_to_136_array(line["win"], has_aka_dora=True)[0] // 4
    win = next(t for t in hand if t // 4 == win34)
    config = HandConfig(
        is_tsumo=line.get("tsumo", False),
        is_riichi=line.get("riichi", False) or line.get("double_riichi", False),
        is_ippatsu=line.get("ippatsu", False),
        is_rinshan=line.get("rinshan", False),
        is_chankan=line.get("chankan", False),
        is_haitei=line.get("haitei", False),
        is_houtei=line.get("houtei", False),
        is_daburu_riichi=line.get("double_riichi", False),
        player_wind=WIND[line.get("seat_wind", "E")],
        round_wind=WIND[line.get("round_wind", "E")],
        options=options,
    )
    dora = _ids(line.get("dora", ""), used)
    ura = _ids(line.get("ura", ""), used)
    return HandCalculator.estimate_hand_value(
        tiles, win, melds=melds, dora_indicators=dora, ura_dora_indicators=ura, config=config
    )


def bench_library(raw_lines: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) for the library over every line."""
    options = OptionalRules(**OPTIONS)
    t0, c0 = time.perf_counter(), time.process_time()
    for raw in raw_lines:
        library_score(raw, options)
    return time.perf_counter() - t0, time.process_time() - c0


def _child_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def bench_ours(path: str, rules: str, workers: int) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds of the command and its workers, output lines)."""
    t0, c0 = time.perf_counter(), _child_cpu()
    with open(path, "rb") as src, tempfile.TemporaryFile() as dst:
        subprocess.run(
            [sys.executable, "-m", "scoring", "batch", "--rules", rules, "--workers", str(workers)],
            stdin=src,
            stdout=dst,
            check=True,
            cwd=ROOT,
        )
        elapsed, cpu = time.perf_counter() - t0, _child_cpu() - c0
        dst.seek(0)
        n_out = sum(1 for _ in dst)
    return elapsed, cpu, n_out


def startup(repeat: int) -> float:
    """Best wall time of the batch command on empty input: what every run pays once."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "scoring", "batch"], stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, check=True, cwd=ROOT)
        best = min(best, time.perf_counter() - t0)
    return best


def _best(runs: list[tuple]) -> tuple:
    """The run with the least wall time, and the least CPU time of any run."""
    fastest = min(runs, key=lambda r: r[0])
    return (fastest[0], min(r[1] for r in runs), *fastest[2:])


SETS = {"random": "random hands", "multi": "multi-reading hands"}


def riichi(n: int, seed: int, workers: int, repeat: int = 3, start: float = 0.0,
           hand_set: str = "random") -> float:
    """Print both sides' rates on ``n`` hands of ``hand_set``; ``start``: our command's
    start-up (seconds), taken out for the per-hand ratio (the library's side is timed in
    this process, so it has no start-up in its figure)."""
    raw = [json.dumps(x) for x in random_lines(n, seed, multi=hand_set == "multi")]
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
        f.write("\n".join(raw) + "\n")
        path = f.name
    try:
        rules_path = Path(path).with_suffix(".toml")
        rules_path.write_text(
            'extends = "netmahjong"\nname = "bench"\n[points]\nkiriage_mangan = false\n'
        )
        runs: dict[str, list] = {"ours": [], "one": [], "lib": []}
        for _ in range(repeat):
            runs["ours"].append(bench_ours(path, str(rules_path), workers))
            runs["one"].append(bench_ours(path, str(rules_path), 1))
            runs["lib"].append(bench_library(raw))
        ours, one, lib = (_best(runs[k]) for k in ("ours", "one", "lib"))
        assert ours[2] == n and one[2] == n, f"batch wrote {ours[2]}/{one[2]} lines for {n} hands"
    finally:
        os.unlink(path)
        Path(path).with_suffix(".toml").unlink(missing_ok=True)
    print(
        f"riichi, {n} {SETS[hand_set]} (seed {seed}), best of {repeat} runs each; "
        f"load average now {os.getloadavg()[0]:.1f} on "
        f"{os.cpu_count()} CPUs (a busy machine slows every figure)"
    )
    print(f"{'':34}{'hands/s (wall)':>16}{'hands/s (CPU)':>16}")
    print(
        f"  {f'scoring batch, {workers} workers':32}"
        f"{n / ours[0]:16.0f}{n / ours[1]:16.0f}"
    )
    print(f"  {'scoring batch, 1 process':32}{n / one[0]:16.0f}{n / one[1]:16.0f}")
    print(f"  {'mahjong ' + _version() + ' library':32}{n / lib[0]:16.0f}{n / lib[1]:16.0f}")
    ratio = lib[0] / ours[0]
    print(
        f"  ratio (wall, {workers} workers vs library): {ratio:.2f} x whole run; "
        f"{lib[0] / (ours[0] - start):.2f} x per hand (our {1000 * start:.0f} ms start-up "
        f"taken out); single process {lib[0] / one[0]:.2f} x  (target >= 5)"
    )
    print(
        f"  ratio (CPU per hand, start-up included): {lib[1] / one[1]:.2f} x single process, "
        f"{lib[1] / ours[1]:.2f} x with {workers} workers"
    )
    return ratio


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("mahjong")
    except Exception:  # noqa: BLE001 - only a label
        return "?"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, nargs="+", default=[20000, 100000],
                    help="batch sizes to time (each a separate run)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--workers", type=int, default=os.cpu_count() or 1, help="passed to scoring batch"
    )
    ap.add_argument("--repeat", type=int, default=3, help="runs of each side; the best counts")
    ap.add_argument("--sets", nargs="+", choices=list(SETS), default=list(SETS),
                    help="hand sets to time: random hands, multi-reading hands (default: both)")
    ap.add_argument(
        "--mcr-hands", type=int, default=20000, help="MCR hands to time (0: riichi only)"
    )
    args = ap.parse_args(argv)
    start = startup(args.repeat)
    print(f"start-up of python -m scoring batch (empty input, best of {args.repeat}): "
          f"{1000 * start:.0f} ms")
    for hand_set in args.sets:
        for n in args.hands:
            print()
            riichi(n, args.seed, args.workers, args.repeat, start, hand_set)
    if args.mcr_hands:
        print()
        print(bench_mcr.report(bench_mcr.measure(args.mcr_hands, args.seed)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
