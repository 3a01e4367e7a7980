"""Load benchmark of the club web API: 40 simulated tablets on loopback.

Starts a real server process (``python -m web serve``, threaded) on a fresh
SQLite file with 40 tables, each with a live game and its own paired tablet,
then in the same run:

1. ``GET /api/health`` from 40 concurrent clients (the trivial baseline);
2. ``POST /api/tables/<id>/hands`` from 40 concurrent tablets, each recording
   its table's next hand with a fresh idempotency key and expected entry number.

Both run twice: *paced* (each tablet waits a random 0-2 s between requests,
already hundreds of times the rate of a real table, which records a hand
every few minutes) and *saturated* (no wait: 40 requests always in flight,
which measures capacity; its latency is queueing behind the single SQLite
writer and each durable commit). Reports p50/p90/p99/max latency and hands
recorded per second. Target: p99 < 50 ms for recording a hand (paced).

    python benchmarks/bench_web.py [--tablets 40] [--hands 25] [--json out.json]

Bounded: every client does a fixed number of requests with a per-request
timeout, and the whole run has a deadline.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DRAW = {"event": "draw", "tenpai": [0, 1, 2, 3]}  # all tenpai: no payments, honba +1


def setup_club(path: str, tablets: int) -> dict[str, str]:
    """Tables t1..tN, four members each, a live game each; returns table id -> token."""
    from web import create_app, games
    from web.db import connect
    from web.security import issue_tablet_token

    create_app({"DATABASE": path, "SECRET_KEY": "bench", "TESTING": True})
    db = connect(path)
    secrets = {}
    for t in range(1, tablets + 1):
        tid = f"t{t}"
        games.save_table(db, tid, f"卓{t}", "nekohouse-4a")
        ids = [games.add_player(db, f"P{t}-{i}")["id"] for i in range(4)]
        games.start_game(db, tid, ids, idempotency_key=uuid.uuid4().hex)
        secrets[tid] = issue_tablet_token(db, tid, label="bench")
    db.conn.close()
    return secrets


def start_server(path: str) -> tuple[subprocess.Popen, int]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "JANTAKU_SECRET_KEY": "bench"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "web", "serve", "--db", path, "--host", "127.0.0.1", "--port", "0",
         "--insecure-cookies"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = proc.stdout.readline().decode()
        m = re.search(r"http://127\.0\.0\.1:(\d+)", line)
        if m:
            return proc, int(m.group(1))
        if proc.poll() is not None:
            break
    proc.kill()
    raise SystemExit("the web server did not start")


def request(port: int, method: str, path: str, body: dict | None = None,
            token: str | None = None) -> tuple[int, float]:
    headers = {"Accept": "application/json"}
    data = None
    if body is not None:
        data = json.dumps(body)
        headers["Content-Type"] = "application/json"
    if token:
        headers["Authorization"] = f"Bearer {token}"
    t0 = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request(method, path, data, headers)
        resp = conn.getresponse()
        resp.read()
        return resp.status, time.perf_counter() - t0
    finally:
        conn.close()


def run_clients(n: int, work) -> tuple[list[float], list[int], float]:
    """Run ``work(i, out)`` in n threads started together; returns latencies, statuses, wall."""
    latencies: list[float] = []
    statuses: list[int] = []
    lock = threading.Lock()
    barrier = threading.Barrier(n + 1)

    def client(i):
        mine: list[tuple[int, float]] = []
        barrier.wait()
        work(i, mine)
        with lock:
            for status, lat in mine:
                statuses.append(status)
                latencies.append(lat)

    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(n)]
    for t in threads:
        t.start()
    barrier.wait()
    t0 = time.perf_counter()
    for t in threads:
        t.join(timeout=600)
    return latencies, statuses, time.perf_counter() - t0


def _pause(rnd: random.Random, think: float) -> None:
    if think > 0:
        time.sleep(rnd.uniform(0, 2 * think))


def summary(name: str, phase: str, latencies: list[float], statuses: list[int],
            wall: float) -> dict:
    ms = sorted(x * 1000 for x in latencies)
    q = statistics.quantiles(ms, n=100, method="inclusive")
    ok = sum(1 for s in statuses if 200 <= s < 300)
    return {"name": name, "phase": phase, "requests": len(ms), "ok": ok, "p50_ms": round(q[49], 2),
            "p90_ms": round(q[89], 2), "p99_ms": round(q[98], 2), "max_ms": round(ms[-1], 2),
            "per_second": round(ok / wall, 1), "wall_s": round(wall, 2)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tablets", type=int, default=40)
    ap.add_argument("--hands", type=int, default=25, help="hands per tablet")
    ap.add_argument("--health", type=int, default=25, help="health requests per client")
    ap.add_argument("--think", type=float, default=1.0,
                    help="mean seconds a paced tablet waits between requests (a real table "
                         "records a hand every few minutes; 1 s is over 100x that)")
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory() as folder:
        path = str(Path(folder) / "bench.sqlite")
        secrets = setup_club(path, args.tablets)
        tables = list(secrets)
        proc, port = start_server(path)
        try:
            def health(think):
                def work(i, out):
                    rnd = random.Random(i)
                    for _ in range(args.health):
                        _pause(rnd, think)
                        out.append(request(port, "GET", "/api/health"))
                return work

            next_seq = {tid: 1 for tid in tables}

            def hands(think):
                def work(i, out):
                    rnd = random.Random(1000 + i)
                    tid = tables[i]
                    for _ in range(args.hands):
                        _pause(rnd, think)
                        body = {"event": DRAW, "expected_seq": next_seq[tid],
                                "idempotency_key": uuid.uuid4().hex}
                        status, lat = request(port, "POST", f"/api/tables/{tid}/hands", body,
                                              secrets[tid])
                        next_seq[tid] += status in (200, 201)
                        out.append((status, lat))
                return work

            results = []
            for phase, think in (("paced", args.think), ("saturated", 0.0)):
                results.append(summary("GET /api/health", phase,
                                       *run_clients(args.tablets, health(think))))
                results.append(summary("POST hand", phase,
                                       *run_clients(args.tablets, hands(think))))
        finally:
            proc.terminate()
            proc.wait(10)
    paced, saturated = results[1], results[3]
    out = {"tablets": args.tablets, "hands_per_tablet": args.hands, "think_s": args.think,
           "results": results, "hands_per_second_max": saturated["per_second"],
           "target_p99_ms": 50,
           "met": paced["p99_ms"] < 50 and paced["ok"] == paced["requests"],
           "python": sys.version.split()[0], "cpus": os.cpu_count()}
    print(f"{args.tablets} concurrent tablets on loopback, one server process "
          f"({os.cpu_count()} CPUs, clients on the same machine)")
    print("paced: each tablet waits a random 0-2x{:.2f} s between requests; "
          "saturated: no wait at all".format(args.think))
    print(f"{'endpoint':<17}{'phase':<11}{'requests':>9}{'ok':>6}{'p50 ms':>9}{'p90 ms':>9}"
          f"{'p99 ms':>9}{'max ms':>9}{'per s':>9}")
    for r in results:
        print(f"{r['name']:<17}{r['phase']:<11}{r['requests']:>9}{r['ok']:>6}{r['p50_ms']:>9}"
              f"{r['p90_ms']:>9}{r['p99_ms']:>9}{r['max_ms']:>9}{r['per_second']:>9}")
    print(f"hands recorded per second at saturation: {out['hands_per_second_max']}; "
          f"target p99 < 50 ms (paced): {'met' if out['met'] else 'NOT met'}")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
