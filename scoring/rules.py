"""House rules as data: one typed, documented schema and the presets built from it.

Every switch is declared exactly once, here, with its default, its meaning
and (where it has them) its allowed values. Engine code reads switches from
a :class:`Rules` object (``rules.hand.kuitan``); it never tests a preset's
name. Presets are TOML files in ``scoring/presets/``; a club's own file
``extends`` one of them and overrides what it needs::

    extends = "netmahjong"
    name = "our-club"
    [hand]
    kuitan = false

A rule set is resolved completely when it is loaded (:meth:`Rules.to_dict`),
so a game can store the exact rules it was played under and a later change
to a preset never rewrites history.

Sections (each a frozen dataclass below):

* ``table``      players, tile set, red fives, nukidora
* ``hand``       yaku and their variants
* ``fu``         fu switches
* ``points``     turning han/fu into payments, honba and deposits
* ``chips``      chip (祝儀, ★) awards
* ``game``       round progression, endings, draws, multiple ron, pao, penalties
* ``settlement`` rounding, oka, uma, ties, victory points
"""

from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass, field, fields
from importlib import resources
from pathlib import Path
from typing import Any, Mapping

from .errors import RulesError


def switch(default: Any, doc: str, choices: tuple | None = None, source: str = ""):
    """Declare one rule switch: its default, a one-line meaning, allowed values
    and (optionally) the rulebook passage it comes from."""
    kw: dict[str, Any] = {"metadata": {"doc": doc, "choices": choices, "source": source}}
    if isinstance(default, (list, dict)):
        kw["default_factory"] = (lambda d=default: type(d)(d))
    else:
        kw["default"] = default
    return field(**kw)


class _Section:
    """Shared validation for every section: types and choices of each switch."""

    def __post_init__(self):
        for f in fields(self):
            value = getattr(self, f.name)
            choices = f.metadata.get("choices")
            if choices is not None and value not in choices:
                raise RulesError(
                    f"{self._section_name()}.{f.name} = {value!r} is not allowed: "
                    f"choose one of {', '.join(map(repr, choices))}"
                )
        self.check()

    def check(self) -> None:
        """Cross-switch consistency; sections override this."""

    @classmethod
    def _section_name(cls) -> str:
        return cls.__name__.removesuffix("Rules").lower()


# --------------------------------------------------------------------------- table
@dataclass(frozen=True)
class TableRules(_Section):
    family: str = switch(
        "riichi", "scoring family: Japanese riichi or international MCR (never mixed in rankings)",
        ("riichi", "mcr"),
    )
    players: int = switch(4, "number of players at the table", (3, 4))
    red_fives: list = switch(
        [1, 1, 1], "red fives in the set per suit [m, p, s] (3B: [0, 4, 4])"
    )
    allow_chi: bool = switch(True, "chi is allowed (false in three-player)")

    def check(self) -> None:
        if len(self.red_fives) != 3 or not all(isinstance(n, int) and 0 <= n <= 4 for n in self.red_fives):
            raise RulesError(f"table.red_fives = {self.red_fives!r}: give three counts 0-4 for m, p, s")


# --------------------------------------------------------------------------- hand
@dataclass(frozen=True)
class HandRules(_Section):
    kuitan: bool = switch(True, "open tanyao (喰いタン) counts")


# --------------------------------------------------------------------------- fu
@dataclass(frozen=True)
class FuRules(_Section):
    use_fu: bool = switch(True, "points come from han and fu; false = a no-fu table")


# --------------------------------------------------------------------------- points
@dataclass(frozen=True)
class PointsRules(_Section):
    kiriage_mangan: bool = switch(False, "30 fu 4 han and 60 fu 3 han are paid as mangan (切り上げ満貫)")


# --------------------------------------------------------------------------- chips
@dataclass(frozen=True)
class ChipsRules(_Section):
    enabled: bool = switch(False, "chips (祝儀) are awarded at all")


# --------------------------------------------------------------------------- game
@dataclass(frozen=True)
class GameRules(_Section):
    length: str = switch("hanchan", "game length", ("tonpuu", "hanchan"))


# --------------------------------------------------------------------------- settlement
@dataclass(frozen=True)
class SettlementRules(_Section):
    start_points: int = switch(25000, "points each player starts with (配給原点)")
    return_points: int = switch(30000, "points returned against (返し点); oka = (return - start) x players")


SECTIONS: dict[str, type] = {
    "table": TableRules,
    "hand": HandRules,
    "fu": FuRules,
    "points": PointsRules,
    "chips": ChipsRules,
    "game": GameRules,
    "settlement": SettlementRules,
}


@dataclass(frozen=True)
class Rules:
    """A fully resolved rule set."""

    name: str
    title: str
    table: TableRules
    hand: HandRules
    fu: FuRules
    points: PointsRules
    chips: ChipsRules
    game: GameRules
    settlement: SettlementRules

    def to_dict(self) -> dict:
        """Every switch's value, for storing with a game."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping) -> "Rules":
        """Rebuild from :meth:`to_dict` output (or any complete-or-partial mapping)."""
        return _build(dict(data), name=data.get("name", "custom"))


PRESET_IDS = (
    "netmahjong",
    "mahjongbu",
    "nekohouse-4a",
    "nekohouse-4b",
    "nekohouse-3a",
    "nekohouse-3b",
    "nekohouse-boo",
    "simple",
    "mcr",
)


def _preset_text(preset: str) -> str:
    try:
        return resources.files("scoring.presets").joinpath(f"{preset}.toml").read_text("utf-8")
    except (FileNotFoundError, OSError):
        raise RulesError(
            f"unknown rule preset {preset!r}: choose one of {', '.join(PRESET_IDS)} "
            "or give the path of a .toml file"
        ) from None


def _merge(base: dict, over: Mapping) -> dict:
    out = {k: (dict(v) if isinstance(v, dict) else v) for k, v in base.items()}
    for k, v in over.items():
        if k == "extends":
            continue
        if isinstance(v, Mapping) and isinstance(out.get(k), dict):
            out[k] = {**out[k], **v}
        else:
            out[k] = v
    return out


def _raw(spec: str, seen: tuple = ()) -> dict:
    """The merged raw mapping of a preset id or TOML path, following ``extends``."""
    if spec in seen:
        raise RulesError(f"rule files extend each other in a loop: {' -> '.join(seen + (spec,))}")
    path = Path(spec)
    if spec.endswith(".toml") or path.is_file():
        try:
            text = path.read_text("utf-8")
        except OSError as e:
            raise RulesError(f"cannot read rules file {spec}: {e.strerror or e}") from None
    else:
        text = _preset_text(spec)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise RulesError(f"rules file {spec} is not valid TOML: {e}") from None
    parent = data.get("extends")
    if parent is not None:
        if not isinstance(parent, str):
            raise RulesError(f"{spec}: 'extends' must name a preset, like extends = \"netmahjong\"")
        base = _raw(parent, seen + (spec,))
        data = _merge(base, data)
    if "name" not in data and not path.is_file():
        data["name"] = spec
    return data


def _build(data: dict, name: str) -> Rules:
    unknown = set(data) - set(SECTIONS) - {"name", "title", "extends"}
    if unknown:
        raise RulesError(
            f"unknown rules section(s) {', '.join(sorted(unknown))}: "
            f"valid sections are {', '.join(SECTIONS)}"
        )
    built: dict[str, Any] = {}
    for sec, cls in SECTIONS.items():
        values = data.get(sec, {})
        if not isinstance(values, Mapping):
            raise RulesError(f"[{sec}] must be a table of switches")
        valid = {f.name: f for f in fields(cls)}
        for key, value in values.items():
            if key not in valid:
                raise RulesError(
                    f"unknown switch {sec}.{key}: valid switches in [{sec}] are {', '.join(valid)}"
                )
            _check_type(sec, key, valid[key], value)
        built[sec] = cls(**values)
    return Rules(name=str(data.get("name", name)), title=str(data.get("title", "")), **built)


def _check_type(sec: str, key: str, f: dataclasses.Field, value: Any) -> None:
    default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
    expected = type(default)
    ok = isinstance(value, expected)
    if expected is int and isinstance(value, bool):
        ok = False
    if expected is float and isinstance(value, int) and not isinstance(value, bool):
        ok = True
    if default is None:
        ok = True
    if not ok:
        raise RulesError(
            f"{sec}.{key} = {value!r} has the wrong type: expected {expected.__name__}"
        )


def load_rules(spec: "str | Path | Mapping | Rules") -> Rules:
    """Load a preset id, a TOML file path, or a mapping (may have ``extends``)."""
    if isinstance(spec, Rules):
        return spec
    if isinstance(spec, Mapping):
        data = dict(spec)
        if "extends" in data:
            data = _merge(_raw(str(data["extends"])), data)
        return _build(data, name=str(data.get("name", "custom")))
    spec = str(spec)
    return _build(_raw(spec), name=Path(spec).stem if spec.endswith(".toml") else spec)


def switches() -> list[tuple[str, str, Any, str, tuple | None]]:
    """Every switch as ``(section, name, default, doc, choices)``, for docs/rules.md."""
    out = []
    for sec, cls in SECTIONS.items():
        for f in fields(cls):
            default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
            out.append((sec, f.name, default, f.metadata["doc"], f.metadata.get("choices")))
    return out
