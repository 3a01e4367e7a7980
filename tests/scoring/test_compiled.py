"""The scoring core compiled by mypyc at install (setup.py) is in use, current, and
gives exactly what the plain Python modules give.

The compiled modules shadow the ``.py`` files they are built from, so a source file
edited after ``pip install -e .`` would be ignored until the next install: the
staleness check below says so. ``JANTAKU_PURE_PYTHON=1`` at install skips the
compiler; then the first test is skipped and the rest still hold.
"""

from __future__ import annotations

import ast
import importlib
import importlib.machinery
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.scoring.test_oracle_riichi import lines as random_lines

ROOT = Path(__file__).resolve().parents[2]


def compiled_modules() -> list[str]:
    """The module names setup.py's COMPILED lists (read from its text, not run)."""
    tree = ast.parse((ROOT / "setup.py").read_text("utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "COMPILED" for t in node.targets
        ):
            paths = ast.literal_eval(node.value)
            return [p.removesuffix(".py").replace("/", ".") for p in paths]
    raise AssertionError("setup.py has no COMPILED list")


def built_file(module: str) -> Path | None:
    base = ROOT.joinpath(*module.split("."))
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = base.with_name(base.name + suffix)
        if path.exists():
            return path
    return None


@pytest.mark.skipif(bool(os.environ.get("JANTAKU_PURE_PYTHON")), reason="pure-Python install")
def test_the_scoring_core_runs_compiled():
    built = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    not_compiled = [
        m for m in compiled_modules() if not importlib.import_module(m).__file__.endswith(built)
    ]
    assert not not_compiled, (
        f"{not_compiled} run as plain Python: reinstall with `pip install -e .` (it needs a C "
        "compiler and the Python headers), or set JANTAKU_PURE_PYTHON=1 to test without"
    )


def test_no_compiled_module_is_older_than_its_source_or_left_over():
    listed = set(compiled_modules())
    for module in listed:
        built = built_file(module)
        if built is None:
            continue
        source = ROOT.joinpath(*module.split(".")).with_suffix(".py")
        assert built.stat().st_mtime >= source.stat().st_mtime, (
            f"{built.name} is older than {source.name}: the edit is not in use until "
            "`pip install -e .` is run again"
        )
    for path in (ROOT / "scoring").rglob("*"):
        if path.suffix != ".so" or "__mypyc" in path.name:
            continue
        module = ".".join(path.relative_to(ROOT).with_name(path.name.split(".")[0]).parts)
        assert module in listed, f"{path} is not built from setup.py's COMPILED list: delete it"


def _batch_lines() -> str:
    """Winning hands, hands without yaku, three-player, pocchi, odd ids, bad lines, MCR."""
    out = [dict(x, id=i) for i, x in enumerate(random_lines(1500, 11))]
    out += [dict(x, rules="nekohouse-3a") for x in random_lines(300, 12, sanma=True)]
    out += [
        {"hand": "234m456p678s23455z", "win": "5z", "riichi": True, "tsumo": True, "pocchi": True,
         "rules": "nekohouse-4b", "id": "日本\u2028"},
        {"hand": "123m", "win": "1m"},
        {"hand": "119m19p19s1234567z", "win": "9m", "tsumo": True, "rules": "mcr"},
    ]
    return "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in out) + "{bad\n"


def test_the_plain_python_modules_give_the_same_lines(tmp_path):
    """The compiled core against its own source run as plain Python (a copy of the package
    without the built files, and of the one package it stands on, imported with
    site-packages left out)."""
    for package in ("scoring", "groundwork"):
        shutil.copytree(ROOT / package, tmp_path / package,
                        ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    text = _batch_lines().encode("utf-8")
    compiled = subprocess.run([sys.executable, "-m", "scoring", "batch"], input=text,
                              capture_output=True, cwd=ROOT, timeout=300)
    where = subprocess.run(
        [sys.executable, "-S", "-c", "import scoring.hand; print(scoring.hand.__file__)"],
        capture_output=True, text=True, cwd=tmp_path, timeout=60,
    )
    assert where.stdout.strip() == str(tmp_path / "scoring" / "hand.py"), where.stderr
    plain = subprocess.run([sys.executable, "-S", "-m", "scoring", "batch"], input=text,
                           capture_output=True, cwd=tmp_path, timeout=300)
    assert compiled.returncode == plain.returncode == 0, plain.stderr
    assert compiled.stdout.count(b"\n") == text.count(b"\n")
    assert compiled.stdout == plain.stdout
