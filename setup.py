"""Build hook: compile the riichi scoring hot path to C with mypyc.

Everything else about the package is in ``pyproject.toml``. The modules in
:data:`COMPILED` are the ones ``python -m scoring batch`` spends its time in;
mypyc turns the same Python source (no second implementation) into C
extensions that import in place of the ``.py`` files and score a hand about
twice as fast (see the README's performance table).

The build is optional: with ``JANTAKU_PURE_PYTHON=1``, or where mypyc or a C
compiler is missing, the install goes on with the plain Python modules, which
give the same results, only slower. ``tests/scoring/test_compiled.py`` checks that the
two agree and that the compiled files are not older than their source.
"""

from __future__ import annotations

import compileall
import glob
import os
import sys

from setuptools import setup
from setuptools.command.build_ext import build_ext

# the batch's hot path. scoring.rules stays Python (it reads TOML and checks rules once per
# run), and so does scoring.errors (exception classes whose subclasses override a class attribute)
COMPILED = [
    "scoring/memo.py",
    "scoring/tiles.py",
    "scoring/decompose.py",
    "scoring/yaku.py",
    "scoring/fu.py",
    "scoring/points.py",
    "scoring/chips.py",
    "scoring/hand.py",
    "scoring/batch.py",
]


# every package the project installs (pyproject.toml, [tool.setuptools.packages.find]):
# an editable install byte-compiles them all (tests/test_packaging.py keeps the two equal)
PACKAGES = ["scoring", "tablectl", "web", "club", "chain", "headoffice", "hardware_sim", "clubdb",
            "lexicon", "groundwork"]


def _warn(message: str) -> None:
    print(f"jantaku: {message}; installing the pure-Python scoring modules (same results, slower)",
          file=sys.stderr)
    _remove_in_tree()


def _remove_in_tree() -> None:
    """Delete compiled files an earlier install left beside the sources: they would be
    imported in place of the plain modules this install falls back to."""
    patterns = [p.removesuffix(".py") + ".*.so" for p in COMPILED] + ["scoring/_native__mypyc.*.so"]
    for pattern in patterns:
        for path in glob.glob(pattern):
            os.remove(path)


class OptionalBuildExt(build_ext):
    """All or nothing: if any compiled module fails to build, none is installed, so the
    package never mixes a compiled module with a missing one."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as e:  # noqa: BLE001 - any build failure falls back to Python
            _warn(f"compiling the scoring core failed ({e})")
            self._remove_built()
        if getattr(self, "editable_mode", False) or self.inplace:
            # pip byte-compiles a normal install, not an editable one: do it here, so that
            # each `python -m scoring` starts without compiling its Python modules, even
            # where PYTHONDONTWRITEBYTECODE keeps Python from caching them itself
            for package in PACKAGES:
                compileall.compile_dir(package, quiet=2)

    def _remove_built(self) -> None:
        for ext in self.extensions:  # the in-place path when building in place (pip install -e)
            path = self.get_ext_fullpath(ext.name)
            if os.path.exists(path):
                os.remove(path)


def _ext_modules() -> list:
    if os.environ.get("JANTAKU_PURE_PYTHON"):
        _remove_in_tree()
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        _warn("mypyc is not available")
        return []
    try:
        # only COMPILED is type-checked: the modules they import (rules, mcr) stay Python
        return mypycify(COMPILED + ["--follow-imports=silent", "--ignore-missing-imports"],
                        opt_level="3", group_name="scoring._native")
    except BaseException as e:  # noqa: BLE001 - mypyc exits on a type error it cannot compile
        _warn(f"mypyc could not translate the scoring core ({e})")
        return []


setup(ext_modules=_ext_modules(), cmdclass={"build_ext": OptionalBuildExt})
