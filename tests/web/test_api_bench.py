"""The web benchmark still runs end to end (small: 4 tablets, 3 hands each) and every
request it makes succeeds; its figures are not asserted (no timing assertions)."""

from __future__ import annotations

import importlib.util
import json

import pytest

from tests.support.web_server import ROOT

pytestmark = pytest.mark.slow


def test_bench_web_runs_and_records_every_hand(tmp_path, capsys):
    spec = importlib.util.spec_from_file_location("bench_web", ROOT / "benchmarks" / "bench_web.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    out = tmp_path / "bench.json"
    assert bench.main(["--tablets", "4", "--hands", "3", "--health", "3", "--think", "0.01",
                       "--login-flood", "--json", str(out)]) == 0
    figures = json.loads(out.read_text())
    assert [r["ok"] for r in figures["results"]] == [12, 12, 12, 12]
    assert all(r["p99_ms"] >= r["p50_ms"] > 0 for r in figures["results"])
    flood = figures["login_flood"]
    assert flood["quiet"]["ok"] == flood["flood"]["ok"] == 12  # every hand recorded
    assert sum(flood["flood_answers"].values()) > 0
    assert set(flood["flood_answers"]) <= {"401", "429"}  # refused, never a 500
    printed = capsys.readouterr().out
    assert "x health" in printed and "login flood" in printed
