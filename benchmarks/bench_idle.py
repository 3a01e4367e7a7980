"""Idle cost: twenty simulated tables, each on its own pty, on one ``tablectl serve``.

    python benchmarks/bench_idle.py [--tables 20] [--seconds 30]

Bound: the daemon uses under 2 % of one core while nothing happens (its CPU time
from /proc over the window, divided by the window). The simulated tables run in
this process, not in the daemon's, so only the daemon is measured. In the same
run the daemon's writes to the database are counted (``PRAGMA data_version``):
an idle floor should write only its heartbeat, once a second.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from hardware_sim.simulator import Simulator
from tablectl import store

BOUND = 0.02


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=30.0, help="measured window")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        sims, lines = [], ['db = "j.db"', 'log_dir = "logs"', 'lock_dir = "."']
        for i in range(1, args.tables + 1):
            sim = Simulator(name=f"t{i}", time_scale=0.001).start()
            sims.append(sim)
            lines += ["[[tables]]", f'id = "t{i}"', f'url = "{sim.serve_pty(f"{tmp}/t{i}")}"']
        cfg = Path(tmp) / "club.toml"
        cfg.write_text("\n".join(lines) + "\n", encoding="utf-8")
        db = str(Path(tmp) / "j.db")
        log = open(Path(tmp) / "daemon.log", "wb")
        proc = subprocess.Popen([sys.executable, "-m", "tablectl", "serve", "--config", str(cfg)],
                                stdout=log, stderr=log)
        try:
            deadline = time.monotonic() + 60
            while not (os.path.exists(db) and store.daemon_status(db)["running"] and all(
                    t["connected"] for t in store.list_tables(db))
                    and len(store.list_tables(db)) == args.tables):
                if time.monotonic() > deadline or proc.poll() is not None:
                    print("the daemon did not connect every table", file=sys.stderr)
                    return 2
                time.sleep(0.1)
            time.sleep(3)                                   # past start-up
            conn = sqlite3.connect(db)
            version = conn.execute("PRAGMA data_version").fetchone()[0]
            commits = 0
            c0, t0 = cpu_seconds(proc.pid), time.monotonic()
            while time.monotonic() - t0 < args.seconds:
                time.sleep(0.005)
                v = conn.execute("PRAGMA data_version").fetchone()[0]
                commits += v != version
                version = v
            share = (cpu_seconds(proc.pid) - c0) / (time.monotonic() - t0)
            conn.close()
        finally:
            proc.terminate()
            proc.wait(30)
            log.close()
            for sim in sims:
                sim.stop()
    ok = share < BOUND
    print(f"{args.tables} idle tables on one daemon, {args.seconds:g} s: "
          f"{share * 100:.2f} % of one core (bound < {BOUND * 100:.0f} %: "
          f"{'met' if ok else 'MISSED'}, {share / BOUND:.2f}x the bound); "
          f"{commits} database writes seen ({commits / args.seconds:.1f}/s: the heartbeat)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
