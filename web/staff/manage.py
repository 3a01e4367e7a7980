"""Staff management pages: players, club tables, rule sets, tablets, staff accounts.

Every change is written through the owning module (``club.roster`` for players,
``club.club_tables`` for tables and rule sets, ``web.security`` for tablets,
``club.accounts`` for accounts) and recorded in the audit log with the signed-in
staff member's name.
"""

from __future__ import annotations

import segno
from flask import current_app, flash, jsonify, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue

from club import club_tables, clubtime, roster, stats_store
from club.accounts import (
    ROLES,
    create_staff,
    list_staff,
    set_staff_active,
    set_staff_password,
    set_staff_role,
)
from club.db import Db
from club.errors import UserError
from club.text import text_of
from web import signin
from web.db import get_db
from web.i18n import t
from web.limits import flag_of, form_data
from web.security import (
    actor_name,
    create_pairing,
    current_staff,
    list_tablets,
    revoke_tablet,
    staff_required,
    wants_json,
)
from web.staff.common import bp, done, msg, need, record
from web.staff.modes import needs_mode


# ----------------------------------------------------------------------------- players
@bp.get("/players")
@staff_required
def players() -> ResponseReturnValue:
    """Members and guests (guests marked), with the form to add one."""
    db = get_db()
    rows = roster.list_players(db, guests=True, inactive=True)
    if wants_json():
        return jsonify({"players": rows})
    seated = {r["player_id"]: r for r in db.execute_returning_dicts(
        "SELECT s.player_id, g.table_id, g.id AS game_id FROM game_seats s "
        "JOIN games g ON g.id = s.game_id WHERE g.status = 'live'")}
    return render_template("staff/players.html", players=rows, seated=seated,
                           guests_ranked=stats_store.settings(db)["guests_ranked"] == "1")


_flag = flag_of


@bp.post("/players")
@staff_required
def player_add() -> ResponseReturnValue:
    """Add a member or a guest. A name that reads like someone already here is refused
    with who it resembles, unless ``allow_similar`` (it is another person); a guest named
    like an earlier guest is that guest again."""
    data = form_data()
    member_no = (text_of(data, "member_no") or "").strip() or None
    guest = _flag(data, "guest")
    row = roster.add_player(get_db(), need(data, "name"), guest=guest, member_no=member_no,
                           allow_similar=_flag(data, "allow_similar"))
    if row.get("reused"):
        return done(t("staff.players.reused", name=row["name"]), "staff.players", 200,
                    {"player": row})
    record("player.create", f"player:{row['id']}", details={"name": row["name"], "guest": guest})
    return done(t("staff.players.added", name=row["name"]), "staff.players", 201,
                {"player": row})


@bp.post("/players/<int:player_id>/active")
@staff_required
def player_active(player_id: int) -> ResponseReturnValue:
    """Retire or restore a player (their history stays)."""
    active = _flag(form_data(), "active", required=True)
    row = roster.set_player_active(get_db(), player_id, active)
    record("player.restore" if active else "player.retire", f"player:{player_id}")
    return done(t("staff.players.now_active" if active else "staff.players.now_retired",
                  name=row["name"]), "staff.players", payload={"player": row})


# ----------------------------------------------------------------------------- club settings
@bp.get("/settings")
@staff_required
def club_settings() -> ResponseReturnValue:
    """The club's settings: its time zone, when a club day ends, guests on leaderboards."""
    cfg = stats_store.settings(get_db())
    if wants_json():
        return jsonify({"settings": cfg})
    return render_template("staff/settings.html", cfg=cfg)


@bp.post("/settings")
@staff_required
def club_settings_save() -> ResponseReturnValue:
    """Change the club's settings (a new time zone or closing hour re-files every game in
    its club day; audited with the old and new values)."""
    data = form_data()
    db = get_db()
    old = stats_store.settings(db)
    zone = (text_of(data, "timezone") or old["timezone"]).strip()
    closing = (text_of(data, "closing_hour") or old["closing_hour"]).strip()
    if (zone, closing) != (old["timezone"], old["closing_hour"]):
        stats_store.configure(db, closing_hour=closing, timezone_name=zone)
    new = stats_store.rank_guests(db, _flag(data, "guests_ranked"))
    record("settings.update", "club:settings", details={"old": old, "new": new})
    return done(t("staff.settings.saved"), "staff.club_settings", payload={"settings": new})


# ----------------------------------------------------------------------------- club tables
@bp.get("/tables")
@staff_required
def tables() -> ResponseReturnValue:
    """The club's tables and the rule set each one plays."""
    db = get_db()
    rows, rule_sets = club_tables.list_tables(db), club_tables.list_rule_sets(db)
    if wants_json():
        return jsonify({"tables": rows})
    return render_template("staff/tables.html", tables=rows, rule_sets=rule_sets)


@bp.post("/tables")
@staff_required
def table_save() -> ResponseReturnValue:
    """Create a club table or change its name / rule set (id = the daemon's table id)."""
    data = form_data()
    db = get_db()
    row = club_tables.save_table(db, need(data, "id"), need(data, "name"), need(data, "rule_set"),
                           actor=actor_name())
    text = t("staff.tables.saved", table=row["id"])
    target = needs_mode(db, row["id"], row["rule_set"])
    if target is not None and not wants_json():
        # the rule set plays another AMOS mode: on to the guided change of the table's mode
        flash(text + " " + t("floor.seat.mode_next"), "ok")
        return redirect(url_for("staff.mode_guide", table_id=row["id"], mode=f"{target:02d}"))
    return done(text, "staff.tables", payload={"table": row, "mode_needed": target})


# ----------------------------------------------------------------------------- rule sets
STARTER_TOML = '''extends = "netmahjong"
title = "Our club rules"

[hand]
# kuitan = true
'''


@bp.get("/rulesets")
@staff_required
def rulesets() -> ResponseReturnValue:
    """Shipped presets and the club's own rule sets."""
    rows = club_tables.list_rule_sets(get_db())
    if wants_json():
        return jsonify({"rule_sets": rows})
    return render_template("staff/rulesets.html", rule_sets=rows, edit=None,
                           toml=STARTER_TOML, error=None)


@bp.get("/rulesets/<rule_set_id>")
@staff_required
def ruleset(rule_set_id: str) -> ResponseReturnValue:
    """One rule set: its TOML (club sets, editable) and every resolved switch."""
    db = get_db()
    row = club_tables.get_rule_set(db, rule_set_id)
    if wants_json():
        return jsonify({"rule_set": row})
    return render_template("staff/rulesets.html", rule_sets=club_tables.list_rule_sets(db),
                           edit=row, toml=row.get("toml") or f'extends = "{rule_set_id}"\n',
                           error=None)


@bp.post("/rulesets")
@staff_required
def ruleset_save() -> ResponseReturnValue:
    """Create or replace a club rule set from TOML; an invalid file changes nothing."""
    data = form_data()
    rid = (text_of(data, "id") or "").strip()
    text = _uploaded_toml() or text_of(data, "toml") or ""
    db = get_db()
    try:
        row = club_tables.save_rule_set(db, need(data, "id"), text,
                                  actor=actor_name())
    except UserError as e:
        if wants_json():
            raise
        # Show the staff member's text again with the reason, so nothing typed is lost.
        page = render_template("staff/rulesets.html", rule_sets=club_tables.list_rule_sets(db),
                               edit={"id": rid, "preset": False}, toml=text, error=e.message)
        return page, e.status
    return done(msg(f"ルール {row['id']} を保存しました", f"Saved rule set {row['id']}"),
                "staff.ruleset", payload={"rule_set": row}, rule_set_id=row["id"])


def _uploaded_toml() -> str | None:
    """The text of an uploaded .toml file, if one was chosen (it wins over the text box)."""
    upload = request.files.get("file")
    if upload is None or not upload.filename:
        return None
    try:
        return upload.read().decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UserError("rules.not_utf8", code="rules_not_utf8") from None


# ----------------------------------------------------------------------------- tablets
def pairing_url(code: str) -> str:
    """The address a tablet opens to pair: the configured public address (``serve`` sets
    it to ``--public-url`` or the address it is bound to), else the server's own name and
    port as the WSGI server reports them. Never the request's Host header, which any
    client can set."""
    base = current_app.config.get("PUBLIC_URL")
    if not base:
        env = request.environ
        port = str(env["SERVER_PORT"])
        default = {"http": "80", "https": "443"}.get(request.scheme)
        base = f"{request.scheme}://{env['SERVER_NAME']}" + ("" if port == default else f":{port}")
    return base.rstrip("/") + url_for("auth.pair", code=code)


def qr_svg(text: str) -> str:
    """``text`` as an inline SVG QR code."""
    return segno.make(text, error="m").svg_inline(border=2, omitsize=True)


@bp.get("/tablets")
@staff_required
def tablets() -> ResponseReturnValue:
    """Paired tablets and waiting pairing codes, with the form to issue one."""
    db = get_db()
    rows = list_tablets(db)
    if wants_json():
        return jsonify({"tablets": rows})
    return render_template("staff/tablets.html", tablets=_seen(db, rows),
                           tables=club_tables.list_tables(db), issued=None)


def _seen(db: Db, rows: list[dict]) -> list[dict]:
    """Tablets with when each was last seen, in the club's time zone."""
    tz = clubtime.club_zone(db)
    return [{**r, "last_seen": clubtime.clock(r["last_seen_at"], tz) if r.get("last_seen_at")
             else None} for r in rows]


@bp.post("/tablets")
@staff_required
def tablet_issue() -> ResponseReturnValue:
    """Issue a pairing code for a table and show it as a QR code (shown once)."""
    data = form_data()
    db = get_db()
    table = club_tables.get_table(db, need(data, "table_id"))
    pairing = create_pairing(db, table["id"], actor=actor_name(),
                             label=(text_of(data, "label") or "")[:60])
    record("tablet.issue", f"table:{table['id']}", details={"tablet_id": pairing["id"]})
    url = pairing_url(pairing["code"])
    if wants_json():
        return jsonify({"ok": True, "tablet_id": pairing["id"], "table_id": table["id"],
                        "pair_url": url}), 201
    issued = {"id": pairing["id"], "table": table, "url": url, "svg": qr_svg(url)}
    return render_template("staff/tablets.html", tablets=_seen(db, list_tablets(db)),
                           tables=club_tables.list_tables(db), issued=issued), 201


@bp.post("/tablets/<int:tablet_id>/revoke")
@staff_required
def tablet_revoke(tablet_id: int) -> ResponseReturnValue:
    """Unpair a tablet: its next request is refused with 'ask staff'."""
    row = revoke_tablet(get_db(), tablet_id, actor=actor_name())
    record("tablet.revoke", f"table:{row['table_id']}", details={"tablet_id": tablet_id})
    return done(msg(f"タブレット {tablet_id} の登録を解除しました",
                    f"Tablet {tablet_id} is unpaired"), "staff.tablets")


# ----------------------------------------------------------------------------- staff accounts
@bp.get("/accounts")
@staff_required
def accounts() -> ResponseReturnValue:
    """Staff accounts (names and roles) with forms to add one or reset a password."""
    db = get_db()
    rows = list_staff(db)
    if wants_json():
        return jsonify({"staff": rows})
    tz = clubtime.club_zone(db)
    rows = [{**r, "last_login": clubtime.clock(r["last_login_at"], tz)
             if r.get("last_login_at") else ""} for r in rows]
    return render_template("staff/accounts.html", accounts=rows, roles=ROLES)


@bp.post("/accounts")
@staff_required
def account_save() -> ResponseReturnValue:
    """Add a staff account, or set a new password for an existing one (one's own, or as a
    manager/owner another's); the audit log says who did it to whom."""
    data = form_data()
    db, me = get_db(), current_staff()
    name, password = need(data, "name"), text_of(data, "password") or ""
    if _flag(data, "reset"):
        set_staff_password(db, name, password, by=me, current=text_of(data, "current_password"),
                           ip=request.remote_addr or "?", guard=signin.guard())
        record("staff.password", f"staff:{name}")
        text = msg(f"{name} のパスワードを変更しました", f"New password set for {name}")
    else:
        role = text_of(data, "role") or "staff"
        create_staff(db, name, password, role=role, by=me)
        record("staff.create", f"staff:{name}", details={"role": role})
        text = msg(f"スタッフ {name} を追加しました", f"Added staff account {name}")
    return done(text, "staff.accounts")


@bp.post("/accounts/<name>/role")
@staff_required
def account_role(name: str) -> ResponseReturnValue:
    """Change an account's role (a manager or owner, never above their own role)."""
    role = need(form_data(), "role")
    set_staff_role(get_db(), name, role, by=current_staff())
    record("staff.role", f"staff:{name}", details={"role": role})
    return done(msg(f"{name} の役割を {role} にしました", f"{name} is now {role}"),
                "staff.accounts")


@bp.post("/accounts/<name>/active")
@staff_required
def account_active(name: str) -> ResponseReturnValue:
    """Disable or re-enable a staff account (a disabled one is signed out at once)."""
    active = _flag(form_data(), "active", required=True)
    set_staff_active(get_db(), name, active, by=current_staff())
    record("staff.enable" if active else "staff.disable", f"staff:{name}")
    text = msg(f"{name} を{'有効' if active else '無効'}にしました",
               f"{name} is now {'enabled' if active else 'disabled'}")
    return done(text, "staff.accounts")
