"""The typed rows of web's domain layer name exactly the columns a stored game, its seats
and its log rows have: a column added to the schema without its TypedDict (or the other
way round) fails here, not as a KeyError in front of a player."""

from __future__ import annotations

from typing import get_type_hints

import pytest

from club import club_tables, events, gamelog, roster
from tests.support.web import record, start

RON = {"event": "win", "winners": [{"seat": 1, "han": 3, "fu": 30}], "from": 0}


def keys(typed: type) -> set[str]:
    return set(get_type_hints(typed))


def test_a_stored_game_its_seats_and_its_log_rows_have_their_typed_keys(client, t1, db):
    gid = start(client, t1)["game"]["id"]
    record(client, t1, RON, 1)
    game = gamelog.get_game(db, gid)
    assert set(game) == keys(gamelog.Game)
    assert all(set(s) == keys(gamelog.SeatRow) for s in game["seats"]) and game["seats"]
    log = gamelog.event_log(db, gid)
    assert [r["seq"] for r in log] == [0, 1]
    assert all(set(r) == keys(gamelog.HandEventRow) for r in log)
    # a row the writer hands on is the row a reader reads back
    played = gamelog.played(db, game)
    assert [set(r) for r in played.log] == [keys(gamelog.HandEventRow)] * 2


def test_the_players_table_has_the_typed_player_row(client, t1, db):
    player = roster.get_player(db, gamelog.get_game(
        db, start(client, t1)["game"]["id"])["seats"][0]["player_id"])
    assert set(player) == keys(roster.PlayerRow) - {"reused"}  # an add_player answer's note
    listed = roster.list_players(db, guests=True)
    assert listed and all(set(p) == keys(roster.PlayerRow) - {"reused"} for p in listed)


def test_the_club_tables_table_has_the_typed_table_row(client, t1, db):
    gid = start(client, t1)["game"]["id"]
    assert set(club_tables.get_table(db, "t1")) == keys(club_tables.TableRow) - {"live_game"}
    listed = {t["id"]: t for t in club_tables.list_tables(db)}
    assert set(listed["t1"]) == keys(club_tables.TableRow)   # with the live game's id
    assert listed["t1"]["live_game"] == gid


def test_a_field_bounded_by_the_rules_checked_without_them_names_the_mistake():
    with pytest.raises(TypeError, match="without them"):
        events.seats([0, 1], "tenpai", None)
