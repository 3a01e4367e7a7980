"""A stored game's state: the per-process memo, and how a process that is a few rows behind
(another server process recorded the last hands) catches up without replaying the game."""

from __future__ import annotations

import pytest

from club import corrections, engine, gamelog, games
from tests.support.web import record, start

# shared fixtures (a real SQLite file per test, a club, paired tablets)

RON = {"event": "win", "winners": [{"seat": 1, "han": 3, "fu": 30}], "from": 0}
DRAW = {"event": "draw", "tenpai": [0, 2]}
TSUMO = {"event": "win", "winners": [{"seat": 2, "han": 2, "fu": 40}]}


def whole_replay(db, game_id):
    game = games.get_game(db, game_id)
    return gamelog.replay_log(game, gamelog.event_log(db, game_id))


def same_game(a: gamelog.Played, b: gamelog.Played) -> None:
    assert a.log == b.log and a.effective == b.effective
    assert a.result == b.result and a.state.to_dict() == b.state.to_dict()


@pytest.fixture
def replays(monkeypatch):
    """Counts the whole-game replays the web asks of the engine."""
    calls = []
    real = engine.replayed

    def counted(events, rules):
        calls.append(len(events))
        return real(events, rules)

    monkeypatch.setattr(engine, "replayed", counted)
    return calls


def behind(db, game_id, rows: int) -> None:
    """Make this process's memo what it was ``rows`` entries ago: what a process holds when
    another one recorded the newest hands."""
    game = games.get_game(db, game_id)
    log = gamelog.event_log(db, game_id)
    gamelog.remember(db, game_id, gamelog.replay_log(game, log[:-rows]))


def test_a_process_a_few_rows_behind_catches_up_without_a_replay(client, t1, db, replays):
    gid = start(client, t1)["game"]["id"]
    for seq, ev in enumerate((RON, DRAW, TSUMO, DRAW), start=1):
        record(client, t1, ev, seq)
    behind(db, gid, 3)
    replays.clear()
    now = gamelog.played(db, games.get_game(db, gid))
    assert replays == []
    same_game(now, whole_replay(db, gid))
    assert now.next_seq == 5 and [h["type"] for h in now.result["hands"]] == \
        ["win", "draw", "win", "draw"]
    assert gamelog.played(db, games.get_game(db, gid)) is now       # and it is remembered


def test_a_hand_recorded_by_a_process_that_is_behind_scores_as_a_whole_replay(client, t1, db,
                                                                               replays):
    gid = start(client, t1)["game"]["id"]
    for seq, ev in enumerate((RON, DRAW), start=1):
        record(client, t1, ev, seq)
    behind(db, gid, 2)
    replays.clear()
    answer = record(client, t1, TSUMO, 3)
    assert replays == []
    whole = whole_replay(db, gid)
    assert answer["hand"] == whole.result["hands"][-1] and answer["state"] == whole.result["state"]


@pytest.mark.parametrize("marker", ["undo", "correction"])
def test_a_marker_among_the_new_rows_takes_a_whole_replay(client, t1, db, replays, marker):
    gid = start(client, t1)["game"]["id"]
    for seq, ev in enumerate((RON, DRAW), start=1):
        record(client, t1, ev, seq)
    if marker == "undo":
        r = client.post("/api/tables/t1/undo", headers=t1,
                        json={"expected_seq": 3, "idempotency_key": "undo-key-0001"})
        assert r.status_code == 201
    else:
        corrections.correct_hand(db, gid, 1, {**RON, "winners": [{"seat": 3, "han": 3, "fu": 30}]},
                           actor="staff:test", reason="wrong winner")
    behind(db, gid, 2)
    replays.clear()
    now = gamelog.played(db, games.get_game(db, gid))
    assert len(replays) == 1
    same_game(now, whole_replay(db, gid))


def test_a_memo_whose_last_row_is_not_in_the_log_is_never_used(client, t1, db, replays):
    gid = start(client, t1)["game"]["id"]
    record(client, t1, RON, 1)
    game = games.get_game(db, gid)
    log = gamelog.event_log(db, gid)
    stray = {**log[-1], "idempotency_key": "written-but-never-committed"}
    gamelog.remember(db, gid, gamelog.replay_log(game, [log[0], stray]))
    record(client, t1, DRAW, 2)          # the log grows past the stray entry's number
    gamelog.remember(db, gid, gamelog.replay_log(game, [log[0], stray]))
    replays.clear()
    now = gamelog.played(db, games.get_game(db, gid))
    assert len(replays) == 1
    same_game(now, whole_replay(db, gid))
