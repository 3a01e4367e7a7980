"""A member's data: everything the club file holds about one member (:func:`export`), and
the removal of their personal data at their request (:func:`erase`).

Where the club file names a player, and what an erase does there:

* ``players``: the row stays (every game's seats point at it); the name becomes the
  catalogue's neutral word and the player's number (退会者 #12), the member number is
  cleared and the player retired.
* ``member_profiles``: the row is deleted: the personal link, the PIN, the e-mail
  address, the LINE id and every opt-in go with it.
* ``waiting``: an open place on the waiting list is closed (``left``); past entries keep
  the player's number only (no name is stored there).
* ``audit_log``: the entries keep what was done, by whom and when; every value of their
  details that is the member's name (a whole value, never part of one) and the member's
  name where it stands as a whole name in a reason a person wrote (:func:`whole_name_at`:
  "Ko" is not in "Kobayashi") become the neutral name; their member number and e-mail
  address are removed the same way; the reasons so changed are listed to staff before
  they confirm (:func:`free_text_matches`). The erase itself is one more entry, naming
  the staff member and the reason.
* ``hand_events``: append-only, with one sanctioned rewrite (:func:`gamelog.erase_name`):
  the ``start`` entry of each of the member's games lists the players' names as they were
  when it started, and the member's becomes the neutral name there; nothing else of any
  entry changes.
* ``game_seats``, ``stats_lines``, ``stats_days``, ``stats_months``, ``rating_lines``,
  ``ratings``, ``night_players``, ``seatings``: kept as they are (they hold the player's
  number, never a name; the other players' results, standings, R and the daily report
  are computed from them).
* ``outbox`` (word sent to members): a message still queued to the member is dropped; a
  message sent or failed keeps its row (its event key is what makes each message go once)
  without the address it went to, and the neutral name in place of theirs.
* ``login_attempts``: the member's own PIN tries (``member_pin:<number>``) are deleted;
  the other rows name staff accounts, tablets, tables and addresses, never a player.
* ``chain_links``: the chain id stays (it holds no name). The head office receives the
  neutral name with the player row, and the rewritten log and audit entries with the
  erase's own entry, at the next sync (``chain/erasure.py``).
* ``staff_users``, ``staff_contacts``, ``tablet_tokens``, ``calls``, ``nights``,
  ``club_tables``, ``rule_sets``, the table daemon's tables: they name staff, tablets
  and tables, never a player.

Everything happens in one write transaction: all of it or nothing, with SQLite's
``secure_delete`` on (what the erase frees is overwritten with zeros), and then a WAL
checkpoint (TRUNCATE) so no old version stays in the ``-wal`` file. Copies outside the
club file are not reached (:data:`OUTSIDE_PLACES`): the erase's report names each.
"""

from __future__ import annotations

import json
import time
import unicodedata
from collections.abc import Mapping
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import lexicon
from club import club_tables, daily_report, gamelog, roster, text
from club.audit import audit
from club.clubtime import club_zone, instant
from club.db import Db, now_iso, one, rows, write_tx
from club.errors import Conflict, UserError

WITHHELD = {
    "link_hash": "a hash of the member's personal link: with it anyone could look for the "
                 "link; the export says only whether a link is issued and when",
    "pin_hash": "a hash of the member's PIN: the PIN is theirs alone; the export says only "
                "whether one is set and when",
}
"""Fields of ``member_profiles`` the export leaves out, and why (the export names them)."""

OUTSIDE_PLACES = ("backups", "exports", "head_office", "sent", "paper", "downloads")
"""Where a copy of a member's data may remain after an erase, outside the club file (each
``member_data.outside.<place>`` in the catalogue)."""


def outside_the_file(lang: str = "en") -> list[str]:
    """Every place a copy may remain after an erase, in words (the erase's report, its
    audit entry and the export say them)."""
    return [lexicon.t(f"member_data.outside.{place}", lang) for place in OUTSIDE_PLACES]


OUTSIDE_THE_FILE = "; ".join(outside_the_file("en"))
"""The same, as one English sentence for the export."""

ERASE_ACTION = "member.erase"
MAX_REASON = 500


# ----------------------------------------------------------------------------- helpers
def former_name(player_id: int, lang: str = lexicon.DEFAULT_LANG) -> str:
    """The neutral name an erased member's seats keep: ``退会者 #12`` / ``Former member #12``."""
    return lexicon.t("member_data.former_name", lang, number=int(player_id))


def _local(value: Any, zone: ZoneInfo) -> Any:
    """An ISO time as an ISO time in the club's zone (with its offset); others unchanged."""
    if not isinstance(value, str) or not value:
        return value
    try:
        when = instant(value)
    except ValueError:
        return value
    return when.astimezone(zone).isoformat() if when else value


def _times(row: Mapping[str, Any], zone: ZoneInfo) -> dict:
    """A row with its time columns (``*_at``, ``at``) in the club's zone."""
    return {k: _local(v, zone) if (k.endswith("_at") or k == "at") else v
            for k, v in row.items()}


def _replaced(value: Any, name: str, neutral: str) -> Any:
    """``value`` (JSON data) with every string that is ``name`` replaced by ``neutral``."""
    if isinstance(value, str):
        return neutral if value == name else value
    if isinstance(value, list):
        return [_replaced(v, name, neutral) for v in value]
    if isinstance(value, dict):
        return {k: _replaced(v, name, neutral) for k, v in value.items()}
    return value


def _script(c: str) -> str | None:
    """The kind of letter ``c`` is, for telling where a name ends: Latin letters and
    digits, kanji, hiragana, katakana; None for anything else (spaces, punctuation)."""
    if c.isascii():
        return "latin" if c.isalnum() else None
    label = unicodedata.name(c, "")
    for word, kind in (("CJK", "han"), ("HIRAGANA", "hiragana"), ("KATAKANA", "katakana"),
                       ("LATIN", "latin"), ("HANGUL", "hangul")):
        if word in label:
            return kind
    return "other" if c.isalnum() else None


def whole_name_at(text: str, name: str) -> list[int]:
    """Where ``name`` stands in ``text`` as a whole name: a match whose neighbours are not
    letters of the same kind as its own first and last letter ("Ko" is not in
    "Kobayashi", "青木" is in "青木さん", not in "青木田")."""
    found: list[int] = []
    start = 0
    if not name:
        return found
    while (i := text.find(name, start)) >= 0:
        before = text[i - 1] if i > 0 else ""
        after = text[i + len(name)] if i + len(name) < len(text) else ""
        if (not before or _script(before) != _script(name[0])) and \
                (not after or _script(after) != _script(name[-1])):
            found.append(i)
        start = i + 1
    return found


def replace_whole_name(text: str, name: str, neutral: str) -> str:
    """``text`` with each whole-name match of ``name`` (:func:`whole_name_at`) replaced."""
    out, last = [], 0
    for i in whole_name_at(text, name):
        if i < last:
            continue
        out.append(text[last:i] + neutral)
        last = i + len(name)
    return "".join(out) + text[last:]


def free_text_matches(db: Db, player_id: int) -> list[dict]:
    """The audit entries whose reason (free text a person wrote) names the member as a
    whole name, each with the reason as it is and as it will read: listed to staff
    before they confirm an erase."""
    player = roster.get_player(db, int(player_id))
    name, neutral = player["name"], former_name(player["id"])
    out = []
    for r in rows(db, "SELECT id, at, actor, action, reason FROM audit_log ORDER BY id"):
        if r["reason"] and whole_name_at(r["reason"], name):
            out.append({**r, "after": replace_whole_name(r["reason"], name, neutral)})
    return out


def _names(value: Any, name: str) -> bool:
    """Whether JSON data holds ``name`` as one of its strings."""
    if isinstance(value, str):
        return value == name
    if isinstance(value, list):
        return any(_names(v, name) for v in value)
    if isinstance(value, dict):
        return any(_names(v, name) for v in value.values())
    return False


def _their_games(db: Db, player_id: int) -> list[dict]:
    return rows(db, "SELECT g.id AS game_id, g.table_id, g.rule_set, g.players, g.status, "
                    "g.started_at, g.finished_at, s.seat, s.confirmed_at, s.confirmed_by "
                    "FROM game_seats s JOIN games g ON g.id = s.game_id "
                    "WHERE s.player_id = ? ORDER BY g.started_at, g.id", [player_id])


def _their_hands(db: Db, game_id: int, seat: int) -> list[dict]:
    """The entries of a game's log (as it stands) that name the seat: wins, deal-ins,
    penalties and chombo."""
    out = []
    for e in gamelog.effective_events(gamelog.event_log(db, game_id)):
        ev = e["event"]
        kind = ev.get("event")
        roles = []
        if kind == "win":
            if any(isinstance(w, dict) and w.get("seat") == seat
                   for w in ev.get("winners") or []):
                roles.append("won")
            if ev.get("from") == seat:
                roles.append("dealt_in")
        elif kind in ("chombo", "penalty") and ev.get("seat") == seat:
            roles.append(kind)
        if roles:
            out.append({"seq": e["seq"], "roles": roles, "event": ev})
    return out


def _money(db: Db, player_id: int) -> list[dict]:
    """The member's account of each club day they played (fee, prize, chips, net)."""
    days = [r["club_day"] for r in rows(
        db, "SELECT DISTINCT club_day FROM stats_lines WHERE player_id = ? ORDER BY club_day",
        [player_id])]
    out = []
    for day in days:
        for acct in daily_report.accounts(db, day, [player_id]):
            line = {k: v for k, v in acct.items() if k not in ("name", "member_no")}
            out.append({"day": day, **line})
    return out


MEMBER_KINDS = ("seat_ready", "report_card", "pin_code", "pin_locked", "email_confirm")
"""Outbox kinds addressed to a member; their event key ends with the player's number."""


def _has_table(db: Db, name: str) -> bool:
    return one(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
               [name]) is not None


def _outbox(db: Db, player_id: int) -> list[dict]:
    """The outbox's messages to the member (none in a club file without an outbox)."""
    if not _has_table(db, "outbox"):
        return []
    marks = ", ".join("?" for _ in MEMBER_KINDS)
    return rows(db, f"SELECT * FROM outbox WHERE kind IN ({marks}) AND event_key LIKE ? "
                    "ORDER BY id", [*MEMBER_KINDS, f"%:{int(player_id)}"])


def _audit_about(db: Db, player_id: int, name: str, game_ids: list[int]) -> list[dict]:
    targets = [f"player:{player_id}", *(f"game:{g}" for g in game_ids)]
    found = []
    for r in rows(db, "SELECT * FROM audit_log ORDER BY id"):
        details = json.loads(r["details"] or "{}")
        if r["target"] in targets or _names(details, name) or \
                (name and whole_name_at(r["reason"], name)):
            found.append({**r, "details": details})
    return found


# ----------------------------------------------------------------------------- export
def export(db: Db, player_id: int) -> dict:
    """Everything the club file holds about one member, as JSON data, times in the club's
    time zone: the player row, the profile (secret hashes withheld: ``withheld`` says which
    and why), games and seats, the hands of those games that name them (wins, deal-ins,
    penalties, chombo), their summary lines, each day's account, R and dan, waiting-list,
    night and seating entries, the audit entries about them and the messages the outbox
    holds for them. NotFound for an unknown player."""
    player = roster.get_player(db, int(player_id))
    pid = player["id"]
    zone = ZoneInfo(club_zone(db))
    prof = one(db, "SELECT * FROM member_profiles WHERE player_id = ?", [pid])
    profile = None
    if prof is not None:
        profile = {k: v for k, v in prof.items() if k not in WITHHELD}
        profile["has_link"] = prof["link_hash"] is not None
        profile["has_pin"] = prof["pin_hash"] is not None
        profile = _times(profile, zone)
    seats = _their_games(db, pid)
    played = []
    for s in seats:
        hands = _their_hands(db, s["game_id"], s["seat"])
        played.append({**_times(s, zone), "hands": hands})
    game_ids = [s["game_id"] for s in seats]
    nights = rows(db, "SELECT n.id, n.name, n.rule_set, n.status, n.created_at "
                      "FROM night_players p JOIN nights n ON n.id = p.night_id "
                      "WHERE p.player_id = ? ORDER BY n.id", [pid])
    seatings = rows(db, "SELECT id, table_id, rule_set, status, night_id, round, game_id, "
                        "created_at, done_at FROM seatings WHERE EXISTS (SELECT 1 FROM "
                        "json_each(seatings.players) WHERE value = ?) ORDER BY id", [pid])
    return {
        "exported_at": datetime.now(zone).isoformat(timespec="seconds"),
        "timezone": str(zone),
        "player": _times(player, zone),
        "profile": profile,
        "withheld": WITHHELD,
        "games": played,
        "stats_lines": [_times(r, zone) for r in rows(
            db, "SELECT * FROM stats_lines WHERE player_id = ? ORDER BY ended_at, game_id",
            [pid])],
        "accounts": _money(db, pid),
        "ratings": [_times(r, zone) for r in rows(
            db, "SELECT * FROM ratings WHERE player_id = ? ORDER BY family", [pid])],
        "rating_lines": [_times(r, zone) for r in rows(
            db, "SELECT * FROM rating_lines WHERE player_id = ? "
                "ORDER BY family, ended_at, game_id", [pid])],
        "waiting": [_times(r, zone) for r in rows(
            db, "SELECT * FROM waiting WHERE player_id = ? ORDER BY id", [pid])],
        "nights": [_times(r, zone) for r in nights],
        "seatings": [_times(r, zone) for r in seatings],
        "audit": [_times(r, zone) for r in _audit_about(db, pid, player["name"], game_ids)],
        "outbox": [_times({**r, "payload": json.loads(r["payload"] or "{}")}, zone)
                   for r in _outbox(db, pid)],
        "kept_outside_the_file": OUTSIDE_THE_FILE,
    }


# ----------------------------------------------------------------------------- erase
def check_reason(reason: Any) -> str:
    """The reason given for an erasure: required, three characters at least, one line."""
    if not isinstance(reason, str) or len(reason.strip()) < 3:
        raise UserError("member_data.reason_required", code="missing_reason",
                        details={"field": "reason"})
    return text.clean(reason, "reason", MAX_REASON)


def erased(db: Db, player_id: int) -> bool:
    """Whether the member's personal data has been erased."""
    return one(db, "SELECT 1 FROM audit_log WHERE action = ? AND target = ?",
               [ERASE_ACTION, f"player:{int(player_id)}"]) is not None


def erase(db: Db, player_id: int, actor: str, reason: str) -> dict:
    """Remove a member's personal data and keep every game's results (module docstring:
    what each table keeps). Refused in words for an unknown player (404), a reason of
    fewer than three characters, a player seated in a live game or already erased (409).
    Returns the player row as it now is and what was changed."""
    why = check_reason(reason)
    player = roster.get_player(db, int(player_id))
    pid = player["id"]
    secure = db.execute("PRAGMA secure_delete").fetchone()[0]
    db.execute("PRAGMA secure_delete = ON")   # what the erase frees is overwritten, not left
    try:
        done = _erase(db, pid, actor, why)
    finally:
        db.execute(f"PRAGMA secure_delete = {int(secure)}")
    done["wal_truncated"] = checkpoint(db)
    return {"player": roster.get_player(db, pid), **done}


def checkpoint(db: Db, tries: int = 50) -> bool:
    """Copy the WAL into the club file and truncate it to nothing, so the old versions of
    what an erase changed are gone from the ``-wal`` file too. True once done; a reader
    holding an old snapshot makes it wait (a few seconds at most), and False means a
    copy may still be in the WAL until the next checkpoint."""
    for _ in range(tries):
        busy = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
        if not busy:
            return True
        time.sleep(0.1)
    return False


def _erase(db: Db, pid: int, actor: str, why: str) -> dict:
    with write_tx(db):
        player = roster.get_player(db, pid)            # again, inside the write
        if erased(db, pid):
            raise Conflict("member_data.already_erased", code="already_erased", number=pid)
        live = one(db, "SELECT g.table_id FROM game_seats s JOIN games g ON g.id = s.game_id "
                       "WHERE s.player_id = ? AND g.status = 'live' LIMIT 1", [pid])
        if live is not None:
            raise Conflict("member_data.in_live_game", code="player_seated",
                           name=player["name"], table=club_tables.get_table(db, live["table_id"])
                           ["name"] or live["table_id"])
        name, neutral = player["name"], former_name(pid)
        db.execute("UPDATE players SET name = ?, member_no = NULL, active = 0 WHERE id = ?",
                   [neutral, pid])
        mail = one(db, "SELECT email FROM member_profiles WHERE player_id = ?", [pid])
        profile = db.execute("DELETE FROM member_profiles WHERE player_id = ?", [pid]).rowcount
        if _has_table(db, "line_link_codes"):   # a code that would link a LINE to them
            db.execute("DELETE FROM line_link_codes WHERE player_id = ?", [pid])
        closed = db.execute("UPDATE waiting SET status = 'left', done_at = ? "
                            "WHERE player_id = ? AND status = 'waiting'",
                            [now_iso(), pid]).rowcount
        dropped = kept = 0
        for m in _outbox(db, pid):
            if m["state"] == "queued":
                dropped += db.execute("DELETE FROM outbox WHERE id = ?", [m["id"]]).rowcount
                continue
            payload = _replaced(json.loads(m["payload"] or "{}"), name, neutral)
            error = m["last_error"]
            if error and m["address"]:
                error = error.replace(m["address"], "")
            db.execute("UPDATE outbox SET address = '', payload = ?, last_error = ? "
                       "WHERE id = ?", [json.dumps(payload, ensure_ascii=False,
                                                   sort_keys=True), error, m["id"]])
            kept += 1
        renamed = gamelog.erase_name(db, pid, neutral)
        tries = db.execute("DELETE FROM login_attempts WHERE ip = ?",
                           [f"member_pin:{pid}"]).rowcount
        scrubbed = 0
        # the member number and the e-mail address are theirs as much as the name
        others = [v for v in (player.get("member_no"), (mail or {}).get("email")) if v]
        for r in rows(db, "SELECT id, reason, details FROM audit_log"):
            details = json.loads(r["details"] or "{}")
            # free text: whole names only; structured details: a value that is the name
            new_reason = replace_whole_name(r["reason"], name, neutral) if name \
                else r["reason"]
            for v in others:
                new_reason = replace_whole_name(new_reason, v, "")
            if _names(details, name) or any(_names(details, v) for v in others) \
                    or new_reason != r["reason"]:
                details = _replaced(details, name, neutral)
                for v in others:
                    details = _replaced(details, v, "")
                db.execute("UPDATE audit_log SET reason = ?, details = ? WHERE id = ?",
                           [new_reason, json.dumps(details, ensure_ascii=False,
                                                   sort_keys=True), r["id"]])
                scrubbed += 1
        done = {"profile_deleted": bool(profile), "waiting_closed": closed,
                "outbox_dropped": dropped, "outbox_addresses_removed": kept,
                "pin_tries_deleted": tries, "audit_entries_scrubbed": scrubbed,
                "log_start_entries_renamed": renamed,
                "kept_outside_the_file": outside_the_file("en")}
        audit(db, actor, ERASE_ACTION, f"player:{pid}", why,
              {"number": pid, "new_name": neutral, **done})
    return done
