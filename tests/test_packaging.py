"""The build hook's list of packages is the project's: setup.py byte-compiles exactly
the packages pyproject.toml installs."""

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _setup_packages() -> list[str]:
    tree = ast.parse((ROOT / "setup.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "PACKAGES" for t in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError("setup.py has no PACKAGES")


def test_setup_compiles_every_installed_package():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    found = pyproject["tool"]["setuptools"]["packages"]["find"]["include"]
    assert sorted(_setup_packages()) == sorted(p.rstrip("*") for p in found)


def test_every_top_level_package_is_installed():
    tops = {p.parent.name for p in ROOT.glob("*/__init__.py")} - {"tests", "benchmarks"}
    assert tops == set(_setup_packages())
