"""Members across branches, on the box: a chain-wide member id linked to the branch's
own player, and merges that staff confirm.

A chain member id (``JM-`` and 16 base32 letters, 80 random bits) is issued at the
branch where a member first asks for one and printed on the member card's QR; at any
other branch, staff scan it and link it to that branch's player. The head office keys
a member's games, R and history by it.

``chain_links`` is append-only (like ``hand_events``): a player's link is its newest
row, and nothing is ever rewritten, so the sync carries it by its id like any other
log. A row says which chain id the player now has and, when that replaces another,
which one (``previous_chain_id``: the head office then counts the old id's games as
the new one's). When staff confirm that two players of this box are one person, both
get the same chain id and the second is marked ``merged_into`` the first, for the
box's own pages; their hands and games stay exactly as recorded.
"""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
from collections.abc import Mapping
from typing import Any

import sqlite_utils

from club import roster
from club.audit import audit
from club.db import Migrations, now_iso, one, rows, write_tx
from club.errors import Conflict, UserError
from club.text import bounded_number

MIGRATIONS = Migrations("chain_members")

PREFIX = "JM-"
ID_RE = re.compile(r"^JM-[A-Z2-7]{16}$")
QR_SCHEME = "jantaku-member:"
"""What a chain id's own QR code holds before the id (``jantaku-member:JM-…``), so a
scanner tells a member card from any other code. A member card whose QR is the member's
personal link carries the id after it as the address's fragment (``…/m/TOKEN#JM-…``):
a browser never sends a fragment, and the desk reads the id from it."""
KINDS = ("issued", "claimed", "merged")


MIGRATIONS.script("_create_chain_links", """
        CREATE TABLE chain_links (
            id INTEGER PRIMARY KEY,
            player_id INTEGER NOT NULL REFERENCES players(id),
            chain_id TEXT NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('issued', 'claimed', 'merged')),
            -- the chain id this row replaces for the player (the head office follows it)
            previous_chain_id TEXT,
            -- set when staff merged this player into another player of this box
            merged_into INTEGER REFERENCES players(id),
            at TEXT NOT NULL,
            actor TEXT NOT NULL
        );
        CREATE INDEX chain_links_player ON chain_links(player_id, id);
        CREATE INDEX chain_links_chain ON chain_links(chain_id);
        CREATE TRIGGER chain_links_no_update BEFORE UPDATE ON chain_links
        BEGIN SELECT RAISE(ABORT, 'chain links are append-only: add a row instead'); END;
        CREATE TRIGGER chain_links_no_delete BEFORE DELETE ON chain_links
        BEGIN SELECT RAISE(ABORT, 'chain links are append-only: add a row instead'); END;
        """)


def new_chain_id() -> str:
    """A fresh, unguessable chain member id: ``JM-`` and 16 base32 letters (80 bits)."""
    return PREFIX + base64.b32encode(secrets.token_bytes(10)).decode("ascii")


def parse_chain_id(text: object) -> str:
    """A chain member id as typed or scanned (the QR's text, spaces, lower case and a
    missing dash forgiven), or a UserError saying what one looks like."""
    raw = str(text or "").strip()
    body = raw[len(QR_SCHEME):] if raw.lower().startswith(QR_SCHEME) else raw
    if "://" in body and "#" in body:  # a member card's personal link with the id after it
        body = body.rsplit("#", 1)[1]
    body = re.sub(r"[\s-]", "", body).upper()
    if body.startswith("JM"):
        body = body[2:]
    cid = PREFIX + body
    if not ID_RE.match(cid):
        raise UserError("chain.member.bad_id", value=raw[:40])
    return cid


def qr_text(chain_id: str, link: str | None = None) -> str:
    """What a member card's QR code carries for a chain member id: the member's personal
    link with the id as its fragment, or the id alone when there is no link."""
    cid = parse_chain_id(chain_id)
    return f"{link.split('#', 1)[0]}#{cid}" if link else QR_SCHEME + cid


def link(db: sqlite_utils.Database, player_id: int) -> dict | None:
    """A player's current link (its newest ``chain_links`` row), or None."""
    return one(db, "SELECT * FROM chain_links WHERE player_id = ? ORDER BY id DESC LIMIT 1",
               [int(player_id)])


def chain_id_of(db: sqlite_utils.Database, player_id: int) -> str | None:
    """A player's chain member id, or None if they have none."""
    row = link(db, player_id)
    return row["chain_id"] if row else None


def players_of(db: sqlite_utils.Database, chain_id: str) -> list[dict]:
    """This box's players whose current link is ``chain_id``, oldest first."""
    return rows(
        db,
        "SELECT p.*, l.merged_into FROM chain_links l JOIN players p ON p.id = l.player_id "
        "WHERE l.chain_id = ? AND l.id = (SELECT MAX(id) FROM chain_links "
        "WHERE player_id = l.player_id) ORDER BY p.id",
        [parse_chain_id(chain_id)],
    )


def merged_into(db: sqlite_utils.Database, player_id: int) -> int | None:
    """The player this one was merged into on this box (its pages show that one), or None."""
    row = link(db, player_id)
    return row["merged_into"] if row else None


def _member(db: sqlite_utils.Database, player_id: int) -> roster.PlayerRow:
    p = roster.get_player(db, int(player_id))
    if p["guest"]:
        raise UserError("chain.member.guest", name=p["name"])
    return p


def _add(db: sqlite_utils.Database, player_id: int, chain_id: str, kind: str, actor: str,
         previous: str | None = None, merged: int | None = None) -> dict:
    db.execute(
        "INSERT INTO chain_links (player_id, chain_id, kind, previous_chain_id, merged_into, "
        "at, actor) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [player_id, chain_id, kind, previous, merged, now_iso(), actor],
    )
    row = link(db, player_id)
    assert row is not None
    return row


def issue(db: sqlite_utils.Database, player_id: int, *, actor: str) -> str:
    """The member's chain id, issued now if they have none (the card's QR prints it)."""
    with write_tx(db):
        p = _member(db, player_id)
        have = chain_id_of(db, p["id"])
        if have:
            return have
        cid = new_chain_id()
        _add(db, p["id"], cid, "issued", actor)
        audit(db, actor, "chain.issue", f"player:{p['id']}", details={"chain_id": cid})
        return cid


def claim(db: sqlite_utils.Database, player_id: int, chain_id: object, *, actor: str) -> dict:
    """Link this box's member to a chain id from another branch's card.

    A member who already has another chain id, or a chain id another player of this box
    already holds, is one person with two records: that is a merge, which staff confirm
    after seeing both (:func:`propose_merge`); it is refused here naming the other."""
    cid = parse_chain_id(chain_id)
    with write_tx(db):
        p = _member(db, player_id)
        have = chain_id_of(db, p["id"])
        if have == cid:
            return link(db, p["id"]) or {}
        if have:
            raise Conflict("chain.member.has_other_id", code="merge_needed", name=p["name"],
                           chain_id=have)
        others = [o for o in players_of(db, cid) if o["id"] != p["id"]]
        if others:
            raise Conflict("chain.member.id_held", code="merge_needed", chain_id=cid,
                           name=others[0]["name"])
        row = _add(db, p["id"], cid, "claimed", actor)
        audit(db, actor, "chain.claim", f"player:{p['id']}", details={"chain_id": cid})
        return row


def _games_of(db: sqlite_utils.Database, player_id: int) -> list[dict]:
    return rows(
        db,
        "SELECT g.id, g.table_id, g.rule_set, g.status, g.started_at, g.finished_at, s.seat "
        "FROM game_seats s JOIN games g ON g.id = s.game_id WHERE s.player_id = ? "
        "ORDER BY g.started_at, g.id",
        [player_id],
    )


def _record(db: sqlite_utils.Database, p: Mapping[str, Any]) -> dict:
    return {"player_id": p["id"], "name": p["name"], "member_no": p["member_no"],
            "chain_id": chain_id_of(db, p["id"]), "games": _games_of(db, p["id"])}


def _check_key(proposal: dict) -> str:
    """A digest of what staff were shown: a confirmation of an out-of-date proposal (a
    game played or a link made since) is refused rather than applied blind."""
    shown = [(r["player_id"], r["chain_id"], [g["id"] for g in r["games"]])
             for r in proposal["records"]]
    shown.append(proposal["chain_id"])
    return hashlib.sha256(repr(shown).encode()).hexdigest()[:16]


def propose_merge(db: sqlite_utils.Database, keep_id: int, other: object) -> dict:
    """What staff confirm before two records become one person: ``records`` (the kept
    member and the other record, each with name, member number, chain id and games),
    the ``chain_id`` both will carry and ``check`` (passed back to :func:`confirm_merge`).

    ``other`` is either this box's player id (two players here are one person) or a
    chain id from another branch's card (this member's two chain ids are one person)."""
    keep = _member(db, int(keep_id))
    records = [_record(db, keep)]
    if isinstance(other, str) and other.strip().isdigit():
        # a player here: ASCII digits within a row id's bounds (never ١٢, never 20 digits)
        other = bounded_number(other.strip(), "other", 1, 2**63 - 1)
    if isinstance(other, int):
        if other == keep["id"]:
            raise UserError("chain.member.same_player", name=keep["name"])
        second = _member(db, other)
        records.append(_record(db, second))
        target = records[0]["chain_id"] or records[1]["chain_id"]
        kind = "players"
    else:
        cid = parse_chain_id(other)
        if cid == records[0]["chain_id"]:
            raise UserError("chain.member.same_id", name=keep["name"], chain_id=cid)
        records.append({"player_id": None, "name": "", "member_no": None, "chain_id": cid,
                        "games": []})
        for o in players_of(db, cid):
            if o["id"] != keep["id"]:
                records[1] = _record(db, o)
        target = cid
        kind = "chain_id"
    proposal = {"kind": kind, "records": records, "chain_id": target}
    proposal["check"] = _check_key(proposal)
    return proposal


def confirm_merge(db: sqlite_utils.Database, keep_id: int, other: object, *, check: str,
                  actor: str, reason: str = "") -> dict:
    """Staff confirm a proposed merge (``check`` from :func:`propose_merge`): both records
    carry one chain id; a second player of this box is marked merged into the kept one.
    The hand log is not touched; the merge is in the audit log. Returns the proposal as
    applied."""
    with write_tx(db):
        proposal = propose_merge(db, keep_id, other)
        if proposal["check"] != str(check or ""):
            raise Conflict("chain.member.stale_proposal", code="out_of_date")
        keep, second = proposal["records"]
        cid = proposal["chain_id"] or new_chain_id()
        if keep["chain_id"] != cid:
            _add(db, keep["player_id"], cid, "merged", actor, previous=keep["chain_id"])
        if second["player_id"] is not None:
            _add(db, second["player_id"], cid, "merged", actor, previous=second["chain_id"]
                 if second["chain_id"] != cid else None, merged=keep["player_id"])
        audit(db, actor, "chain.merge", f"player:{keep['player_id']}", reason,
              details={"chain_id": cid, "records": [
                  {"player_id": r["player_id"], "name": r["name"], "member_no": r["member_no"],
                   "chain_id": r["chain_id"], "games": len(r["games"])}
                  for r in proposal["records"]]})
        proposal["chain_id"] = cid
        return proposal
