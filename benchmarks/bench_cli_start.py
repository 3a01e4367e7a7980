"""Start-up of a staff command: the whole ``tablectl`` process, start to exit.

    python benchmarks/bench_cli_start.py [--runs 15]

Bound: a staff command starts in under 0.15 s (no Flask, no web, no driver, no
simulator loaded). Measured as the wall time of the installed ``tablectl`` console
script running ``status`` (reads the store) and ``points t1 --wait 0`` (writes a
request, then withdraws it: no daemon runs here), best and median of ``--runs``,
beside the bare interpreter (``python -c pass``) in the same run. Then
``python -X importtime`` lists what a staff command imports, largest first.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tablectl.store import Journal

BOUND = 0.15


def timed(argv: list[str], runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        out.append(time.perf_counter() - t0)
    return out


def import_times(top: int = 8) -> list[tuple[int, str]]:
    r = subprocess.run([sys.executable, "-X", "importtime", "-c", "import tablectl.cli"],
                       capture_output=True, text=True)
    rows = []
    for line in r.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            rows.append((int(parts[1]), parts[2].rstrip()))
    total = max(rows)[0] if rows else 0
    nested = sorted((r for r in rows if r[1].startswith("   ") and
                     not r[1].startswith("     ")), reverse=True)
    return [(total, "tablectl.cli (all it imports)")] + nested[:top]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args(argv)
    script = shutil.which("tablectl") or str(Path(sys.executable).with_name("tablectl"))
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "j.db")
        Journal(db).register_tables([{"id": "t1", "url": "sim://"}])
        base = timed([sys.executable, "-c", "pass"], args.runs)
        figures = {
            "tablectl status": timed([script, "--db", db, "status"], args.runs),
            "tablectl points t1 --wait 0": timed([script, "--db", db, "points", "t1",
                                                  "--wait", "0"], args.runs),
        }
    ok = True
    print(f"bare interpreter (python -c pass): best {min(base) * 1e3:.0f} ms, median "
          f"{statistics.median(base) * 1e3:.0f} ms")
    for name, times in figures.items():
        median = statistics.median(times)
        ok &= median < BOUND
        print(f"{name}: best {min(times) * 1e3:.0f} ms, median {median * 1e3:.0f} ms "
              f"(bound < {BOUND * 1e3:.0f} ms: {'met' if median < BOUND else 'MISSED'}, "
              f"{median / BOUND:.2f}x the bound; {median / statistics.median(base):.1f}x the "
              f"bare interpreter)")
    print("imports of a staff command (python -X importtime, cumulative µs):")
    for us, name in import_times():
        print(f"  {us:>8}  {name.strip()}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
