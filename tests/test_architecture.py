"""The architecture page and the code cannot drift apart.

``docs/architecture.md`` says which package may import which (its table
"| package | job | may import |") and names every module of ``web/`` (its table
"| module | job |"). These tests read both tables from the page itself and every
import of every module of the project (``ast``: function-level imports, relative
ones and ``if TYPE_CHECKING`` ones included), so a new arrow the page forbids, a
package or a ``web/`` module the page does not name, or a row about something that
no longer exists fails here.
"""

from __future__ import annotations

import ast
import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "architecture.md"


# --------------------------------------------------------------------------- the page
@dataclass(frozen=True)
class Allowed:
    """One name a package may import, and the one file allowed to, if only one is."""

    target: str
    only_from: str | None = None


def _table(header: str) -> list[list[str]]:
    """The cells of the page's table whose header row starts with ``header``."""
    lines = PAGE.read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        if line.replace(" ", "").startswith(header.replace(" ", "")):
            rows = []
            for row in lines[i + 2:]:
                if not row.startswith("|"):
                    break
                rows.append([c.strip() for c in row.strip().strip("|").split("|")])
            return rows
    raise AssertionError(f"{PAGE.name} has no table with the header {header!r}")


def _ticked(cell: str) -> str:
    """The one name in backticks that a table's first column holds."""
    names = re.findall(r"`([^`]+)`", cell)
    assert len(names) == 1, f"{PAGE.name}: {cell!r} should name one thing in backticks"
    return names[0]


def parse_may_import(cell: str) -> list[Allowed] | None:
    """A "may import" cell read as the page says: None for ``everything``, [] for
    ``nothing of ours``, otherwise each backticked name, with ``(only through `path`)``
    after it naming the only file that may import it; other words are for the reader."""
    text = cell.strip()
    if text == "everything":
        return None
    if text == "nothing of ours":
        return []
    out: list[Allowed] = []
    for item in re.split(r",(?![^(]*\))", text):  # the commas outside brackets
        m = re.fullmatch(r"\s*`([^`]+)`\s*(?:\((.*)\))?\s*", item)
        assert m, (f"{PAGE.name}: cannot read {item.strip()!r} of the 'may import' cell "
                   f"{cell!r}: it is 'nothing of ours', 'everything', or names in backticks "
                   "separated by commas, each with words in brackets after it or not")
        only = re.fullmatch(r"only through `([^`]+)`", m.group(2) or "")
        out.append(Allowed(m.group(1), only.group(1) if only else None))
    return out


def page_rules() -> dict[str, list[Allowed] | None]:
    """``{package: what it may import}`` from the page's package table."""
    rules = {}
    for cells in _table("| package | job | may import |"):
        assert len(cells) == 3, f"{PAGE.name}: a package row has three cells: {cells}"
        rules[_ticked(cells[0]).rstrip("/")] = parse_may_import(cells[2])
    return rules


def page_web_modules() -> set[str]:
    """The ``web/`` modules and folders the page's module table names."""
    return {_ticked(cells[0]) for cells in _table("| module | job |")}


# --------------------------------------------------------------------------- the code
def packages() -> set[str]:
    """The project's top-level packages: folders at its top with an ``__init__.py``."""
    return {p.parent.name for p in ROOT.glob("*/__init__.py")}


def web_modules() -> set[str]:
    """Every top-level module and folder of ``web/``, as the page writes them."""
    web = ROOT / "web"
    return ({f"web/{p.name}" for p in web.glob("*.py")}
            | {f"web/{p.name}/" for p in web.iterdir()
               if p.is_dir() and not p.name.startswith((".", "__"))})


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> list[tuple[str, int]]:
    """Every module ``path`` imports, as absolute dotted names, with its line: ``from . import
    x`` is ``package.x``, ``from a.b import c`` is ``a.b.c`` (whether ``c`` is a module or a
    name in ``a.b``: the rules are about prefixes, so either reads the same)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    here = _module_name(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                assert len(base) == len(package) - node.level + 1, \
                    f"{path}:{node.lineno}: a relative import above the top of the project"
                base_name = ".".join(base + ([node.module] if node.module else []))
            else:
                base_name = node.module or ""
            out += [(f"{base_name}.{a.name}" if a.name != "*" else base_name, node.lineno)
                    for a in node.names]
    return out


def _under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def violations() -> dict[tuple[str, str], str]:
    """``{(file, imported name): why the page forbids it}`` over the whole project."""
    rules = page_rules()
    ours = packages()
    found: dict[tuple[str, str], str] = {}
    for package in sorted(ours):
        allowed = rules.get(package)
        if package not in rules or allowed is None:
            continue
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            for name, line in imports_of(path):
                top = name.split(".")[0]
                if top not in ours or top == package:
                    continue
                ok = [a for a in allowed if _under(name, a.target)]
                if not ok:
                    found[(rel, name)] = f"{rel}:{line}: {package} may not import {name}"
                elif all(a.only_from is not None and a.only_from != rel for a in ok):
                    only = ", ".join(sorted({a.only_from or "" for a in ok}))
                    found[(rel, name)] = (f"{rel}:{line}: only {only} may import {name} "
                                          f"in {package}")
    return found


# --------------------------------------------------------------------------- the tests
def test_the_page_reads_its_own_grammar():
    assert parse_may_import("nothing of ours") == []
    assert parse_may_import("everything") is None
    assert parse_may_import("`clubdb`, `lexicon`") == [Allowed("clubdb"), Allowed("lexicon")]
    assert parse_may_import("`scoring` (only through `club/engine.py`), `tablectl.store`") == [
        Allowed("scoring", "club/engine.py"), Allowed("tablectl.store")]
    assert parse_may_import("`tablectl.protocol` (the same frames)") == [
        Allowed("tablectl.protocol")]
    with pytest.raises(AssertionError, match="cannot read"):
        parse_may_import("`clubdb` and whatever else it needs")


def test_imports_are_read_the_way_python_resolves_them(tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    pkg = tmp_path / "web" / "floor"
    pkg.mkdir(parents=True)
    (tmp_path / "web" / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("from . import clock\n")
    (pkg / "waiting.py").write_text(
        "import clubdb\n"
        "from .. import engine\n"
        "from ..db import rows\n"
        "from . import clock\n"
        "from tablectl.store import Store\n"
        "def late():\n"
        "    from scoring import tiles\n"
        "    import hardware_sim.table as t\n"
    )
    assert imports_of(pkg / "waiting.py") == [
        ("clubdb", 1), ("web.engine", 2), ("web.db.rows", 3), ("web.floor.clock", 4),
        ("tablectl.store.Store", 5), ("scoring.tiles", 7), ("hardware_sim.table", 8)]
    assert imports_of(pkg / "__init__.py") == [("web.floor.clock", 1)]


def test_every_package_is_on_the_page_and_every_row_is_a_package():
    rules = page_rules()
    assert packages() - rules.keys() == set(), "packages the page does not name"
    assert rules.keys() - packages() == set(), "rows for packages that do not exist"


def test_every_name_the_rules_allow_exists():
    for package, allowed in page_rules().items():
        for a in allowed or []:
            path = ROOT / a.target.replace(".", "/")
            assert path.with_suffix(".py").is_file() or (path / "__init__.py").is_file(), (
                f"{package} may import {a.target}, which is not a module of the project")
            if a.only_from is not None:
                assert (ROOT / a.only_from).is_file(), f"{a.only_from} does not exist"
                assert a.only_from.startswith(f"{package}/"), (
                    f"{a.only_from} is not in {package}")


def test_every_import_follows_the_page():
    broken = violations()
    assert not broken, "imports the architecture page forbids:\n" + "\n".join(
        sorted(broken.values()))


def test_every_web_module_is_on_the_page_and_every_row_exists():
    named = page_web_modules()
    assert web_modules() - named == set(), "web/ modules or folders the page does not name"
    assert named - web_modules() == set(), "rows for web/ modules that do not exist"


def _engine_names_used(path: Path) -> set[str]:
    """The names a web module takes from ``club.engine``: ``engine.x`` and ``from .engine
    import x``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    used = set()
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id == "engine"):
            used.add(node.attr)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[-1] == "engine":
            used |= {a.name for a in node.names}
    return used


def page_club_modules() -> set[str]:
    """The ``club/`` modules and folders the page's club table names."""
    return {_ticked(cells[0]) for cells in _table("| club module | job |")}


def club_modules() -> set[str]:
    club = ROOT / "club"
    return ({f"club/{p.name}" for p in club.glob("*.py")}
            | {f"club/{p.name}/" for p in club.iterdir()
               if p.is_dir() and not p.name.startswith((".", "__"))})


def test_every_club_module_is_on_the_page_and_every_row_exists():
    named = page_club_modules()
    assert club_modules() - named == set(), "club/ modules the page does not name"
    assert named - club_modules() == set(), "rows for club/ modules that do not exist"


def web_layers() -> dict[str, tuple[list[str], set[str] | None]]:
    """``{layer: (its modules and folders, the layers it may import or None for all)}``
    from the page's web-layer table."""
    layers = {}
    for cells in _table("| web layer | modules and folders | may import |"):
        assert len(cells) == 3, f"{PAGE.name}: a web-layer row has three cells: {cells}"
        members = re.findall(r"`([^`]+)`", cells[1])
        may = None if cells[2] == "everything" else set(re.findall(r"`([^`]+)`", cells[2]))
        layers[cells[0]] = (members, may)
    return layers


def _layer_of(rel: str, layers) -> tuple[str, str]:
    """The layer of a web file (by path) and the member (file or folder) it is in."""
    for layer, (members, _) in layers.items():
        for m in members:
            if rel == m or (m.endswith("/") and rel.startswith(m)):
                return layer, m
    raise AssertionError(f"{rel} is in no web layer of {PAGE.name}")


def _web_file_of(name: str) -> str:
    """The web file or folder an imported dotted name lives in (``club.games.x`` ->
    ``club/games.py``; a name in ``web`` itself -> ``web/__init__.py``)."""
    parts = name.split(".")
    for n in range(len(parts), 1, -1):
        base = ROOT.joinpath(*parts[:n])
        if base.with_suffix(".py").exists():
            return base.with_suffix(".py").relative_to(ROOT).as_posix()
        if (base / "__init__.py").exists():
            return (base / "__init__.py").relative_to(ROOT).as_posix()
    return "web/__init__.py"


def test_web_layers_import_only_below_them():
    layers = web_layers()
    found = []
    for path in sorted((ROOT / "web").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        layer, member = _layer_of(rel, layers)
        may = layers[layer][1]
        for name, line in imports_of(path):
            if not _under(name, "web"):
                continue
            target = _web_file_of(name)
            to_layer, to_member = _layer_of(target, layers)
            if may is None or to_member == member:
                continue
            if to_layer not in may or (to_layer == layer and member.endswith("/")
                                       and to_member.endswith("/")):
                found.append(f"{rel}:{line}: {layer} may not import {name} ({to_layer})")
    assert not found, "\n".join(found)


def test_web_engine_names_everything_it_hands_on():
    import types

    from club import engine

    exported = set(engine.__all__)
    assert exported <= set(vars(engine)), "names in club.engine.__all__ it does not have"
    modules = sorted(n for n in exported if isinstance(getattr(engine, n), types.ModuleType))
    assert not modules, f"club.engine hands on whole modules: {modules}"
    for path in sorted([*(ROOT / "web").rglob("*.py"), *(ROOT / "club").rglob("*.py")]):
        if path == ROOT / "club" / "engine.py":
            continue
        unnamed = _engine_names_used(path) - exported
        assert not unnamed, (f"{path.relative_to(ROOT)} takes {sorted(unnamed)} from "
                             "club.engine, which does not name them in __all__")


def shell_imports(package: str) -> list[str]:
    """Every import of Flask, Werkzeug's request side or ``web`` in ``package`` (any line,
    a function-level import included)."""
    found = []
    for path in sorted((ROOT / package).rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        for name, line in imports_of(path):
            if any(_under(name, shell) for shell in ("flask", "web")):
                found.append(f"{rel}:{line}: {name}")
    return found


@pytest.mark.parametrize("package", ["club", "chain"])
def test_the_domain_and_the_chain_import_no_flask_and_no_web(package):
    assert shell_imports(package) == [], f"{package}/ imports the web shell"


def test_the_shell_check_finds_a_flask_import(tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    (tmp_path / "club").mkdir()
    (tmp_path / "club" / "__init__.py").write_text("")
    (tmp_path / "club" / "late.py").write_text("def f():\n    from flask import g\n")
    assert shell_imports("club") == ["club/late.py:2: flask.g"]


# --------------------------------------------------------------------------- the processes
DEPLOY = ROOT / "deploy"


def page_processes() -> list[tuple[str, str, list[str]]]:
    """``(process, command, its units)`` from the page's table of processes."""
    out = []
    for cells in _table("| process | command | deploy unit |"):
        assert len(cells) == 3, f"{PAGE.name}: a process row has three cells: {cells}"
        units = re.findall(r"`([^`]+\.(?:service|timer))`", cells[2])
        out.append((cells[0], _ticked(cells[1]), units))
    return out


def unit_setting(unit: str, key: str) -> str:
    """The value of ``key=`` in ``deploy/unit`` (its first one)."""
    for line in (DEPLOY / unit).read_text(encoding="utf-8").splitlines():
        if line.startswith(f"{key}="):
            return line.split("=", 1)[1].strip()
    raise AssertionError(f"deploy/{unit} has no {key}=")


def runs(exec_start: str, command: str) -> bool:
    """Whether ``ExecStart`` runs ``command``: the same words after the program's folder
    (``/opt/jantaku/venv/bin/python -m web serve --db ...`` runs ``python -m web serve``)."""
    argv = shlex.split(exec_start)
    words = command.split()
    return bool(argv) and [Path(argv[0]).name, *argv[1:len(words)]] == words


def test_every_deploy_unit_is_a_process_of_the_page_and_every_row_is_deployed():
    listed = [u for _, _, units in page_processes() for u in units]
    there = {p.name for p in DEPLOY.glob("*.service")} | {p.name for p in DEPLOY.glob("*.timer")}
    assert len(listed) == len(set(listed)), "a unit named twice in the table of processes"
    assert there - set(listed) == set(), "deploy units the table of processes does not name"
    assert set(listed) - there == set(), "units in the table of processes that do not exist"


def test_each_unit_runs_the_command_of_its_row():
    for process, command, units in page_processes():
        services = [u for u in units if u.endswith(".service")]
        assert len(services) <= 1, f"{process}: one service per process"
        for unit in units:
            if unit.endswith(".timer"):
                assert services and unit_setting(unit, "Unit") == services[0], (
                    f"deploy/{unit} starts {unit_setting(unit, 'Unit')}, not the service of "
                    f"{process}")
            else:
                start = unit_setting(unit, "ExecStart")
                assert runs(start, command), f"deploy/{unit} runs {start!r}, not {command!r}"


def test_the_process_check_reads_an_exec_start_the_way_it_runs():
    assert runs("/opt/jantaku/venv/bin/python -m web serve --db x", "python -m web serve")
    assert not runs("/opt/jantaku/venv/bin/python -m web serve", "python -m web notify")
    assert not runs("/opt/jantaku/venv/bin/python -m web", "python -m web serve")


@pytest.mark.parametrize("command", sorted({c for _, c, _ in page_processes()}))
def test_every_command_of_the_table_is_a_program_that_exists(command):
    words = command.split()
    if words[0] == "tablectl":
        assert (ROOT / "tablectl" / "cli.py").is_file()
        return
    assert words[:2] == ["python", "-m"], command
    module = ROOT.joinpath(*words[2].split("."))
    assert (module / "__main__.py").is_file(), f"{words[2]} has no __main__.py"


def test_blueprint_folders_keep_their_views_in_views_py():
    """A blueprint folder's ``__init__.py`` only hands its blueprint on; its routes are in
    ``views.py`` (or beside it)."""
    found = []
    for init in sorted((ROOT / "web").glob("*/__init__.py")):
        text = init.read_text(encoding="utf-8")
        if re.search(r"@\w+\.(route|get|post|put|delete|before_request)\b|Blueprint\(", text):
            found.append(init.relative_to(ROOT).as_posix())
    assert found == [], f"views outside views.py: {found}"


def test_no_module_is_imported_under_a_one_letter_name():
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        if ".git" in path.parts or "node_modules" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                found += [f"{path.relative_to(ROOT)}:{node.lineno}: {a.name} as {a.asname}"
                          for a in node.names if a.asname and len(a.asname) == 1]
    assert found == [], "\n".join(found)
