"""The head office's pages (blueprint ``headoffice``), read-only over what the branches
sent to PostgreSQL (``python -m headoffice serve --db postgresql://…``).

Japanese first, ``?lang=en`` for English; ``format=json`` (or ``Accept:
application/json``) gives the same data as JSON.

* ``/``: the branches and when each last synced;
* ``/leaderboard?family=riichi4&period=month&day=YYYY-MM-DD&min_games=1&order=total``
  (``branch=ID`` for one branch's games, ``page=N`` for the page of rows shown): the
  chain leaderboard, R across branches, as of the newest sync the refresher took in;
* ``/report?day=YYYY-MM-DD`` (``branch=ID`` for one branch): the 日報, the box's own
  sections, with occupancy hour by hour (and per branch for the chain);
* ``/members/<member>``: a member's records at every branch and games across them.

:func:`create_app` builds the app the command serves: the same error pages, words,
security headers and stylesheets as the box, one PostgreSQL connection per thread.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

from flask import (
    Blueprint,
    Flask,
    current_app,
    g,
    jsonify,
    render_template,
    render_template_string,
    request,
    url_for,
)
from flask.typing import ResponseReturnValue
from markupsafe import Markup

from chain import branches, ho_questions, ho_report, pg_schema
from club import clubtime, daily_report, engine, stats_store
from club.engine import family_name, figure_name
from headoffice import signin
from headoffice.connection import pg, this_thread_connection
from web import errors, i18n, security
from web.i18n import current_lang, t
from web.limits import query_number

bp = Blueprint("headoffice", __name__)

PAGE_ROWS = 100
"""Rows of a leaderboard page (``page=N``; the JSON answer carries every row)."""
POINT_FAMILIES = ("riichi4", "riichi3")
RESULT_FIGURES = {"total": "{:+.1f}", "average": "{:+.2f}", "best": "{:+.1f}"}
"""Settled results in point families are read in thousands (+59.0), as on the box."""

@bp.before_request
def _snapshot() -> None:
    """Every page reads one snapshot: a REPEATABLE READ, READ ONLY transaction opened
    before the page reads anything and closed after it (a batch committing meanwhile is
    either wholly in the page or not at all). Only reading requests: a form that writes
    runs outside it."""
    if request.method in ("GET", "HEAD"):
        pg_schema.begin_snapshot(pg())


@bp.teardown_request
def _end_snapshot(_exc: BaseException | None) -> None:
    conn = this_thread_connection(current_app.config["HEADOFFICE_DB"])
    if conn is not None:
        pg_schema.end_snapshot(conn)


def create_app(url: str, *, secret: str = "", testing: bool = False,
               refresh_every: float = 5.0, today: str | None = None) -> Flask:
    """The head office's web app over the PostgreSQL database at ``url`` (its schema is
    brought up to date first). Its :class:`~chain.ho_questions.Refresher` builds
    the derived tables and standard leaderboards once before the app is returned (the
    first page is never "being prepared"), then every ``refresh_every`` seconds in a
    thread of each serving process, started by its first request: no request waits for
    a rebuild. ``today`` fixes the club day the standard periods end on (benchmarks)."""
    web_root = Path(errors.__file__).resolve().parent  # the box's templates and styles
    app = Flask("web", root_path=str(web_root))
    ho_questions.migrate_url(url)
    if not secret:

        with pg_schema.connect(url) as conn:
            secret = branches.session_key(conn)
    app.config.update(HEADOFFICE_DB=url, SECRET_KEY=secret, TESTING=testing,
                      COOKIE_SECURE=False if testing else None, JSON_AS_ASCII=False)
    security.init_works(app)
    app.register_blueprint(bp)
    # the 日報 body is the box's template: it writes money as the box does
    app.jinja_env.globals["yen"] = daily_report.yen
    signin.init_app(app)
    app.after_request(_no_store)
    refresher = ho_questions.Refresher(
        url, every=refresh_every, today=today,
        prepare=lambda held: prerender_reports(app, held),
        prepare_boards=lambda built: prerender_boards(app, built))
    refresher.tick()
    refresher.stop()  # its connection closed: none may cross a fork
    app.extensions["headoffice_refresher"] = refresher
    return app


def _no_store(resp: Any) -> Any:
    # every page of the head office shows money or members: never kept by a cache
    resp.headers["Cache-Control"] = "no-store"
    return resp


def refresher() -> ho_questions.Refresher:
    """The app's refresher, its thread running in this process."""
    r = current_app.extensions["headoffice_refresher"]
    r.start()
    return r


# ----------------------------------------------------------------------------- words
def fmt_figure(fid: str, value: Any, family: str | None = None) -> str:
    """A figure as the box's leaderboard writes it."""
    if family in POINT_FAMILIES and fid in RESULT_FIGURES and value is not None:
        return RESULT_FIGURES[fid].format(value / 1000)
    return engine.format_figure(fid, value)


def title_in(title: str) -> str:
    """A bilingual rule set title (``日本語 / English``) in the page's language."""
    ja, sep, en = str(title).partition(" / ")
    return (en if current_lang() == "en" else ja).strip() if sep else str(title)


def fmt_rating(value: Any) -> str:
    """An R as players read it: 1,623 (— for no rated game)."""
    return "—" if value is None else f"{value:,.0f}"


def _columns(family: str) -> list[str]:
    skip = {"riichi3": {"fourths"}, "mcr": {"bust_rate", "riichi_rate"}}.get(family, set())
    return [f for f in engine.FIGURE_IDS if f not in skip]


def branch_names() -> dict[str, str]:
    """Every synced branch by id with the name it shows, read once per request."""
    if "ho_branch_names" not in g:
        g.ho_branch_names = ho_report.branch_names(pg())
    return g.ho_branch_names


def branch_name(branch: str) -> str:
    """A branch by the name the chain gave it (its id only if it has none)."""
    return branch_names().get(branch) or branch


@bp.app_context_processor
def _words() -> dict:
    return {"branch_name": branch_name, "family_name": family_name, "figure_name": figure_name,
            "fmt_figure": fmt_figure, "fmt_rating": fmt_rating,
            "family_words": lambda f: family_name(f) if f in engine.FAMILIES else f,
            "rules_name": lambda rid: rid or "—"}


def _wants_json() -> bool:
    return request.args.get("format") == "json" or (
        request.accept_mimetypes.best_match(["text/html", "application/json"])
        == "application/json")


def _int_arg(name: str, default: int, low: int = 1, high: int = 100_000) -> int:
    found = query_number(name, default, low, high)
    return default if found is None else found


def _chain_settings(conn: Any) -> dict:
    """The club-day settings the chain's pages read days in (its first branch's)."""
    return ho_questions.chain_settings(conn)


def as_of(built: ho_questions.Built | None, cfg: dict) -> str:
    """As of when the page's figures are, in words: the newest sync they hold, in the
    club's time zone."""
    if built is None or built.synced_at is None:
        return t("ho.as_of_none")
    return t("ho.as_of", when=clubtime.clock(built.synced_at, cfg["timezone"], day=True))


def _branch_arg(conn: Any) -> str | None:
    branch = request.args.get("branch") or None
    return ho_questions.check_branch(conn, branch) if branch else None


# ----------------------------------------------------------------------------- pages
@bp.get("/")
def index() -> ResponseReturnValue:
    conn = pg()
    rows = ho_questions.branches(conn)
    if _wants_json():
        return jsonify({"branches": rows})
    return render_template("headoffice/index.html", branches=rows)


@bp.get("/leaderboard")
def leaderboard() -> ResponseReturnValue:
    conn = pg()
    ref = refresher()
    built = ref.built
    cfg = built.settings if built else _chain_settings(conn)
    played = built.families if built else ho_questions.families_played(conn)
    family = stats_store.check_family(request.args.get("family") or (played or ["riichi4"])[0])
    period = request.args.get("period") or "month"
    day = request.args.get("day") or stats_store.today(cfg)
    first, last = stats_store.period_range(period, day, request.args.get("start"),
                                           request.args.get("end"))
    order = request.args.get("order") or "total"
    min_games = _int_arg("min_games", 1)
    branch = _branch_arg(conn)
    rows = ref.leaderboard(conn, family, first, last, min_games=min_games, order=order,
                           branch=branch)
    q = {"family": family, "period": period, "day": day, "first_day": first, "last_day": last,
         "min_games": min_games, "order": order, "branch": branch, "rows": rows,
         "synced_at": (built.synced_at.isoformat() if built and built.synced_at else None)}
    # thousands of members: the page shows one page of rows (the JSON has them all)
    pages = max(1, -(-len(rows) // PAGE_ROWS))
    page = _int_arg("page", 1, high=pages)
    if _wants_json():
        return jsonify(q)
    shown = rows[(page - 1) * PAGE_ROWS:page * PAGE_ROWS]
    args: dict[str, Any] = {k: v for k, v in request.args.items() if k != "page"}
    paging = {"page": page, "pages": pages, "total": len(rows),
              "first": (page - 1) * PAGE_ROWS + 1, "last": (page - 1) * PAGE_ROWS + len(shown),
              "prev": url_for("headoffice.leaderboard", **args, page=page - 1)
              if page > 1 else None,
              "next": url_for("headoffice.leaderboard", **args, page=page + 1)
              if page < pages else None}
    names = branch_names()
    question = (family, first, last, min_games, order, branch or "")
    # a board built ahead keeps its rendered pages while the branches keep their names
    keeper = built if built is not None and built.boards.get(question) is rows \
        and built.names == names else None
    body = keeper.bodies.get((question, page, current_lang())) if keeper else None
    if body is None and shown:
        body = board_table(shown, family, names)
        if keeper is not None:
            keeper.keep_body((question, page, current_lang()), body)
    return render_template("headoffice/board.html", q={**q, "rows": shown}, paging=paging,
                           table_html=Markup(body or ""), as_of=as_of(built, cfg),
                           branches=names, periods=stats_store.PERIODS,
                           orders=stats_store.ORDERS, all_families=list(engine.FAMILIES))


def board_table(rows: list[dict], family: str, names: dict[str, str]) -> str:
    """One page of a leaderboard's rows as its table (the request's language)."""
    return render_template("headoffice/_board_rows.html", rows=rows, family=family,
                           columns=_columns(family),
                           branch_name=lambda b: names.get(b) or b)


def prerender_boards(app: Flask, built: ho_questions.Built) -> None:
    """The first page of every board built ahead, rendered in each language beside it: a
    request for it only fills in the page around the table."""
    for lang in i18n.LANGS:
        with app.test_request_context(f"/leaderboard?lang={lang}"):
            for question, rows in built.boards.items():
                if rows:
                    built.keep_body((question, 1, lang),
                                    board_table(rows[:PAGE_ROWS], question[0], built.names))


@bp.get("/report")
def report() -> ResponseReturnValue:
    conn = pg()
    day = request.args.get("day") or stats_store.today(_chain_settings(conn))
    stats_store.user_day(day)
    branch = _branch_arg(conn)
    ref = refresher()
    held = ref.reports
    if held is not None and held.today == day and branch in held.pages:
        if _wants_json():  # built ahead, its JSON made by the refresher too
            return current_app.response_class(held.json[branch], mimetype="application/json")
        return _report_answer(conn, held.pages[branch], day, branch,
                              held.bodies.get((branch, current_lang())))
    return _report_answer(conn, ref.report_page(conn, day, branch), day, branch)


def _report_words(rep: dict) -> dict:
    """What the report's sections are rendered with: the report (its unfinished games'
    clock in the club's time zone) and how rule sets and tables are named."""
    rep = {**rep, "unfinished": [
        {**game, "clock": clubtime.clock(game["started_at"], rep["timezone"])}
        for game in rep["unfinished"]]}
    labels = {r["key"]: r["label"] for r in rep["tables"]}
    titles = rep["rule_titles"]
    return {"rep": rep, "rules_name": lambda rid: title_in(titles.get(rid) or rid or "—"),
            "table_name": lambda tid: labels.get(tid) or tid}


REPORT_BODY = '{% include "staff/_report_body.html" %}'


def prerender_reports(app: Flask, held: ho_questions.BuiltReports) -> None:
    """The chain's 日報 sections (the box's, every account) rendered ahead in each
    language, beside the pages the refresher built: the heaviest part of the page."""
    if None not in held.pages:
        return
    for lang in i18n.LANGS:
        with app.test_request_context(f"/report?lang={lang}"):
            held.bodies[(None, lang)] = render_template_string(
                REPORT_BODY, **_report_words(held.pages[None]))


def _report_answer(conn: Any, rep: dict, day: str, branch: str | None,
                   body: str | None = None) -> Any:
    if _wants_json():
        return jsonify(rep)
    d = stats_store.parse_day(day)
    return current_app.make_response(render_template(
        "headoffice/report.html", day=day, branch=branch, branches=ho_questions.branches(conn),
        body_html=Markup(body) if body else None,
        prev_day=(d - timedelta(days=1)).isoformat(),
        next_day=(d + timedelta(days=1)).isoformat(), **_report_words(rep)))


@bp.get("/members/<member>")
def member(member: str) -> ResponseReturnValue:
    conn = pg()
    hist = refresher().member_history(conn, member[:64])
    if _wants_json():
        return jsonify(hist)
    return render_template("headoffice/member.html", h=hist, t=t)
