"""MCR scoring speed: ``python -m scoring batch --rules mcr`` against PyMahjongGB, same hands.

    python benchmarks/bench_mcr.py [--hands 20000] [--seed 1]

N seeded random MCR winning hands (the generator of tests/support/mcr.py:
melded and concealed, kongs, honours, knitted hands, seven pairs, thirteen
orphans, nine gates, flowers, every win condition) are written to a JSONL
file. Three timings:

* ours, CLI: the real command, a subprocess reading that file on stdin and
  writing results to a file (interpreter start-up and worker pool included);
* ours, in-process: ``scoring.mcr.score_hand`` on each parsed line, one core;
* PyMahjongGB (C++): per line what a caller of the library must do —
  ``json.loads``, convert tiles and melds to its codes, call
  ``MahjongFanCalculator`` — in this process, one core.

Rates (hands/s) and the ratios ours / PyMahjongGB are printed.
:func:`measure` returns the figures for benchmarks/bench_scoring.py.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scoring.mcr import score_hand  # noqa: E402
from scoring.rules import load_rules  # noqa: E402
from tests.support.mcr import oracle_call, random_hands  # noqa: E402


def _time_cli(path: Path) -> float:
    with open(path, "rb") as src, tempfile.TemporaryFile() as dst:
        t = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-m", "scoring", "batch", "--rules", "mcr"],
            stdin=src,
            stdout=dst,
            stderr=subprocess.PIPE,
            cwd=ROOT,
            check=False,
        )
        elapsed = time.perf_counter() - t
        if proc.returncode != 0:
            raise SystemExit(f"python -m scoring batch failed: {proc.stderr.decode()[:500]}")
        dst.seek(0)
        if sum(1 for _ in dst) == 0:
            raise SystemExit("python -m scoring batch wrote nothing")
    return elapsed


def _time_inprocess(texts: list[str]) -> float:
    rules = load_rules("mcr")
    t = time.perf_counter()
    for text in texts:
        score_hand(json.loads(text), rules)
    return time.perf_counter() - t


def _time_oracle(texts: list[str]) -> float:
    t = time.perf_counter()
    for text in texts:
        oracle_call(json.loads(text), verbose=False)
    return time.perf_counter() - t


def measure(n: int = 20_000, seed: int = 1) -> dict:
    """Time the three ways on the same ``n`` hands; rates in hands per second."""
    texts = [json.dumps(line) for line in random_hands(seed, n)]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "mcr_hands.jsonl"
        path.write_text("\n".join(texts) + "\n", encoding="utf-8")
        cli = _time_cli(path)
    inproc = _time_inprocess(texts)
    oracle = _time_oracle(texts)
    return {
        "hands": n,
        "cpus": os.cpu_count(),
        "ours_cli_rate": n / cli,
        "ours_inprocess_rate": n / inproc,
        "pymahjonggb_rate": n / oracle,
        "ratio_cli": (n / cli) / (n / oracle),
        "ratio_inprocess": (n / inproc) / (n / oracle),
    }


def report(fig: dict) -> str:
    return "\n".join(
        [
            f"MCR: {fig['hands']} hands, {fig['cpus']} CPUs",
            f"  ours, python -m scoring batch --rules mcr : {fig['ours_cli_rate']:10.0f} hands/s",
            f"  ours, scoring.mcr.score_hand in-process   : "
            f"{fig['ours_inprocess_rate']:10.0f} hands/s",
            f"  PyMahjongGB 1.4.0 (C++), in-process        : "
            f"{fig['pymahjonggb_rate']:10.0f} hands/s",
            f"  ratio ours/PyMahjongGB: CLI {fig['ratio_cli']:.3f}, "
            f"in-process {fig['ratio_inprocess']:.3f}",
        ]
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    print(report(measure(args.hands, args.seed)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
