"""The desk's side of a member's own page: their personal link (issue, reissue, revoke),
their PIN, and a printable member card with the link's QR code.

A link's token is shown once, when it is issued (as an address, a QR code, or on the
card printed then); only its hash is kept, so a lost card is a new link. Every action
is in the audit log under the signed-in staff member's name, never with the token.
"""

from __future__ import annotations

from flask import jsonify, render_template, url_for
from flask.typing import ResponseReturnValue

from chain import members as chain_members
from club import clubtime, members, roster
from web.db import get_db
from web.i18n import t
from web.limits import form_data
from web.security import actor_name, staff_required, wants_json
from web.staff.common import bp, done, record
from web.staff.manage import pairing_url, qr_svg


def member_url(token: str) -> str:
    """The address of a member's own page, on the club's public address (as a tablet's
    pairing address is, never the request's Host header)."""
    pair = pairing_url("x")
    base = pair[: len(pair) - len(url_for("auth.pair", code="x"))]
    return base + url_for("member.page", token=token)


def _desk(player_id: int, issued: dict | None = None, status: int = 200) -> ResponseReturnValue:
    db = get_db()
    player = roster.get_player(db, player_id)
    prof = members.profile(db, player_id) or {}
    tz = clubtime.club_zone(db)
    when = {k: clubtime.clock(prof[k], tz, day=True) if prof.get(k) else None
            for k in ("link_issued_at", "pin_set_at")}
    return render_template("staff/member_desk.html", player=player, prof=prof, when=when,
                           optins=members.OPTINS, issued=issued,
                           guard=members.guard_state(db, player_id)), status


@bp.get("/players/<int:player_id>/member")
@staff_required
def member_desk(player_id: int) -> ResponseReturnValue:
    """A member's link and PIN, with the forms to issue, revoke, set and print."""
    if wants_json():
        prof = members.profile(get_db(), player_id) or {}
        roster.get_player(get_db(), player_id)
        return jsonify({"ok": True, "player_id": player_id,
                        "link": bool(prof.get("link_hash")),
                        "link_issued_at": prof.get("link_issued_at"),
                        "pin": bool(prof.get("pin_hash")), "pin_set_at": prof.get("pin_set_at"),
                        "pin_guard": members.guard_state(get_db(), player_id),
                        **{k: bool(prof.get(k)) for k in members.OPTINS}})
    return _desk(player_id)


def _issue(player_id: int, card: bool) -> tuple[str, str]:
    token, reissued = members.issue_link(get_db(), player_id)
    record("member.link_reissue" if reissued else "member.link_issue", f"player:{player_id}",
           details={"card": int(card)})
    return token, member_url(token)


@bp.post("/players/<int:player_id>/member/link")
@staff_required
def member_link(player_id: int) -> ResponseReturnValue:
    """Issue (or reissue) a member's personal link, shown once as an address and a QR code;
    the link in use before stops working."""
    _token, url = _issue(player_id, card=False)
    if wants_json():
        return jsonify({"ok": True, "player_id": player_id, "url": url}), 201
    return _desk(player_id, {"url": url, "svg": qr_svg(url)}, 201)


@bp.post("/players/<int:player_id>/member/card")
@staff_required
def member_card(player_id: int) -> ResponseReturnValue:
    """Print a member card: a new link (the old one and its card stop working) on a
    credit-card-sized page with the member's name, number and the link's QR code."""
    player = roster.get_player(get_db(), player_id)
    _token, url = _issue(player_id, card=True)
    # the card's QR carries the chain member id too (after the link, see chain.members)
    chain_id = None if player["guest"] else chain_members.issue(get_db(), player_id,
                                                                actor=actor_name())
    code = chain_members.qr_text(chain_id, url) if chain_id else url
    if wants_json():
        return jsonify({"ok": True, "player_id": player_id, "url": url,
                        "chain_id": chain_id, "qr": code}), 201
    return render_template("staff/member_card.html", player=player, url=url,
                           chain_id=chain_id, svg=qr_svg(code)), 201


@bp.post("/players/<int:player_id>/member/link/revoke")
@staff_required
def member_link_revoke(player_id: int) -> ResponseReturnValue:
    """End a member's personal link (their page answers "no such page")."""
    player = roster.get_player(get_db(), player_id)
    members.revoke_link(get_db(), player_id)
    record("member.link_revoke", f"player:{player_id}")
    return done(t("member.desk.revoked", name=player["name"]), "staff.member_desk",
                player_id=player_id)


@bp.post("/players/<int:player_id>/member/pin")
@staff_required
def member_pin(player_id: int) -> ResponseReturnValue:
    """Set or reset a member's PIN (6 to 8 digits, not a weak one), which opens their
    settings; every settings session opened with the old PIN ends."""
    player = roster.get_player(get_db(), player_id)
    members.set_pin(get_db(), player_id, form_data().get("pin"))
    record("member.pin_set", f"player:{player_id}")
    return done(t("member.desk.pin_done", name=player["name"]), "staff.member_desk",
                player_id=player_id)
