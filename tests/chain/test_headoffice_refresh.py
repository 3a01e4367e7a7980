"""The head office's background refresh over real PostgreSQL: a sync is brought in by
the refresher's thread (no request rebuilds), the page says as of when, two refreshers
never rebuild the derived tables at once, and an odd period is still worked out."""

from __future__ import annotations

import json
import threading
import time
from zoneinfo import ZoneInfo

import pytest

from chain import ho_questions, ho_report, pg_schema, sync
from headoffice import create_app as headoffice_app
from tests.chain.test_headoffice import chain, ho, play  # noqa: F401,F811 (fixtures)
from tests.support.headoffice import signed_in


def _app(url: str, every: float = 0.2):
    app = headoffice_app(url, testing=True, refresh_every=every)
    return app, app.extensions["headoffice_refresher"]


def _games(rows: list[dict], member: str) -> int:
    return next(r["games"] for r in rows if r["member"] == member)


def test_headoffice_refresher_brings_a_sync_in_without_a_request_paying(chain, monkeypatch):  # noqa: F811
    app, ref = _app(chain["url"])
    try:
        c = signed_in(app)
        member = chain["ids"][1]
        before = c.get("/leaderboard?period=all&format=json").get_json()
        first = ref.built
        assert first is not None and before["synced_at"]
        path, db = chain["boxes"]["ueno"]
        play(db, [1, 2, 3, 4], 0)
        sync.run(path, chain["url"], "ueno")
        deadline = time.monotonic() + 120
        while ref.built is first and time.monotonic() < deadline:
            time.sleep(0.1)  # no request meanwhile: the thread alone does the work
        assert ref.built is not first, ref.last_error
        # from here on a request may not rebuild anything
        monkeypatch.setattr(ho_questions, "refresh", lambda *a, **k: pytest.fail("rebuilt"))
        after = c.get("/leaderboard?period=all&format=json").get_json()
        assert _games(after["rows"], member) == _games(before["rows"], member) + 1
        assert after["synced_at"] > before["synced_at"]
        month = c.get("/leaderboard?format=json").get_json()
        assert _games(month["rows"], member) == _games(after["rows"], member)
        assert c.get(f"/members/{member}").status_code == 200
    finally:
        ref.stop()


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_headoffice_leaderboard_page_says_as_of_when(chain, lang):  # noqa: F811
    app, ref = _app(chain["url"])
    try:
        page = signed_in(app).get(f"/leaderboard?lang={lang}").get_data(as_text=True)
    finally:
        ref.stop()
    at = max(b["last_sync_at"] for b in ho_questions.branches(chain["conn"]))
    when = at.astimezone(ZoneInfo("Asia/Tokyo")).strftime("%Y-%m-%d %H:%M")
    words = {"ja": f"{when} までの同期分を集計しています",
             "en": f"Figures as of the sync at {when}"}[lang]
    assert words in page


def _derived_mark(url: str) -> str | None:
    with pg_schema.connect(url) as conn:
        row = conn.execute(f"SELECT mark FROM {ho_questions.S}.ho_derived "
                           "WHERE what = 'derived'").fetchone()
    return row[0] if row else None


def test_headoffice_two_refreshers_do_not_rebuild_at_once(chain):  # noqa: F811
    url = chain["url"]
    path, db = chain["boxes"]["shibuya"]
    play(db, [2, 3, 4, 5], 1)
    sync.run(path, url, "shibuya")
    stale = _derived_mark(url)
    one, two = ho_questions.Refresher(url), ho_questions.Refresher(url)
    try:
        # another process rebuilding: this one does not wait, nor rebuild beside it
        with pg_schema.connect(url) as holder:
            holder.autocommit = True
            holder.execute("SELECT pg_advisory_lock(hashtext(%s))", [ho_questions.REFRESH_LOCK])
            assert one.tick() == "busy"
            assert one.rebuilds == 0 and one.built is None
            assert _derived_mark(url) == stale
        # both at once: one rebuilds, the other builds its boards over the result
        results: list[str] = []
        start = threading.Barrier(2)

        def run(r: ho_questions.Refresher) -> None:
            start.wait()
            deadline = time.monotonic() + 120
            while (res := r.tick()) == "busy" and time.monotonic() < deadline:
                time.sleep(0.05)
            results.append(res)

        threads = [threading.Thread(target=run, args=(r,)) for r in (one, two)]
        for th in threads:
            th.start()
        for th in threads:
            th.join(timeout=180)
        assert results == ["built", "built"]
        assert one.rebuilds + two.rebuilds == 1
        assert _derived_mark(url) != stale
        assert one.built.mark == two.built.mark
        assert one.tick() == "same"
    finally:
        one.stop()
        two.stop()


def test_headoffice_odd_period_still_answers(chain):  # noqa: F811
    app, ref = _app(chain["url"], every=60)
    try:
        c = signed_in(app)
        conn = chain["conn"]
        want = ho_questions.leaderboard(conn, "riichi4", "2000-01-01", "2999-12-31",
                                      min_games=3)
        got = c.get("/leaderboard?period=range&start=2000-01-01&end=2999-12-31"
                    "&min_games=3&format=json").get_json()
        assert got["first_day"] == "2000-01-01" and got["rows"] == want
        everyone = ho_questions.leaderboard(conn, "riichi4", "2000-01-01", "2999-12-31")
        assert [r["rank"] for r in got["rows"]] != [r["rank"] for r in everyone]
        branch = c.get("/leaderboard?period=all&branch=ueno&format=json").get_json()
        assert branch["rows"] and all(r["games"] <= 3 for r in branch["rows"])
        bad = c.get("/leaderboard?period=range&start=2000-13-01",
                    headers={"Accept": "application/json"})
        assert bad.status_code == 400 and bad.get_json()["error"]["message"]
    finally:
        ref.stop()


def test_headoffice_leaderboard_page_shows_one_page_of_rows(chain, monkeypatch):  # noqa: F811
    import headoffice.views as pages

    monkeypatch.setattr(pages, "PAGE_ROWS", 2)
    app, ref = _app(chain["url"], every=60)
    try:
        c = signed_in(app)
        every = c.get("/leaderboard?period=all&format=json").get_json()["rows"]
        assert len(every) == 11  # 3 members with chain ids + 8 branch-only records
        first = c.get("/leaderboard?period=all&lang=en").get_data(as_text=True)
        last = c.get("/leaderboard?period=all&lang=en&page=6").get_data(as_text=True)
        assert first.count("<tr data-member=") == 2 and "1–2 of 11" in first
        assert "page=2" in first and "page=5" in last and "page=7" not in last
        assert last.count("<tr data-member=") == 1 and every[10]["member"] in last
        ja = c.get("/leaderboard?period=all&page=2&lang=ja").get_data(as_text=True)
        assert "11 人中 3–4 人目" in ja
        bad = c.get("/leaderboard?period=all&page=7", headers={"Accept": "application/json"})
        assert bad.status_code == 400 and bad.get_json()["error"]["message"]
    finally:
        ref.stop()


def test_headoffice_todays_report_is_built_ahead_and_equals_one_read_now(chain, monkeypatch):  # noqa: F811
    app, ref = _app(chain["url"])
    try:
        c = signed_in(app)
        day = ref.reports.today
        held = ref.reports
        assert set(held.pages) == {None, "ikebukuro", "shibuya", "ueno"}
        with pg_schema.connect(chain["url"]) as pg:
            pg_schema.begin_snapshot(pg)
            now = ho_report.report_page(pg, day)
            one = ho_report.report_page(pg, day, "ueno")
            # each branch row of the chain's page is that branch's own report
            alone = {b: ho_report.report(pg, day, b) for b in ("ikebukuro", "shibuya", "ueno")}
        assert [(r["branch"], r["games"], r["fees"], r["occupancy"], r["by_hour"])
                for r in now["branches"]] == \
            [(b, a["total"]["games"], a["total"]["fees"], a["total"]["occupancy"],
              a["occupancy_by_hour"]) for b, a in alone.items()]
        assert [r["games"] for r in now["branches"]] == [3, 3, 2]
        # the held page is the report read now, sums and branch rows alike
        page = c.get(f"/report?day={day}&format=json").get_json()
        with app.app_context():
            assert page == json.loads(app.json.dumps(now))
        assert page["total"]["games"] == 8 == sum(b["games"] for b in page["branches"])
        assert c.get(f"/report?day={day}&branch=ueno&format=json").get_json()["total"] == \
            one["total"]
        # the chain page's sections were rendered ahead in each language, and are the page's
        for lang, word in (("ja", "個人精算"), ("en", "Summary")):
            body = held.bodies[(None, lang)]
            assert word in body
            assert body in c.get(f"/report?day={day}&lang={lang}").get_data(as_text=True)
        # a sync moves a mark: the thread builds the new day's pages, no request does
        path, db = chain["boxes"]["ueno"]
        play(db, [1, 2, 3, 4], 0)
        sync.run(path, chain["url"], "ueno")
        deadline = time.monotonic() + 120
        while ref.reports is held and time.monotonic() < deadline:
            time.sleep(0.1)
        assert ref.reports is not held, ref.last_error
        monkeypatch.setattr(ho_report, "report_page", lambda *a, **k: pytest.fail("on request"))
        page = c.get(f"/report?day={day}&format=json").get_json()
        assert page["total"]["games"] == 9 == sum(b["games"] for b in page["branches"])
        assert c.get(f"/report?day={day}&lang=en").status_code == 200
    finally:
        ref.stop()


def test_headoffice_a_branch_setting_it_cannot_read_leaves_the_boards_built(chain):  # noqa: F811
    """A branch whose synced time zone the head office cannot read: today's 日報 is not
    built ahead (said in last_error), the leaderboards still are, and the 日報 page
    answers in words, never a 500."""
    with pg_schema.connect(chain["url"]) as pg:
        pg.execute("INSERT INTO chain.settings (branch, key, value) VALUES "
                   "('shibuya', 'timezone', 'Mars/Olympus') ON CONFLICT (branch, key) "
                   "DO UPDATE SET value = excluded.value")
        pg.execute("UPDATE chain.sync_marks SET token = 'moved' WHERE branch = 'ueno'")
    app, ref = _app(chain["url"], every=3600)
    try:
        assert ref.built is not None and ref.reports is None
        assert "Mars/Olympus" in ref.last_error
        c = signed_in(app)
        assert c.get("/leaderboard?period=all").status_code == 200
        assert c.get("/report?branch=ueno&format=json").status_code == 200
        r = c.get("/report", headers={"Accept": "application/json"})
        assert r.status_code == 400 and "Mars/Olympus" in r.get_json()["error"]["message"]
    finally:
        ref.stop()


def _table(page: str) -> str:
    return page[page.index('<div class="lb-scroll">'):page.index("</table></div>")]


def test_headoffice_board_page_is_rendered_ahead_as_it_would_be_now(chain, monkeypatch):  # noqa: F811
    import headoffice.views as pages

    app, ref = _app(chain["url"], every=60)
    try:
        built = ref.built
        # every board with rows has its first page ready in both languages (an empty
        # board's page shows no table: nothing to render)
        filled = [q for q, rows in built.boards.items() if rows]
        assert filled and len(filled) < len(built.boards)  # last month played nothing
        assert set(built.bodies) == {(q, 1, lang) for q in filled for lang in ("ja", "en")}
        c = signed_in(app)
        path = "/leaderboard?period=all&lang=en"
        with monkeypatch.context() as m:  # the request renders no table of its own
            m.setattr(pages, "board_table", lambda *a: pytest.fail("rendered on request"))
            ahead = c.get(path).get_data(as_text=True)
        built.bodies.clear()
        now = c.get(path).get_data(as_text=True)
        assert _table(ahead) == _table(now) and now.count("<tr data-member=") == 11
        assert len(built.bodies) == 1  # the page rendered on request is kept for the next
        # a branch renamed since the build: the page shows the new name at once
        chain["conn"].execute("UPDATE chain.branches SET name = %s WHERE branch = 'ueno'",
                              ["上野本店"])
        renamed = c.get(path).get_data(as_text=True)
        assert "上野本店" in _table(renamed) and "上野本店" not in _table(ahead)
        assert '<option value="ueno">上野本店</option>' in renamed  # the branch picker too
        empty = c.get("/leaderboard?period=day&day=2000-01-01&lang=en").get_data(as_text=True)
        assert 'data-testid="leaderboard-empty"' in empty and "<table" not in empty
        assert ref.built is built  # no sync came in: the same boards, another name
    finally:
        ref.stop()


def test_headoffice_refresher_rests_after_a_build(chain, monkeypatch):  # noqa: F811
    # the thread takes at most a third of a core from the pages: a look that used the
    # processor for s seconds is followed by a rest of REST_FACTOR × s
    ref = ho_questions.Refresher(chain["url"], every=0.01)
    looks: list[tuple[float, float]] = []

    def busy() -> str:
        start = time.monotonic()
        used = time.thread_time()
        while time.thread_time() - used < 0.2:
            pass
        looks.append((start, time.monotonic()))
        return "built"

    monkeypatch.setattr(ref, "tick", busy)
    ref.start()
    try:
        deadline = time.monotonic() + 60
        while len(looks) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        ref.stop()
    assert len(looks) >= 3
    for (_, ended), (began, _) in zip(looks, looks[1:], strict=False):
        assert began - ended >= ho_questions.REST_FACTOR * 0.2 - 0.01
