"""``tablectl.learn``: a sequence from one recorded hand-made mode change, refusals in
words for recordings that are not one, the check of a later recording, club.toml
rewritten with its comments kept."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

import lexicon
from tablectl.config import config_from_mapping
from tablectl.drivers.panel import DEFAULT_SEQUENCE, TIMINGS, check_model
from tablectl.learn import (
    Edge,
    LearnError,
    Recording,
    check_wiring,
    compare,
    demonstration,
    from_sequence,
    learn,
    with_model,
)

CHANNELS = {"up": 1, "down": 2, "dice_left": 3, "dice_right": 4}


def rec(*edges: tuple[int, str, bool], overflow: bool = False) -> Recording:
    return Recording(tuple(Edge(ms, src, on) for ms, src, on in edges), overflow)


def press(src: str, start: int, ms: int) -> list[tuple[int, str, bool]]:
    return [(start, src, True), (start + ms, src, False)]


def hand_change(steps: int = 3, boot: int = 6000, hold: int = 2100, step_ms: int = 100,
                gap: int = 400, reset: int = 2050) -> list[tuple[int, str, bool]]:
    """A whole change by hand: power off at 1 s, on at 4 s, a hold, steps, a reset."""
    on = 4000
    out = [(1000, "P", False), (on, "P", True)]
    t = on + boot
    out += press("1", t, hold)
    t += hold
    for _ in range(steps):
        t += gap
        out += press("1", t, step_ms)
        t += step_ms
    t += gap
    out += [(t, "3", True), (t + 15, "4", True), (t + 15 + reset, "3", False),
            (t + 30 + reset, "4", False)]
    return out


def test_learn_a_hand_made_change_gives_the_sequence_with_margins():
    learned = learn(rec(*hand_change()), CHANNELS)
    assert learned.boot_ms == 6600                  # 6 s waited, + 10 %
    assert (learned.hold_switch, learned.hold_ms) == ("up", 2100)
    assert learned.press_ms == 100 and learned.step_wait_ms == 400
    assert learned.reset_switches == ("dice_left", "dice_right")
    assert learned.reset_ms == 2050                 # both held together
    assert learned.seen is not None and learned.seen.net_steps == 3
    model = learned.model()
    assert model["enter"] == [{"hold": "up", "ms": 2100}, {"wait": 400}]
    assert model["step_down"][0] == {"press": "down", "ms": 100}
    # the same definition the daemon checks club.toml with takes it
    assert check_model("learned", model, "test")["enter"][0]["hold"] == ["up"]


def test_learn_a_short_boot_wait_gets_at_least_half_a_second_more():
    assert learn(rec(*hand_change(boot=1200)), CHANNELS).boot_ms == 1700


def test_learn_ignores_bounces_and_presses_before_the_power_came_on():
    edges = [(500, "1", True), (510, "1", False)] + press("2", 600, 200) + hand_change()
    edges += [(20_000, "2", True), (20_012, "2", False)]     # a brush of the hand, late
    seen = demonstration(rec(*sorted(edges)), CHANNELS)
    assert seen.net_steps == 3 and seen.ignored >= 2


def test_learn_down_steps_count_down():
    edges = hand_change(steps=0)
    edges = [(1000, "P", False), (4000, "P", True)] + press("2", 10_000, 2000) \
        + press("2", 12_400, 90) + press("2", 12_900, 90) + press("3", 13_400, 2000) \
        + press("4", 13_410, 2000)
    learned = learn(rec(*edges), CHANNELS)
    assert learned.hold_switch == "down" and learned.seen.net_steps == -2


@pytest.mark.parametrize("edges, code", [
    ([], "learn_nothing"),
    ([(10, "P", False)] + press("1", 100, 2000), "learn_no_power_cycle"),
    ([e for e in hand_change() if e[1] != "P"], "learn_no_power_cycle"),
    ([(10, "P", False), (200, "P", True)], "learn_no_presses"),
    ([(10, "P", False), (200, "P", True)] + [e for i in range(20)
                                              for e in press("1", 300 + i * 50, 12)],
     "learn_no_presses"),                                   # noise only
    (hand_change() + [(30_000, "P", False)], "learn_left_off"),
    (hand_change() + [(30_000, "2", True)], "learn_still_pressed"),
    ([(10, "P", False), (200, "P", True)] + press("3", 1000, 2000), "learn_no_long_press"),
    ([(10, "P", False), (200, "P", True)] + press("1", 1000, 150) + press("1", 1500, 120)
     + press("3", 2000, 2000), "learn_no_long_press"),
    ([(10, "P", False), (200, "P", True)] + press("1", 1000, 2000) + press("1", 3500, 100),
     "learn_no_reset"),
    ([(10, "P", False), (200, "P", True)] + press("1", 1000, 2000) + press("3", 3500, 2000)
     + press("4", 3500, 2000), "learn_no_steps"),
    ([(10, "P", False), (200, "P", True)] + press("1", 1000, 2000) + press("1", 3500, 100)
     + press("3", 4000, 500) + press("4", 4600, 500), "learn_no_reset"),  # one after another
    ([(10, "P", False), (200, "P", True)] + press("1", 1000, 12_000) + press("1", 13_500, 100)
     + press("3", 14_000, 2000) + press("4", 14_000, 2000), "learn_too_long"),
    ([(10, "P", False), (200, "P", True)] + press("1", 130_000, 2000)
     + press("1", 132_500, 100) + press("3", 133_000, 2000) + press("4", 133_000, 2000),
     "learn_boot_too_long"),
])
def test_learn_refuses_a_bad_recording_in_words(edges, code):
    with pytest.raises(LearnError) as e:
        learn(rec(*sorted(edges, key=lambda x: x[0])), CHANNELS)
    assert e.value.code == code
    assert lexicon.has(e.value.key)
    ja, en = e.value.text("ja"), e.value.text("en")
    assert ja != en and "{" not in ja + en
    assert "Nothing was written" in en or "nothing was written" in en


def test_learn_refuses_an_overflowing_recording():
    with pytest.raises(LearnError) as e:
        learn(rec(*hand_change(), overflow=True), CHANNELS)
    assert e.value.code == "learn_overflow"


def test_learn_needs_the_up_switch_on_a_sensed_relay():
    with pytest.raises(LearnError) as e:
        check_wiring({"up": 6, "down": 2, "dice_left": 3, "dice_right": 4})
    assert e.value.code == "learn_not_sensed"
    assert "relays 1 to 4" in e.value.text("en") and "relay 6" in e.value.text("en")
    check_wiring({"up": 2, "down": 3, "dice_left": 4, "dice_right": 5})   # one dice is enough


def test_learn_with_one_dice_sensed_learns_its_hold():
    channels = {"up": 2, "down": 3, "dice_left": 4, "dice_right": 5}
    edges = [(e[0], {"1": "2", "3": "4", "4": "9"}.get(e[1], e[1]), e[2])
             for e in hand_change()]
    learned = learn(rec(*edges), channels)
    assert learned.reset_switches == ("dice_left",) and learned.reset_ms == 2060


def test_learn_compare_finds_where_the_guess_disagrees():
    seen = demonstration(rec(*hand_change(boot=7000, hold=2100)), CHANNELS)
    timings = {name: option.default for name, option in TIMINGS.items()}
    guess = from_sequence(DEFAULT_SEQUENCE, timings)
    assert (guess.hold_ms, guess.boot_ms) == (3000, 5000)
    found = {f.what: (f.expected, f.seen) for f in compare(guess, seen, steps=3)}
    assert found["hold"] == (3000, 2100)        # the guess holds 0.9 s longer than staff
    assert found["boot"] == (5000, 7000)        # and presses before the table was ready
    assert found["reset"] == (3000, 2050)
    assert "steps" not in found
    # the learned sequence agrees with a replay of itself (relays: exact times)
    learned = learn(rec(*hand_change(boot=7000, hold=2100)), CHANNELS)
    replay = demonstration(rec(*hand_change(boot=7700, hold=2100, gap=400)), CHANNELS)
    assert compare(learned, replay, steps=3) == []
    # a replay that made one step fewer, or held too briefly, is caught
    short = demonstration(rec(*hand_change(steps=2, hold=900)), CHANNELS)
    assert {f.what for f in compare(learned, short, steps=3)} == {"hold", "steps"}


CLUB = '''# the club's box
db = "jantaku.db"   # the store
lock_dir = "locks"

[[tables]]
id = "t1"    # by the window
url = "/dev/jantaku/t1"
driver = "jpex-panel"
board = "bridge"
up = 1
down = 2
dice_left = 3
dice_right = 4

[[tables]]
id = "t2"
url = "/dev/jantaku/t2"
driver = "jpex-panel"
board = "bridge"
up = 1
down = 2
dice_left = 3
dice_right = 4
model = "old"

[models.old]   # what we guessed
cycle = [{press = "dice_left", ms = 120}]
enter = [{hold = "up", ms = 3000}]
'''


def test_learn_writes_the_model_into_club_toml_keeping_its_comments(tmp_path):
    learned = learn(rec(*hand_change()), CHANNELS)
    text = with_model(CLUB, "t1", "jpex", learned)
    for comment in ("# the club's box", "# the store", "# by the window", "# what we guessed"):
        assert comment in text
    data = tomllib.loads(text)
    assert data["tables"][0]["model"] == "jpex" and data["tables"][0]["boot_ms"] == 6600
    assert "model" not in data["tables"][1] or data["tables"][1]["model"] == "old"
    assert data["models"]["jpex"]["enter"] == [{"hold": "up", "ms": 2100}, {"wait": 400}]
    cfg = config_from_mapping(data, Path(tmp_path / "club.toml"))
    assert cfg.table("t1").options["sequence"]["step_up"][0] == {"press": ["up"], "ms": 100}
    # learned again into an existing model: its sequences replaced, its cycle kept
    text = with_model(text, "t2", "old", learned)
    old = tomllib.loads(text)["models"]["old"]
    assert old["cycle"] == [{"press": "dice_left", "ms": 120}]
    assert old["enter"][0]["ms"] == 2100
    assert with_model(text, "t2", "old", learned) == text          # done twice: the same


def test_learn_into_a_table_club_toml_does_not_have_is_refused():
    with pytest.raises(LearnError) as e:
        with_model(CLUB, "t9", "jpex", learn(rec(*hand_change()), CHANNELS))
    assert e.value.code == "learn_no_table" and "t9" in e.value.text("en")
