"""The desk's side of members across branches (``/staff/players/<id>/chain``): the
member's chain member id, linking a card from another branch, and merging two records
of one person after staff have seen both.

A merge is shown first (``?other=``: another player here, or a card's chain id), with
both records' names, member numbers and games; it is done only when staff confirm that
same proposal (its ``check``), with a reason, and it is in the audit log. The hand log
is never touched (see :mod:`chain.members`).
"""

from __future__ import annotations

from flask import jsonify, render_template, request
from flask.typing import ResponseReturnValue

from chain import members as chain_members
from club import clubtime, roster
from web.db import get_db
from web.i18n import t
from web.limits import ID_MAX, bounded_number, form_data
from web.security import actor_name, staff_required, wants_json
from web.staff.common import bp, done, need, reason_of


def _page(player_id: int, proposal: dict | None = None, other: str = "") -> ResponseReturnValue:
    db = get_db()
    player = roster.get_player(db, player_id)
    tz = clubtime.club_zone(db)
    if proposal:
        for rec in proposal["records"]:
            for g in rec["games"]:
                g["clock"] = clubtime.clock(g["started_at"], tz, day=True)
    return render_template("staff/chain_desk.html", player=player,
                           link=chain_members.link(db, player_id),
                           merged_into=chain_members.merged_into(db, player_id),
                           proposal=proposal, other=other)


@bp.get("/players/<int:player_id>/chain")
@staff_required
def chain_desk(player_id: int) -> ResponseReturnValue:
    """A member's chain member id, with the forms to issue one, link a card and merge;
    ``?other=`` shows the proposed merge with that record."""
    other = (request.args.get("other") or "").strip()[:80]
    if other and other.isdigit():   # a player here: ASCII digits within a row id's bounds
        other = str(bounded_number(other, "other", 1, ID_MAX))
    proposal = chain_members.propose_merge(get_db(), player_id, other) if other else None
    if wants_json():
        roster.get_player(get_db(), player_id)
        return jsonify({"ok": True, "player_id": player_id,
                        "link": chain_members.link(get_db(), player_id),
                        "proposal": proposal})
    return _page(player_id, proposal, other)


@bp.post("/players/<int:player_id>/chain/issue")
@staff_required
def chain_issue(player_id: int) -> ResponseReturnValue:
    """Give a member a chain member id (the one they have if they have one)."""
    cid = chain_members.issue(get_db(), player_id, actor=actor_name())
    return done(t("chain.desk.issued", chain_id=cid), "staff.chain_desk",
                payload={"chain_id": cid}, player_id=player_id)


@bp.post("/players/<int:player_id>/chain/claim")
@staff_required
def chain_claim(player_id: int) -> ResponseReturnValue:
    """Link a member card from another branch (its QR's text or its id) to this member."""
    row = chain_members.claim(get_db(), player_id, need(form_data(), "card"),
                              actor=actor_name())
    return done(t("chain.desk.claimed", chain_id=row["chain_id"]), "staff.chain_desk",
                payload={"chain_id": row["chain_id"]}, player_id=player_id)


@bp.post("/players/<int:player_id>/chain/merge")
@staff_required
def chain_merge(player_id: int) -> ResponseReturnValue:
    """Confirm the merge staff were shown (its ``other`` and ``check``), with a reason."""
    data = form_data()
    done_ = chain_members.confirm_merge(get_db(), player_id, need(data, "other"),
                                        check=need(data, "check"), actor=actor_name(),
                                        reason=reason_of(data))
    return done(t("chain.desk.merged", chain_id=done_["chain_id"]), "staff.chain_desk",
                payload={"chain_id": done_["chain_id"]}, player_id=player_id)
