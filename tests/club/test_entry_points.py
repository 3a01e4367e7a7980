"""Each background process is its own program: ``python -m club.notify``, ``club.printing``,
``club.export``, ``club.backup`` and ``python -m chain sync`` answer ``--help``, and a
missing club file is one line on stderr (exit 2), never a traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest

COMMANDS = [["club.notify", "--config", "club.toml"], ["club.printing", "--config", "club.toml"],
            ["club.export", "--out", "out"], ["club.backup", "--dir", "backups"],
            ["chain", "sync", "--to", "postgresql://nowhere/x"]]


def _run(argv: list[str], cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *argv], capture_output=True, text=True,
                          cwd=cwd, timeout=120)


@pytest.mark.parametrize("argv", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_each_process_answers_help(argv, tmp_path):
    program = argv[:2] if argv[0] == "chain" else argv[:1]
    r = _run([*program, "--help"], tmp_path)
    assert r.returncode == 0 and "--db" in r.stdout, r.stderr


@pytest.mark.parametrize("argv", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_a_missing_club_file_is_one_line_and_exit_2(argv, tmp_path):
    (tmp_path / "club.toml").write_text("")
    missing = str(tmp_path / "none.sqlite")
    r = _run([*argv, "--db", missing], tmp_path)
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr and r.stderr.strip(), r.stderr
    assert not (tmp_path / "none.sqlite").exists()  # a refusal makes no club file
