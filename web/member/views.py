"""A member's own page, reached by the personal link the desk issues (blueprint ``member``,
under ``/m``). Japanese first, ``?lang=en`` for English; phone-first.

* ``/m/<token>``: history by day, figures per rule family, the R curve (SVG), dan
  progress, penalties and chombo with their game and hand, the day's account and report
  card (``?family=``, ``?day=YYYY-MM-DD``);
* ``/m/<token>/settings``: after the member number and PIN (throttled as a staff
  sign-in), the member's e-mail, their LINE (linked by the code they send the club's
  account, never typed) and what they agree to receive.

A revoked or unknown link gets a page in words (404), never anyone's data. The link is
the member's key: these pages never send it on (``Referrer-Policy: no-referrer``), are
never cached, and nothing here writes it to a log or the audit log.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any

from flask import (
    Blueprint,
    Response,
    current_app,
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException

from club import (
    audit,
    charts,
    daily_report,
    engine,
    gamelog,
    line_link,
    members,
    rating_store,
    report_card,
    standings,
    stats_store,
)
from club.db import Db, rows
from club.engine import family_name, figure_name
from club.errors import NotFound, UserError
from web.db import get_db
from web.errors import error_response, wants_json
from web.i18n import current_lang, t
from web.limits import flag_of, form_data

bp = Blueprint("member", __name__, url_prefix="/m")

SESSION_KEY = "member_pin"
CHART_WIDTH = 360
DAYS_SHOWN = 60
"""Club days listed in the history (newest first); older ones are in the figures."""
PENALTIES_SHOWN = 50
POINT_FAMILIES = ("riichi4", "riichi3")
FAMILY_COLUMNS = ["games", "avg_rank", "total", "average", "top_rate", "last_rate",
                  "penalties", "chombo"]


@bp.after_request
def _private(resp: Response) -> Response:
    resp.headers["Referrer-Policy"] = "no-referrer"
    resp.headers["Cache-Control"] = "no-store"
    return resp


def _no_link_in_log(view: Callable[..., Any]) -> Callable[..., Any]:
    """A bug in ``view`` answered in words as everywhere, logged with the route rather
    than the request's path: here the path is the member's link."""
    @functools.wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        try:
            return view(*args, **kwargs)
        except (UserError, HTTPException):
            raise                           # refusals in words: their own handlers
        except Exception:
            rule = request.url_rule.rule if request.url_rule is not None else bp.url_prefix
            current_app.logger.exception("unexpected error on %s %s", request.method, rule)
            return error_response(500, "internal_error", t("http.500"))
    return wrapped


def _member(token: str) -> dict:
    found = members.member_for_token(get_db(), token)
    if found is None:
        raise NotFound("member.link_unknown", code="member_link_unknown")
    return found


def _shown(value: float | None, family: str) -> float | None:
    # results in thousands of points in point families, as the leaderboard shows them
    if value is None:
        return None
    return value / 1000 if family in POINT_FAMILIES else value


def _dan(db: Db, family: str, standing: dict | None) -> dict | None:
    """Where the member stands on the family's dan ladder and what the next level needs."""
    table = standings.dan_tables(db).get(family)
    if table is None or standing is None or standing.get("dan_level") is None:
        return None
    level = int(standing["dan_level"])
    if level >= len(table.levels):
        return None
    lang = current_lang()
    rung = table.levels[level]
    top = rung.promote is None or level + 1 >= len(table.levels)
    return {"name": table.name(level, lang), "points": standing["dan_points"],
            "promote": None if top else rung.promote,
            "next": None if top else table.name(level + 1, lang)}


def _round_words(label: str, honba: int | None) -> str:
    """``E2`` and 1 honba -> 東2局1本場 / East 2, 1 honba (as the tablet words a round)."""
    if len(label) < 2 or label[0] not in "ESWN":
        return label
    out = t("tablet.round_label", wind=t(f"member.wind.{label[0]}"), n=label[1:])
    return out + (t("tablet.honba_label", n=honba) if honba else "")


def _penalties(db: Db, player_id: int) -> list[dict]:
    """The member's penalties and chombo in finished games, each with its game and hand
    (newest first), read from the games' logs as they stand after corrections."""
    found = rows(db, "SELECT game_id, seat, family, club_day FROM stats_lines "
                     "WHERE player_id = ? AND (penalties > 0 OR chombo > 0) "
                     "ORDER BY club_day DESC, ended_at DESC, game_id DESC LIMIT ?",
                 [player_id, PENALTIES_SHOWN])
    out = []
    for line in found:
        game = gamelog.get_game(db, line["game_id"])
        played = gamelog.played(db, game)
        hands = played.result.get("hands") or []
        # the replay's hands follow the game's events after its start, one each
        entries = [e for e in played.effective if e["event"].get("event") != "start"]
        for i, item in enumerate(entries):
            event = item["event"]
            kind = event.get("event")
            if kind not in ("chombo", "penalty") or event.get("seat") != line["seat"]:
                continue
            hand = hands[i] if i < len(hands) else {}
            label = _round_words(str(hand.get("round") or ""), hand.get("honba"))
            what = (t("member.chombo") if kind == "chombo" else
                    t("member.penalty", kind=t(f"staff.penalty.{event.get('kind')}"),
                      points=f"{event['points']:,}" if event.get("points") else ""))
            out.append({"game_id": line["game_id"], "day": line["club_day"],
                        "family": line["family"], "hand_no": i + 1, "round": label,
                        "what": what.strip()})
    return out


def page_data(db: Db, member: dict, family: str | None, day: str | None) -> dict:
    """Everything the member's page shows, from the same stores the leaderboard's player
    page reads (``stats_store``, ``rating_store``, ``standings``)."""
    pid = member["id"]
    cfg = stats_store.settings(db)
    day = day or stats_store.today(cfg)
    days = rows(db, "SELECT * FROM stats_days WHERE player_id = ? ORDER BY family, club_day",
                [pid])
    by_family: dict[str, list[dict]] = {}
    for r in days:
        by_family.setdefault(r["family"], []).append(r)
    families = [f for f in engine.FAMILIES if f in by_family]
    if family is not None and family not in families:
        stats_store.check_family(family)  # an unknown name is refused in words
    family = family or (families[0] if families else None)
    figures = [{"family": f, **engine.figures(engine.combine(by_family[f]))}
               for f in families]
    history = sorted(days, key=lambda r: (r["club_day"], r["family"]), reverse=True)
    history = [{"day": r["club_day"], "family": r["family"], "games": r["games"],
                "average_rank": r["rank_sum"] / r["games"] if r["games"] else None,
                "total": _shown(r["total"], r["family"])} for r in history]
    curve, standing = [], None
    if family in families:
        curve = rating_store.history(db, pid, family)
        standing = rating_store.current(db, family, [pid]).get(pid)
    account = daily_report.accounts(db, day, [pid])
    return {
        "member": member, "family": family, "families": families, "figures": figures,
        "columns": FAMILY_COLUMNS,
        "history": history[:DAYS_SHOWN], "more_days": max(0, len(history) - DAYS_SHOWN),
        "rating": standing, "dan": _dan(db, family, standing) if family else None,
        "rating_svg": charts.rating_chart(
            [h["r_after"] for h in curve], t("lb.rating_chart"), start=rating_store.INITIAL_R,
            width=CHART_WIDTH, moves=[h["dan_moved"] for h in curve]) if curve else "",
        "penalties": _penalties(db, pid), "day": day, "today": stats_store.today(cfg),
        "account": account[0] if account else None,
        "card": report_card.build(db, pid, day=day, lang=current_lang()),
    }


@bp.get("/<token>")
@_no_link_in_log
def page(token: str) -> ResponseReturnValue:
    """The member's own page."""
    db = get_db()
    member = _member(token)
    day = request.args.get("day") or None
    if day is not None:
        day = stats_store.user_day(day).isoformat()
    data = page_data(db, member, request.args.get("family") or None, day)

    cfg = line_link.settings(current_app.config)
    linked = line_link.linked_user(db, member["id"])
    line = {"linked": bool(linked), "friend_url": line_link.friend_url(cfg),
            "code": None if linked else line_link.code_for(db, member["id"])}
    return render_template("member/page.html", token=token, family_name=family_name,
                           figure_name=figure_name, line=line, **data)


# ----------------------------------------------------------------------------- settings
def _opened(member: dict) -> bool:
    """Whether this browser gave the member number and PIN of this member, under this
    link, within :data:`members.PIN_SESSION_S` seconds."""
    held = session.get(SESSION_KEY)
    return (isinstance(held, dict) and held.get("id") == member["id"]
            and held.get("link") == member["link_issued_at"]
            and held.get("pin") == member["pin_set_at"]
            and float(held.get("until") or 0) > time.time())


def _settings_page(token: str, member: dict, status: int = 200, error: str | None = None,
                   field: str | None = None, typed: dict | None = None) -> tuple[str, int]:
    prof = members.profile(get_db(), member["id"]) or {}
    db = get_db()
    line_code = None if prof.get("line_user_id") or not _opened(member) \
        else line_link.code_for(db, member["id"])
    return render_template("member/settings.html", token=token, member=member,
                           line_code=line_code,
                           opened=_opened(member), prof=prof, optins=members.OPTINS,
                           guarded=members.guarded(db, member["id"]),
                           channel=(members.code_channel(db, member["id"]) or (None,))[0],
                           error=error, field=field, typed=typed or {}), status


@bp.get("/<token>/settings")
@_no_link_in_log
def settings(token: str) -> ResponseReturnValue:
    """The PIN form, or (once the PIN is given) the member's contacts and opt-ins."""
    member = _member(token)
    if wants_json():
        if not _opened(member):
            raise UserError("member.pin_first", status=401, code="member_pin_required")
        prof = members.profile(get_db(), member["id"]) or {}
        return jsonify({"ok": True, "email": prof.get("email"),
                        "email_confirmed": bool(prof.get("email_confirmed_at")),
                        "line_linked": bool(prof.get("line_user_id")),
                        **{k: bool(prof.get(k)) for k in members.OPTINS}})
    return _settings_page(token, member)


@bp.post("/<token>/settings/pin")
@_no_link_in_log
def settings_pin(token: str) -> ResponseReturnValue:
    """Open the settings with the member number and PIN (throttled; wrong tries lock)."""
    db = get_db()
    member = _member(token)
    data = form_data()
    try:
        members.check_pin(db, member, data.get("member_no"), data.get("pin"),
                          request.remote_addr or "?", code=data.get("code"))
    except UserError as e:
        return _refused(token, member, e)
    session[SESSION_KEY] = {"id": member["id"], "link": member["link_issued_at"],
                            "pin": member["pin_set_at"],
                            "until": time.time() + members.PIN_SESSION_S}
    return _done(token, [], minutes=members.PIN_SESSION_S // 60)


def _done(token: str, words: list[str], **body: Any) -> ResponseReturnValue:
    """A settings form done: JSON ``{"ok": true, **body}``, else ``words`` shown on the
    settings page it goes back to."""
    if wants_json():
        return jsonify({"ok": True, **body})
    for said in words:
        flash(said, "ok")
    return redirect(url_for("member.settings", token=token), code=303)


def _refused(token: str, member: dict, e: UserError) -> ResponseReturnValue:
    """A refusal on the settings' forms: JSON as everywhere, else the page in words, with
    ``Retry-After`` when there is a wait."""
    if wants_json():
        raise e
    page, status = _settings_page(token, member, e.status, e.message)
    wait = (e.details or {}).get("retry_after")
    return page, status, ({"Retry-After": str(wait)} if wait else {})


@bp.post("/<token>/settings/code")
@_no_link_in_log
def settings_code(token: str) -> ResponseReturnValue:
    """Send a one-time code to the member's LINE or confirmed e-mail (a guarded link
    opens only with it)."""
    member = _member(token)
    try:
        channel = members.send_code(get_db(), member["id"])
    except UserError as e:
        return _refused(token, member, e)
    return _done(token, [t("member.code_sent", channel=t(f"notify.channel.{channel}"))],
                 channel=channel)


@bp.post("/<token>/settings/close")
@_no_link_in_log
def settings_close(token: str) -> ResponseReturnValue:
    """Close the settings on this device (a shared phone, a friend's tablet)."""
    _member(token)
    session.pop(SESSION_KEY, None)
    return _done(token, [t("member.closed")])


def _behind_pin(view: Callable[[str, dict], ResponseReturnValue]) -> Callable[..., Any]:
    """A settings form the member's PIN must have opened: ``view(token, member)``; on a
    closed one, a 401 (JSON) or the PIN form again with the words."""

    @functools.wraps(view)
    def opened_only(token: str) -> ResponseReturnValue:
        member = _member(token)
        if not _opened(member):
            if wants_json():
                raise UserError("member.pin_first", status=401, code="member_pin_required")
            return _settings_page(token, member, 401, t("member.pin_first"))
        return view(token, member)

    return opened_only


@bp.post("/<token>/settings/email")
@_no_link_in_log
@_behind_pin
def settings_email(token: str, member: dict) -> ResponseReturnValue:
    """Confirm the member's e-mail address with the code sent to it (after the PIN)."""
    try:
        email = members.confirm_email(get_db(), member["id"], form_data().get("email_code"))
    except UserError as e:
        return _refused(token, member, e)
    audit.audit(get_db(), f"member:{member['id']}", "member.settings",
                f"player:{member['id']}", details={"changed": "email_confirmed"})
    return _done(token, [t("member.email_done", email=email)], confirmed=True)


@bp.post("/<token>/settings/email/resend")
@_no_link_in_log
@_behind_pin
def settings_email_resend(token: str, member: dict) -> ResponseReturnValue:
    """Send a new code to the member's unconfirmed address (after the PIN)."""
    try:
        email = members.resend_email_code(get_db(), member["id"])
    except UserError as e:
        return _refused(token, member, e)
    return _done(token, [t("member.email_code_sent", email=email)])


@bp.post("/<token>/settings")
@_no_link_in_log
@_behind_pin
def settings_save(token: str, member: dict) -> ResponseReturnValue:
    """Keep the member's e-mail and opt-ins, or unlink their LINE (after the PIN only).
    A LINE user id is never typed: the club's account links it by the member's code."""
    db = get_db()
    data = form_data()
    optins = {k: flag_of(data, k) for k in members.OPTINS}
    try:
        if data.get("email") is not None and not isinstance(data.get("email"), str):
            raise UserError("field.not_text", status=422, code="invalid_field",
                            details={"field": "email"}, field="email")
        if data.get("line_user_id") not in (None, ""):
            raise UserError("member.line_by_code", status=422, code="line_by_code",
                            details={"field": "line_user_id"})
        before = members.profile(db, member["id"]) or {}
        prof = members.save_settings(db, member["id"], email=data.get("email"), optins=optins,
                                     unlink_line=flag_of(data, "line_unlink"))
    except UserError as e:
        if wants_json():
            raise
        return _settings_page(token, member, e.status, e.message,
                              (e.details or {}).get("field"), data)
    changed = sorted(k for k in ("email", "line_user_id", *members.OPTINS)
                     if before.get(k) != prof.get(k))
    audit.audit(db, f"member:{member['id']}", "member.settings", f"player:{member['id']}",
                details={"changed": ", ".join(changed)})
    code_sent = "email" in changed and prof.get("email")
    return _done(token, [t("member.saved")]
                 + ([t("member.email_code_sent", email=prof["email"])] if code_sent else []),
                 changed=changed, email_confirmed=bool(prof.get("email_confirmed_at")))
