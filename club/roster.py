"""The club's roster: its members and guests, found by how their names read.

A player is never deleted: a retired member keeps their games and standing
(``active`` 0), and a guest who comes back is the same guest again."""

from __future__ import annotations

import unicodedata
from typing import NotRequired, TypedDict, cast

from club import text
from club.db import Db, inserted_id, now_iso, write_tx
from club.db import one as _one
from club.db import rows as _rows
from club.errors import Conflict, NotFound
from club.i18n import t

MAX_NAME = 40


class PlayerRow(TypedDict):
    """A ``players`` row (:func:`get_player`); ``guest`` and ``active`` are 0 or 1.
    ``reused``: :func:`add_player` found the guest already here."""

    id: int
    name: str
    guest: int
    member_no: str | None
    active: int
    created_at: str
    reused: NotRequired[bool]


def name_key(name: str) -> str:
    """A name as people would mistake it for another: NFKC (full-width, half-width kana),
    case-folded, without spaces or dots, katakana as hiragana (ナカムラ = なかむら)."""
    text_ = unicodedata.normalize("NFKC", str(name)).casefold()
    text_ = "".join(c for c in text_ if not c.isspace() and c not in "・.･")
    return "".join(chr(ord(c) - 0x60) if "\u30a1" <= c <= "\u30f6" else c for c in text_)


def similar_players(db: Db, name: str) -> list[PlayerRow]:
    """Players (members, guests, retired) whose name reads the same as ``name``."""
    key = name_key(name)
    return [cast(PlayerRow, p) for p in _rows(db, "SELECT * FROM players ORDER BY guest, id")
            if name_key(p["name"]) == key]


def add_player(db: Db, name: str, *, guest: bool = False, member_no: str | None = None,
               allow_similar: bool = False) -> PlayerRow:
    """Add a member (or a guest) and return it.

    A name that reads like a player's already here (NFKC, case, spaces, katakana and
    hiragana alike) is refused with the players it resembles, unless ``allow_similar``
    (staff said it is someone else). A guest named like an earlier guest who is not at a
    table now is that guest again (``reused``): walk-ins do not pile up as players."""
    name = text.clean(name, "name", MAX_NAME)
    if member_no is not None:
        member_no = text.clean(str(member_no), "member_no", MAX_NAME)
    with write_tx(db):
        if member_no and _one(db, "SELECT id FROM players WHERE member_no = ?", [member_no]):
            raise Conflict("records.member_no_used", member_no=member_no)
        alike = similar_players(db, name)
        if guest and not member_no:
            same = [p for p in alike if p["guest"] and p["active"] and p["name"] == name
                    and not live_seat(db, p["id"])]
            if same:
                return {**same[0], "reused": True}
        if alike and not allow_similar:
            raise Conflict("records.similar_name", code="similar_name",
                           details={"field": "name", "similar": [p["id"] for p in alike]},
                           name=name, similar=_describe_players(alike))
        cur = db.execute(
            "INSERT INTO players (name, guest, member_no, created_at) VALUES (?, ?, ?, ?)",
            [name, int(bool(guest)), member_no, now_iso()],
        )
    return get_player(db, inserted_id(cur))


def _describe_players(players: list[PlayerRow]) -> str:
    """``中村（M008）、中村（ゲスト）`` in the request's language."""
    parts = []
    for p in players:
        if p["guest"]:
            tag = t("records.tag_guest")
        else:
            tag = p["member_no"] or f"#{p['id']}"
        if not p["active"]:
            tag += t("floor.list_sep") + t("records.tag_retired")
        parts.append(t("records.player_tag", name=p["name"], tag=tag))
    return t("floor.list_sep").join(parts)


def live_seat(db: Db, player_id: int, but: int | None = None) -> dict | None:
    """The live game a player sits in (other than ``but``), with its table, or None."""
    return _one(db, "SELECT g.id, g.table_id FROM game_seats s JOIN games g ON g.id = s.game_id "
                    "WHERE s.player_id = ? AND g.status = 'live' AND g.id != ? LIMIT 1",
                [player_id, but or 0])


def get_player(db: Db, player_id: int) -> PlayerRow:
    """One player by id (NotFound if there is none)."""
    row = _one(db, "SELECT * FROM players WHERE id = ?", [player_id])
    if row is None:
        raise NotFound("records.no_player", player=player_id)
    return cast(PlayerRow, row)


def list_players(db: Db, *, guests: bool = False, inactive: bool = False) -> list[PlayerRow]:
    """Members by name (and guests, inactive players when asked)."""
    where = ["1=1"]
    if not guests:
        where.append("guest = 0")
    if not inactive:
        where.append("active = 1")
    rows = _rows(db, f"SELECT * FROM players WHERE {' AND '.join(where)} "
                     "ORDER BY guest, name, id")
    return [cast(PlayerRow, r) for r in rows]


def set_player_active(db: Db, player_id: int, active: bool) -> PlayerRow:
    """Retire or restore a player (history keeps them)."""
    get_player(db, player_id)
    with write_tx(db):
        db.execute("UPDATE players SET active = ? WHERE id = ?", [int(bool(active)), player_id])
    return get_player(db, player_id)

