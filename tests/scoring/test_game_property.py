"""Property test: random LEGAL games under every preset.

Invariants checked:
* points plus deposits are conserved hand by hand,
* the settled results sum to zero (every shipped preset is zero-sum),
* the game always ends once the deal keeps moving,
* replaying the same events gives the same output.
"""

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring.game import GameEventError, apply_event, replay, state_after
from scoring.rules import PRESET_IDS, load_rules

SAFE_PAIRS = [
    (1, 30),
    (1, 40),
    (2, 30),
    (2, 40),
    (3, 30),
    (3, 40),
    (4, 30),
    (5, 0),
    (6, 0),
    (8, 0),
    (13, 0),
]


def _winner(draw, rules, seat):
    if rules.table.family == "mcr":
        return {"seat": seat, "fan": draw(st.integers(8, 40))}
    if draw(st.integers(0, 15)) == 0:
        return {"seat": seat, "yakuman": 1}
    han, fu = draw(st.sampled_from(SAFE_PAIRS))
    return {"seat": seat, "han": han, "fu": fu}


def _riichi(draw, state, among=None):
    able = [s for s in state.riichi_able if among is None or s in among]
    return sorted(draw(st.sets(st.sampled_from(able), max_size=len(able)))) if able else []


def _win(draw, state):
    rules, n = state.rules, state.seat_count
    free = [s for s in range(n) if s not in state.houki]
    if not free:
        return None
    src = draw(st.sampled_from([None] + list(range(n))))
    cands = [s for s in free if s != src]
    if not cands:
        return None
    most = (
        {"atamahane": 1, "double": 2, "triple": n - 1}[rules.game.multi_ron]
        if src is not None
        else 1
    )
    seats = draw(st.sets(st.sampled_from(cands), min_size=1, max_size=min(most, len(cands))))
    winners = [_winner(draw, rules, s) for s in sorted(seats)]
    if rules.game.pao and len(winners) == 1 and winners[0].get("yakuman") and draw(st.booleans()):
        winners[0]["pao"] = draw(st.sampled_from([s for s in range(n) if s != winners[0]["seat"]]))
    ev = {"event": "win", "winners": winners, "riichi": _riichi(draw, state)}
    if src is not None:
        ev["from"] = src
    return ev


def _draw(draw, state):
    rules, n = state.rules, state.seat_count
    free = [s for s in range(n) if s not in state.houki]
    tenpai = sorted(draw(st.sets(st.sampled_from(free), max_size=len(free)))) if free else []
    riichi = _riichi(draw, state, among=None if draw(st.integers(0, 9)) == 0 else tenpai)
    ev = {"event": "draw", "tenpai": tenpai, "riichi": riichi}
    if rules.game.nagashi != "none" and draw(st.integers(0, 9)) == 0:
        ev["nagashi"] = [draw(st.sampled_from(range(n)))]
    return ev


def _abort(draw, state):
    kinds = list(state.rules.game.abortive_draws)
    if "suucha_riichi" in kinds and len(state.riichi_able) < state.seat_count:
        kinds.remove("suucha_riichi")
    if not kinds:
        return None
    kind = draw(st.sampled_from(kinds))
    riichi = list(range(state.seat_count)) if kind == "suucha_riichi" else _riichi(draw, state)
    return {"event": "abort", "kind": kind, "riichi": riichi}


def _penalty(draw, state):
    g, n = state.rules.game, state.seat_count
    kinds = (
        ["points"]
        + (["deposit_1000"] if g.deposit_penalty else [])
        + (["agari_houki"] if g.agari_houki else [])
    )
    kind = draw(st.sampled_from(kinds))
    ev = {"event": "penalty", "seat": draw(st.integers(0, n - 1)), "kind": kind}
    if kind == "points":
        ev["points"] = 1000 * (n - 1)
    return ev


def _next_event(draw, state):
    g = state.rules.game
    choice = draw(st.sampled_from(["win"] * 6 + ["draw"] * 3 + ["abort", "chombo", "penalty"]))
    if choice == "win":
        return _win(draw, state)
    if choice == "draw":
        return _draw(draw, state)
    if choice == "abort":
        return _abort(draw, state)
    if choice == "chombo" and g.chombo != "none":
        return {"event": "chombo", "seat": draw(st.integers(0, state.seat_count - 1))}
    if choice == "penalty":
        return _penalty(draw, state)
    return None


def _step(state, events, ev):
    before_total = sum(state.scores) + state.kyoutaku
    apply_event(state, len(events) + 1, ev)
    events.append(ev)
    if ev["event"] != "start":
        rec = state.hands[-1]
        # points plus deposits are conserved by every event
        assert sum(state.scores) + state.kyoutaku == before_total, rec
        assert rec["scores"] == state.scores


def _legal(state, events, ev, fallback):
    """``ev``, or ``fallback`` when the rules turn that win into a chombo
    (ブー麻雀's wins that end the game against the winner: the club records a chombo)."""
    if not state.rules.game.no_losing_final_win or ev["event"] != "win":
        return ev
    trial = copy.deepcopy(state)
    try:
        apply_event(trial, len(events) + 1, ev)
    except GameEventError as e:
        assert e.reason.startswith("boo_final_win"), e
        return fallback
    return ev


def _moving_event(state):
    """A cheap win by the seat after the dealer from the dealer: the deal always moves."""
    seat = (state.dealer + 1) % state.seat_count
    if state.rules.table.family == "mcr":
        w = {"seat": seat, "fan": 8}
    else:
        w = {"seat": seat, "han": 1, "fu": 30}
    if seat in state.houki:
        return {"event": "draw", "tenpai": []}
    return {"event": "win", "winners": [w], "from": state.dealer}


@pytest.mark.parametrize("preset", PRESET_IDS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_legal_games(preset, data):
    rules = load_rules(preset)
    n = rules.table.players
    state = state_after([], rules)  # a fresh game, before its start event
    events: list[dict] = []
    _step(state, events, {"event": "start", "players": [f"p{i}" for i in range(n)]})
    for _ in range(data.draw(st.integers(0, 40))):
        if state.finished:
            break
        ev = _next_event(data.draw, state)
        if ev is not None:
            chombo = {"event": "chombo", "seat": ev.get("winners", [{"seat": 0}])[0]["seat"]}
            _step(state, events, _legal(state, events, ev, chombo))
    # the game always ends: once the deal moves every hand it is over within
    # the longest game (four winds, plus a West round), whatever came before
    limit = 4 * n + 4 * n + 4
    for _ in range(limit):
        if state.finished:
            break
        _step(state, events, _legal(state, events, _moving_event(state), {"event": "draw"}))
    assert state.finished, f"still playing {state.round} after {limit} moving hands"
    out = replay(copy.deepcopy(events), rules)
    assert out == replay(copy.deepcopy(events), rules)  # same events, same output
    assert out["hands"] == state.hands
    final = out["final"]
    assert abs(sum(final["result"])) < 1e-6, final  # zero-sum settlement
    eff = final["scores"]
    for a in range(n):
        for b in range(n):
            if eff[a] > eff[b] and (final["scores"][b] >= 0 or final["scores"][a] >= 0):
                assert final["ranks"][a] <= final["ranks"][b], final  # more points, no worse rank
    if "victory_points" in final:
        assert sum(final["victory_points"]) == 0
