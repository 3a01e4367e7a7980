"""CI runs what the README tells a developer to run, with the checkers the project pins."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _readme_test_command() -> str:
    """The README's command 2: the line after its ``# 2.`` comment in the quick start."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        if line.startswith("# 2."):
            return lines[i + 1].strip()
    raise AssertionError("README.md has no '# 2.' command in its quick start")


def test_ci_runs_exactly_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()
    command = _readme_test_command()
    assert ci[-1].strip() == command
    # the checks come before the tests, each stopping the run when it fails
    assert re.fullmatch(r"pip install -e '\.\[test\]' && ruff check \. && mypy && "
                        r"python -m pytest", command), command


def test_the_test_extra_pins_the_checkers_and_mypy_is_the_build_one():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    extra = project["project"]["optional-dependencies"]["test"]
    pins = dict(p.split("==", 1) for p in extra if "==" in p)
    assert "ruff" in pins and "mypy" in pins, extra
    build = dict(p.split("==", 1) for p in project["build-system"]["requires"] if "==" in p)
    assert pins["mypy"] == build["mypy"], "the type check and mypyc must be the same mypy"
    assert project["tool"]["mypy"]["strict"] is True
