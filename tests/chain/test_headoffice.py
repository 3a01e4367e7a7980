"""The head office over real PostgreSQL: boxes (real SQLite club files, games played
through the engine) synced into one head office; R across branches, members merged
across branches, a branch's figures equal to the box's own, the pages in both languages,
and a void that leaves with the next sync."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from chain import ho_questions, members, pg_schema, sync
from club import club_tables, corrections, daily_report, engine, games, roster, stats_store
from club.db import connect
from tests.support.headoffice import signed_in
from web import create_app

PLAYERS = ["青木", "伊藤", "上田", "遠藤", "Ota"]


def open_box(folder: Path, name: str):
    """A new club file with two four-player tables and the five members above."""
    path = str(folder / f"{name}.sqlite")
    create_app({"DATABASE": path, "SECRET_KEY": "t", "TESTING": True, "COOKIE_SECURE": False})
    db = connect(path)
    club_tables.save_table(db, "t1", "卓1", "nekohouse-4a")
    club_tables.save_table(db, "t2", "卓2", "nekohouse-4a")
    for p in PLAYERS:
        roster.add_player(db, p)
    return path, db


def play(db, seats: list[int], winner: int, table: str = "t1") -> int:
    """A short finished game: one ron by seat ``winner`` off the next seat, then the end."""
    g = games.start_game(db, table, seats, idempotency_key=uuid.uuid4().hex)
    gid = g["game"]["id"]
    ron = {"event": "win", "winners": [{"seat": winner, "han": 3, "fu": 30}],
           "from": (winner + 1) % 4}
    for seq, ev in enumerate((ron, {"event": "end"}), start=1):
        games.record_event(db, gid, ev, expected_seq=seq, idempotency_key=uuid.uuid4().hex)
    return gid


@pytest.fixture
def ho(headoffice_url: str):
    """The head office database (its own tables too) and a connection to it."""
    ho_questions.migrate_url(headoffice_url)
    conn = pg_schema.connect(headoffice_url)
    yield headoffice_url, conn
    conn.close()


@pytest.fixture
def chain(tmp_path: Path, ho):
    """Three branches whose members 1 and 2 carry one chain id each everywhere, with
    games interleaved in time across the branches, all synced."""
    url, conn = ho
    boxes = {b: open_box(tmp_path, b) for b in ("ikebukuro", "shibuya", "ueno")}
    ids = {p: members.issue(boxes["ikebukuro"][1], p, actor="staff:a") for p in (1, 2)}
    for b in ("shibuya", "ueno"):
        for p, cid in ids.items():
            members.claim(boxes[b][1], p, cid, actor="staff:b")
    order = [("ikebukuro", [1, 2, 3, 4], 0), ("shibuya", [2, 1, 4, 5], 1),
             ("ueno", [1, 3, 2, 5], 2), ("ikebukuro", [5, 1, 2, 3], 3),
             ("shibuya", [1, 2, 3, 4], 2), ("ueno", [2, 1, 5, 4], 0),
             ("ikebukuro", [4, 3, 2, 1], 1), ("shibuya", [3, 2, 1, 5], 3)]
    for b, seats, winner in order:
        play(boxes[b][1], seats, winner)
    for b, (path, _) in boxes.items():
        sync.run(path, url, b)
    yield {"url": url, "conn": conn, "boxes": boxes, "ids": ids}
    for _, db in boxes.values():
        db.conn.close()


def box_games(boxes: dict) -> list[tuple[str, str, int, engine.RatedGame]]:
    """Every box's finished games read straight from the club files, seats keyed by the
    member's chain id (else branch:player): (ended_at, branch, game_id, game)."""
    out = []
    for b, (_, db) in boxes.items():
        seats: dict[int, list] = {}
        ended = {}
        for gid, _seat, pid, rank, at in db.execute(
                "SELECT game_id, seat, player_id, rank, ended_at FROM stats_lines "
                "WHERE family = 'riichi4' ORDER BY game_id, seat"):
            cid = members.chain_id_of(db, pid) or f"{b}:{pid}"
            seats.setdefault(gid, []).append(engine.RatedSeat(cid, rank))
            ended[gid] = at
        for gid, s in seats.items():
            out.append((ended[gid], b, gid,
                        engine.RatedGame(gid, ended[gid], "hanchan", tuple(s))))
    return sorted(out, key=lambda x: x[:3])


def test_headoffice_r_across_branches_equals_one_ladder_over_every_game(chain):
    conn, ids = chain["conn"], chain["ids"]
    one_list = [g for *_, g in box_games(chain["boxes"])]
    assert len(one_list) == 8
    assert ho_questions.rated_games(conn, "riichi4") == one_list
    ladder = engine.Ladder()
    ladder.run(one_list)
    day = stats_store.today(stats_store.DEFAULT_SETTINGS)
    rows = ho_questions.leaderboard(conn, "riichi4", "2000-01-01", "2999-12-31",
                                  order="rating")
    got = {r["member"]: r["rating"] for r in rows}
    assert got == {p: s.rating for p, s in ladder.standings.items()}
    assert got[ids[1]] != engine.INITIAL_R  # member 1 played at every branch
    by_member = {r["member"]: r for r in rows}
    assert by_member[ids[1]]["branches"] == ["ikebukuro", "shibuya", "ueno"]
    assert by_member[ids[1]]["games"] == 8 and by_member[ids[2]]["games"] == 8
    # the derived table stays as it is until a sync changes what it was made from
    assert ho_questions.refresh_ratings(conn) is False
    held = ho_questions.ratings_as_of(conn, "riichi4", [ids[1]], day)
    assert held[ids[1]]["rating"] == ladder.standings[ids[1]].rating


def test_headoffice_branch_leaderboard_and_report_equal_the_boxs_own(chain):
    conn = chain["conn"]
    path, db = chain["boxes"]["shibuya"]
    day = stats_store.today(stats_store.settings(db))
    box_rows = stats_store.leaderboard(db, "riichi4", day, day)
    ho_rows = ho_questions.leaderboard(conn, "riichi4", day, day, branch="shibuya")
    figures = ["rank", "name", *engine.FIGURE_IDS]
    assert [{k: r[k] for k in figures} for r in ho_rows] == \
        [{k: r[k] for k in figures} for r in box_rows]
    box_rep = daily_report.report(db, day)
    ho_rep = ho_questions.report(conn, day, "shibuya")
    for part in ("total", "tables", "rule_sets", "accounts", "account_total", "summary",
                 "opens", "closes", "timezone"):
        assert ho_rep[part] == box_rep[part], part
    assert ho_rep["total"]["games"] == 3
    # the chain's report adds every branch's games and money
    whole = ho_questions.report(conn, day)
    parts = [ho_questions.report(conn, day, b) for b in chain["boxes"]]
    assert whole["total"]["games"] == 8
    assert whole["summary"]["fees"] == sum(p["summary"]["fees"] for p in parts)
    hours = ho_rep["occupancy_by_hour"]
    assert sum(h["games"] for h in hours) <= 3 and all(0 <= h["occupancy"] <= 1 for h in hours)


def test_chain_member_merge_then_history_shows_both_branches(tmp_path, ho):
    url, conn = ho
    (pa, a), (pb, b) = open_box(tmp_path, "kanda"), open_box(tmp_path, "nakano")
    at_a = members.issue(a, 1, actor="staff:a")
    at_b = members.issue(b, 3, actor="staff:b")  # the same person, another id at branch B
    play(a, [1, 2, 3, 4], 0)
    play(b, [3, 1, 2, 4], 1)
    sync.run(pa, url, "kanda")
    sync.run(pb, url, "nakano")
    assert ho_questions.member_history(conn, at_a)["branches"] == ["kanda"]

    proposal = members.propose_merge(b, 3, members.qr_text(at_a))
    assert proposal["records"][0]["name"] == "上田" and len(proposal["records"][0]["games"]) == 1
    members.confirm_merge(b, 3, at_a, check=proposal["check"], actor="staff:b")
    sync.run(pb, url, "nakano")

    hist = ho_questions.member_history(conn, at_a)
    assert hist["branches"] == ["kanda", "nakano"]
    assert [(r["branch"], r["name"]) for r in hist["records"]] == [("kanda", "青木"),
                                                                   ("nakano", "上田")]
    assert [g["branch"] for g in hist["games"]] == ["kanda", "nakano"]
    # the old id now leads to the same member; R runs over both branches' games
    assert ho_questions.member_history(conn, at_b)["member"] == at_a
    assert hist["games"][1]["r_before"] == hist["games"][0]["r_after"]


def test_headoffice_void_on_a_box_leaves_after_the_next_sync(chain):
    conn, url = chain["conn"], chain["url"]
    path, db = chain["boxes"]["ueno"]
    day = stats_store.today(stats_store.settings(db))
    before = ho_questions.report(conn, day, "ueno")["total"]["games"]
    member = chain["ids"][1]

    def games_of(m: str) -> int:
        rows = ho_questions.leaderboard(conn, "riichi4", day, day)
        return next(r["games"] for r in rows if r["member"] == m)

    assert games_of(member) == 8  # worked out, then kept for this synced state
    gid = db.execute("SELECT MAX(id) FROM games WHERE status = 'finished'").fetchone()[0]
    corrections.void_game(db, gid, actor="staff:c", reason="記録ミス")
    assert ho_questions.report(conn, day, "ueno")["total"]["games"] == before  # not yet sent
    assert games_of(member) == 8
    sync.run(path, url, "ueno")
    assert ho_questions.report(conn, day, "ueno")["total"]["games"] == before - 1
    assert games_of(member) == 7
    one_list = [g for *_, g in box_games(chain["boxes"])]
    assert len(one_list) == 7 and ho_questions.rated_games(conn, "riichi4") == one_list
    ladder = engine.Ladder()
    ladder.run(one_list)
    rows = ho_questions.leaderboard(conn, "riichi4", "2000-01-01", "2999-12-31")
    assert {r["member"]: r["rating"] for r in rows} == \
        {p: s.rating for p, s in ladder.standings.items()}


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_headoffice_pages_in_both_languages(chain, lang, request):
    from headoffice import create_app as headoffice_app

    app = headoffice_app(chain["url"], testing=True)
    # the first request starts the refresher's thread: stopped when the test ends
    request.addfinalizer(app.extensions["headoffice_refresher"].stop)
    c = signed_in(app)
    member = chain["ids"][1]
    words = {"ja": ["全店ランキング", "日報", "店舗別", "時間帯別の稼働", "チェーン会員ID"],
             "en": ["Chain leaderboard", "Daily report", "By branch", "Occupancy by hour",
                    "Chain member id"]}[lang]
    other = {"ja": ["Leaderboard", "Daily report", "Branch", "Occupancy"],
             "en": ["全店ランキング", "店舗別", "時間帯別"]}[lang]
    pages = {}
    for url in ("/", "/leaderboard?period=all", "/report", "/report?branch=ueno",
                f"/members/{member}"):
        r = c.get(url + ("&" if "?" in url else "?") + f"lang={lang}")
        assert r.status_code == 200, (url, r.get_data(as_text=True).split("<main>")[-1][:300])
        assert r.headers["Cache-Control"] == "no-store"  # money and members: never cached
        pages[url] = r.get_data(as_text=True)
    text = "".join(pages.values())
    for w in words:
        assert w in text, w
    for w in other:
        assert w not in text, w
    assert "青木" in pages["/leaderboard?period=all"] and "ikebukuro" in pages["/"]
    # rule sets by their title in the page's language, never their id
    title = {"ja": "ねこはうす 四人打ち半荘戦Aルール",
             "en": "Nekohouse four-player hanchan, rule A"}[lang]
    assert title in pages["/report"] and "nekohouse-4a" not in pages["/report"]
    # bad input is answered in words, never a 500
    for url, status in (("/report?branch=nowhere", 404), ("/report?day=2026-13-40", 400),
                        ("/leaderboard?family=go", 400), ("/members/JM-NOSUCHMEMBER", 404),
                        ("/leaderboard?min_games=x", 400)):
        r = c.get(url, headers={"Accept": "application/json"})
        assert r.status_code == status, (url, r.get_json())
        assert r.get_json()["error"]["message"]
    js = c.get("/leaderboard?period=all&format=json").get_json()
    assert {r["member"] for r in js["rows"]} >= set(chain["ids"].values())


def test_headoffice_command_serves_the_pages(ho):
    import subprocess
    import sys
    import urllib.request

    url, conn = ho
    bad = subprocess.run([sys.executable, "-m", "headoffice", "serve", "--db", "club.sqlite"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "postgresql://" in bad.stderr
    import http.cookiejar
    import os
    import re
    import urllib.parse

    from chain import branches

    branches.add_account(conn, "owner", "a long password", "owner", None, "test")
    # plain http on loopback for this test only: the cookie is otherwise Secure
    p = subprocess.Popen([sys.executable, "-m", "headoffice", "serve", "--db", url, "--port", "0"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env={**os.environ, "JANTAKU_COOKIE_SECURE": "0"})
    try:
        line = p.stdout.readline()
        assert "Serving the head office on http://" in line, (line, p.stderr.read())
        base = line.split(" on ", 1)[1].split()[0]
        opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        with opener.open(base + "?lang=en", timeout=30) as r:  # taken to the sign-in form
            form = r.read().decode()
        assert "/signin" in r.url and "Sign in" in form
        token = re.search(r'name="csrf_token" value="([^"]+)"', form).group(1)
        data = urllib.parse.urlencode({"name": "owner", "password": "a long password",
                                       "csrf_token": token}).encode()
        with opener.open(r.url, data=data, timeout=30) as r:
            page = r.read().decode()
        assert "Branches" in page and "No branch has synced yet" in page
    finally:
        p.terminate()
        p.wait(timeout=30)
