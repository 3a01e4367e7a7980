"""Every refusal the engine can raise reads in the player's language.

Each refusal carries a ``reason`` and the ``values`` it names (scoring/errors.py);
lexicon/catalogue/engine.toml holds a Japanese and an English text per reason. The source
is read here (every ``raise`` of a ScoringError kind, each site's reason and the values it
gives), so a new refusal without words, or a text asking for a value a site does not
give, fails; then real refusals are provoked and their texts filled.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import lexicon
from scoring.errors import ScoringError
from scoring.game import GameEventError, state_after
from scoring.hand import score_hand

ROOT = Path(__file__).resolve().parents[2]
ERRORS = {"ScoringError", "InvalidInput", "InvalidTiles", "RulesError", "GameEventError",
          "HandError", "refusal"}
# values every site of a kind gives without naming them
GIVEN = {"GameEventError": {"line", "event"}}
# the values a helper spread into a refusal gives
SPREAD = {
    "seat_values": lambda call: _seat_keys(call),
    "_rule_values": lambda call: {"switch", "value"},
}
FLAG_PROBLEMS = ("_flag_problems", "_after_nukidora")  # scoring/hand.py: flag refusals
PASSTHROUGH = object()  # a site that hands on another refusal's reason and values


def _seat_keys(call: ast.Call) -> set[str]:
    key = call.args[2].value if len(call.args) > 2 else "seat"
    return {key, f"{key}_player", f"{key}_ja", f"{key}_en"}


def _strings(node: ast.AST, assigned: dict) -> list[str] | object:
    """The reason strings a reason expression can be."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        a, b = _strings(node.body, assigned), _strings(node.orelse, assigned)
        return PASSTHROUGH if PASSTHROUGH in (a, b) else a + b
    if isinstance(node, ast.Name) and node.id in assigned:
        return [s for s in assigned[node.id] if s]
    return PASSTHROUGH  # e.reason, err.get("reason"), problems[0][0]


def _spread_keys(node: ast.AST) -> set[str] | object:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in SPREAD:
        return SPREAD[node.func.id](node)
    if isinstance(node, ast.Dict):
        keys: set[str] = set()
        for k, v in zip(node.keys, node.values, strict=True):
            if k is None:
                got = _spread_keys(v)
                if got is PASSTHROUGH:
                    continue  # another refusal's values come along with its reason
                keys |= got
            elif isinstance(k, ast.Constant):
                keys.add(k.value)
        return keys
    return PASSTHROUGH


def _sites() -> dict[str, list[set[str]]]:
    """reason -> the set of value names each site of that reason gives."""
    out: dict[str, list[set[str]]] = {}
    for path in sorted((ROOT / "scoring").rglob("*.py")):
        tree = ast.parse(path.read_text("utf-8"))
        for func in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]:
            assigned: dict[str, list[str]] = {}
            for n in ast.walk(func):
                if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant):
                    for t in n.targets:
                        if isinstance(t, ast.Name) and isinstance(n.value.value, str):
                            assigned.setdefault(t.id, []).append(n.value.value)
            if func.name in FLAG_PROBLEMS:  # (reason, message) tuples, no values
                for n in ast.walk(func):
                    if (isinstance(n, ast.Tuple) and len(n.elts) == 2
                            and isinstance(n.elts[0], ast.Constant)):
                        out.setdefault(n.elts[0].value, []).append(set())
            for call in [n for n in ast.walk(func) if isinstance(n, ast.Call)]:
                name = getattr(call.func, "id", getattr(call.func, "attr", ""))
                if name not in ERRORS or (name == "GameEventError" and func.name == "about"):
                    continue
                _site(path, func, call, name, assigned, out)
    _helper_sites(out)
    return out


HELPERS: dict[str, tuple[int, str, set[str]]] = {}
"""Functions that raise a refusal whose reason is one of their parameters: name -> (the
parameter's position, its name, the value names their refusal gives)."""


def _helper_sites(out: dict[str, list[set[str]]]) -> None:
    """The reasons handed to a helper that raises with the reason it is given."""
    for path in sorted((ROOT / "scoring").rglob("*.py")):
        tree = ast.parse(path.read_text("utf-8"))
        for call in [n for n in ast.walk(tree) if isinstance(n, ast.Call)]:
            name = getattr(call.func, "id", getattr(call.func, "attr", ""))
            if name not in HELPERS:
                continue
            at, param, keys = HELPERS[name]
            kw = {k.arg: k.value for k in call.keywords if k.arg}
            arg = kw.get(param, call.args[at] if len(call.args) > at else None)
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                out.setdefault(arg.value, []).append(keys)


def _site(path, func, call, name, assigned, out) -> None:
    where = f"{path.relative_to(ROOT)}:{call.lineno} ({func.name})"
    kw = {k.arg: k.value for k in call.keywords if k.arg}
    if name == "refusal":
        reasons = _strings(call.args[0], assigned)
    elif name == "HandError":
        reasons = _strings(call.args[2], assigned) if len(call.args) > 2 else [
            call.args[1].value]
    else:
        assert "reason" in kw, f"{where}: a refusal without a reason (reason=...)"
        reasons = _strings(kw["reason"], assigned)
    keys = set(kw) - {"reason"} | GIVEN.get(name, set())
    for k in call.keywords:
        if k.arg is None:
            got = _spread_keys(k.value)
            if got is not PASSTHROUGH:
                keys |= got
    if reasons is PASSTHROUGH:
        params = [a.arg for a in func.args.args]
        given = kw.get("reason")
        # a helper whose values all stand in its own raise (none come in through **values)
        if isinstance(given, ast.Name) and given.id in params and func.args.kwarg is None:
            HELPERS[func.name] = (params.index(given.id), given.id, keys)
        return
    for reason in reasons:
        out.setdefault(reason, []).append(keys)


SITES = _sites()
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def test_the_source_has_refusals_to_check():
    assert len(SITES) > 150 and "riichi_short" in SITES and "rules_bust_agari_yame" in SITES


@pytest.mark.parametrize("reason", sorted(SITES))
def test_every_reason_has_words_whose_values_every_site_gives(reason):
    key = f"engine.{reason}"
    assert lexicon.has(key), f"lexicon/catalogue/engine.toml has no {key!r}"
    given = set.intersection(*SITES[reason])
    for text in lexicon.entries()[key]:
        missing = set(PLACEHOLDER.findall(text)) - given
        assert not missing, f"{key}: {missing} not given by every site: {text}"


def test_the_catalogue_has_no_words_for_refusals_that_do_not_exist():
    engine = {k.removeprefix("engine.") for k in lexicon.entries() if k.startswith("engine.")}
    assert engine - set(SITES) == set()


def test_seats_are_named_in_player_words():
    for key, (ja, en) in lexicon.entries().items():
        if key.startswith("engine.") and "{seat" in ja:
            assert "{seat}" not in ja and "{seat}" not in en, key  # never "seat 0"
            assert "{seat_ja}" in ja and "{seat_en}" in en, key


# --------------------------------------------------------------------------- real refusals
def _words(e: ScoringError) -> tuple[str, str]:
    ja, en = (lexicon.t(f"engine.{e.reason}", lang, **e.values) for lang in ("ja", "en"))
    for text in (ja, en):
        assert not PLACEHOLDER.search(text), (e.reason, text)
    return ja, en


def test_a_game_refusal_names_the_seat_by_its_wind():
    # 000 (5) リーチ 「千点を卓に置き」: B (South, seat 1) has 500 after a penalty
    events = [{"event": "start", "players": ["A", "B", "C", "D"]},
              {"event": "penalty", "seat": 1, "kind": "points", "points": 24500, "to": 0},
              {"event": "win", "winners": [{"seat": 0, "han": 1, "fu": 30}], "from": 2,
               "riichi": [1]}]
    with pytest.raises(GameEventError) as e:
        state_after(events, "netmahjong")
    assert e.value.reason == "riichi_short" and e.value.values["seat"] == 1
    ja, en = _words(e.value)
    assert "南家" in ja and "B" in ja and "South" in en and "seat 1" not in en


def test_hand_refusals_from_a_corpus_of_bad_lines_are_all_worded():
    lines = [
        {"hand": "123m456p789s1122z", "win": "1z"},
        {"hand": "123m456p789s11222z", "win": "2z", "tsumo": "yes"},
        {"hand": "123m456p789s11x22z", "win": "2z"},
        {"hand": "11111m456p789s112z", "win": "2z"},
        {"hand": "123m456p789s11222z", "win": "5z"},
        {"hand": "123m456p789s11222z", "win": "2z", "ippatsu": True},
        {"hand": "123m456p789s11222z", "win": "2z", "melds": [{"type": "chi", "tiles": "135m"}]},
        {"hand": "123m456p789s11222z", "win": "2z", "seat_wind": "X"},
        {"hand": "123m456p789s12345z", "win": "2z"},
        {"hand": "234m456p678s22z", "win": "2z", "melds": [{"type": "pon", "tiles": "888m"}]},
        "not an object",
    ]
    seen = set()
    for line in lines:
        out = score_hand(line, "netmahjong")
        err = out["error"]
        seen.add(err["reason"])
        _words(ScoringError(err["message"], reason=err["reason"], **err["values"]))
    assert len(seen) >= 9
