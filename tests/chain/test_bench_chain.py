"""The chain benchmark's smoke run (``bench_chain.py --quick``) still runs end to end
against the real PostgreSQL: every branch syncs with its own login, the pages answer
while branches sync, and row-level security is timed both ways. Its figures are printed,
not asserted (no timing assertions)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_chain_bench_quick_runs_end_to_end(pg_url: str, tmp_path: Path) -> None:
    p = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_chain.py"), "--quick",
                        "--dir", str(tmp_path), "--url", pg_url], cwd=ROOT,
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    lines = [json.loads(x) for x in p.stdout.splitlines()]
    syncs = [x for x in lines if x.get("figure") == "sync"]
    assert [x["branch"] for x in syncs] == ["b00", "b01"]
    assert all(x["rows"] == syncs[0]["rows"] > 0 for x in syncs)
    summary = lines[-1]
    assert summary["quick"] is True and summary["rows"] == 2 * syncs[0]["rows"]
    assert summary["requests_during_syncs"] > 0
    for key in ("chain_leaderboard_during_syncs_p99_ms", "report_today_during_syncs_p99_ms",
                "branch_day_s", "rows_per_s", "rls_ratio"):
        assert summary[key] > 0, key
    rls = next(x for x in lines if x.get("figure") == "rls")
    assert rls["rls_month_lines_with_ms"] > 0 and rls["rls_month_lines_without_ms"] > 0
    # the pages once more over what that run synced: new branches sync beside them
    again = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_chain.py"),
                            "--quick", "--pages-only", "--dir", str(tmp_path), "--url", pg_url],
                           cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr[-2000:]
    lines = [json.loads(x) for x in again.stdout.splitlines()]
    assert not [x for x in lines if x.get("figure") == "sync"]
    report = next(x for x in lines if x.get("figure") == "head_office_report")
    assert report["requests_during_syncs"] > 0 and report["report_syncs"] == 2
    assert lines[-1]["pages_only"] is True and lines[-1]["branches_synced_beside"] == 2
    import psycopg

    with psycopg.connect(pg_url) as pg:
        during = {r[0] for r in pg.execute(
            "SELECT branch FROM chain.branches WHERE branch LIKE 'during%'")}
    assert len(during) == 4 and {"during-year", "during-0"} < during
