"""Bad events are refused with a message naming the line and the rule, never a
traceback, and nothing after a refused event is applied."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.game import GameEventError, preview, replay, state_after
from scoring.rules import PRESET_IDS

START = {"event": "start", "players": ["A", "B", "C", "D"]}

junk = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 6),
    st.text(max_size=3),
    st.lists(st.integers(-1, 5), max_size=4),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
)
winner = st.fixed_dictionaries(
    {},
    optional={
        "seat": junk,
        "han": junk,
        "fu": junk,
        "yakuman": junk,
        "chips": junk,
        "pao": junk,
        "fan": junk,
        "dora": junk,
        "hand": st.one_of(st.none(), st.integers(), st.text(max_size=3)),
    },
)
event = st.fixed_dictionaries(
    {
        "event": st.sampled_from(
            ["win", "draw", "abort", "chombo", "penalty", "end", "start", "pon", None]
        )
    },
    optional={
        "winners": st.one_of(junk, st.lists(winner, max_size=3)),
        "from": junk,
        "riichi": junk,
        "tenpai": junk,
        "nagashi": junk,
        "kind": st.one_of(
            junk,
            st.sampled_from(
                [
                    "kyuushu",
                    "suufon",
                    "suukan",
                    "suucha_riichi",
                    "sanchahou",
                    "deposit_1000",
                    "agari_houki",
                    "points",
                ]
            ),
        ),
        "seat": junk,
        "points": junk,
        "to": junk,
        "reason": junk,
        "players": junk,
    },
)


@pytest.mark.parametrize("preset", ["netmahjong", "mahjongbu", "nekohouse-boo", "mcr"])
@settings(max_examples=100, deadline=None)
@given(events=st.lists(event, max_size=6))
def test_junk_is_refused_in_words(preset, events):
    try:
        out = replay([START] + events, preset)
    except GameEventError as e:
        assert e.code == "invalid_event"
        assert f"line {e.line}" in e.message and 2 <= e.line <= len(events) + 1
        # everything before the refused line still replays
        state_after([START] + events[: e.line - 2], preset)
    else:
        assert out["hands"] is not None


def test_error_names_event_line_and_rule():
    with pytest.raises(GameEventError) as e:
        replay(
            [START, {"event": "draw", "tenpai": [0]}, {"event": "abort", "kind": "kyuushu"}],
            "mahjongbu",
        )
    msg = str(e.value)
    assert "line 3 (abort)" in msg and "game.abortive_draws" in msg and "mahjongbu" in msg


def test_preview_refuses_like_replay_and_keeps_nothing():
    events = [START]
    with pytest.raises(GameEventError):
        preview(
            events,
            {"event": "win", "winners": [{"seat": 1, "han": 1, "fu": 20}], "from": 0},
            "netmahjong",
        )
    assert state_after(events, "netmahjong").scores == [25000] * 4


@pytest.mark.parametrize("preset", PRESET_IDS)
def test_start_needs_the_rules_player_count(preset):
    with pytest.raises(GameEventError, match="table.players"):
        replay([{"event": "start", "players": ["A", "B"]}], preset)


def test_duplicate_names_and_double_start():
    with pytest.raises(GameEventError, match="twice"):
        replay([{"event": "start", "players": ["A", "A", "B", "C"]}], "netmahjong")
    with pytest.raises(GameEventError, match="already started"):
        replay([START, START], "netmahjong")


def test_tsumo_with_two_winners_and_self_ron_refused():
    two = {
        "event": "win",
        "winners": [{"seat": 1, "han": 1, "fu": 30}, {"seat": 2, "han": 1, "fu": 30}],
    }
    with pytest.raises(GameEventError, match="exactly one winner"):
        replay([START, two], "netmahjong")
    with pytest.raises(GameEventError, match="own discard"):
        replay(
            [START, {"event": "win", "winners": [{"seat": 1, "han": 1, "fu": 30}], "from": 1}],
            "netmahjong",
        )


def test_points_penalty_split_and_to():
    # 002 4A 「以上に明記されている以外の反則…都度裁定」: a ruled points penalty
    out = replay(
        [START, {"event": "penalty", "seat": 0, "kind": "points", "points": 3000}], "nekohouse-4a"
    )
    assert out["hands"][0]["deltas"] == [-3000, 1000, 1000, 1000]
    out = replay(
        [START, {"event": "penalty", "seat": 0, "kind": "points", "points": 2000, "to": 2}],
        "nekohouse-4a",
    )
    assert out["hands"][0]["deltas"] == [-2000, 0, 2000, 0]
    with pytest.raises(GameEventError, match="split evenly"):
        replay(
            [START, {"event": "penalty", "seat": 0, "kind": "points", "points": 1000}],
            "nekohouse-4a",
        )


def test_penalties_the_rules_do_not_have_are_refused():
    # 000 has no 1000-point deposit penalty nor agari-houki
    for kind in ("deposit_1000", "agari_houki"):
        with pytest.raises(GameEventError, match="no "):
            replay([START, {"event": "penalty", "seat": 1, "kind": kind}], "netmahjong")


def test_mcr_has_no_riichi_and_no_chombo():
    with pytest.raises(GameEventError, match="no riichi"):
        replay([START, {"event": "draw", "riichi": [1], "tenpai": [1]}], "mcr")
    with pytest.raises(GameEventError, match="price no chombo"):
        replay([START, {"event": "chombo", "seat": 1}], "mcr")
