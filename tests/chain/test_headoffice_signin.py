# ruff: noqa: F811  (pytest fixtures imported by name)
"""The head office signs people in, over real PostgreSQL: every page refuses a visitor
who has not signed in, owners and area managers see every branch, a branch manager sees
only their own branch's leaderboard and 日報; the sign-in is throttled, CSRF-checked,
its cookie secure, and accounts are made by the operator's command."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from chain import pg_schema
from headoffice import create_app
from tests.chain.test_headoffice import chain, ho  # noqa: F401 (fixtures)
from tests.support.headoffice import signed_in

ROOT = Path(__file__).resolve().parents[2]
BRANCHES = ("ikebukuro", "shibuya", "ueno")


@pytest.fixture
def app(chain, request):
    a = create_app(chain["url"], testing=True)
    request.addfinalizer(a.extensions["headoffice_refresher"].stop)
    return a


def _pages(chain) -> list[str]:
    return ["/", "/leaderboard?period=all", "/report", "/report?branch=ueno",
            f"/members/{chain['ids'][1]}"]


def test_headoffice_signin_every_page_refuses_a_visitor(app, chain) -> None:
    c = app.test_client()
    violations = []
    for url in _pages(chain):
        r = c.get(url)
        if r.status_code != 302 or "/signin" not in r.headers["Location"]:
            violations.append((url, r.status_code))
        j = c.get(url + ("&" if "?" in url else "?") + "format=json")
        if j.status_code != 401 or "rows" in j.get_data(as_text=True):
            violations.append((url, "json", j.status_code))
    assert violations == []


@pytest.mark.parametrize("role", ["owner", "area"])
def test_headoffice_signin_owner_and_area_see_every_branch(app, chain, role) -> None:
    c = signed_in(app, role)
    for url in _pages(chain):
        r = c.get(url)
        assert r.status_code == 200, url
    page = c.get("/").get_data(as_text=True)
    assert all(f'data-branch="{b}"' in page for b in BRANCHES)


def test_headoffice_signin_a_branch_manager_sees_only_their_branch(app, chain) -> None:
    c = signed_in(app, "branch", "ueno")
    cases = {  # url: (status, where it leads)
        "/": (302, "/report?branch=ueno"),
        "/leaderboard?period=all": (302, "branch=ueno"),
        "/leaderboard?period=all&branch=shibuya": (302, "branch=ueno"),
        "/report?branch=shibuya": (302, "branch=ueno"),
        "/report": (302, "branch=ueno"),
        "/report?branch=ueno&format=json": (200, None),
        "/leaderboard?period=all&branch=ueno": (200, None),
        f"/members/{chain['ids'][1]}": (403, None),
        f"/members/{chain['ids'][1]}?format=json": (403, None),
        "/nowhere": (403, None),
    }
    violations = []
    for url, (status, where) in cases.items():
        r = c.get(url)
        if r.status_code != status or (where and where not in r.headers.get("Location", "")):
            violations.append((url, r.status_code, r.headers.get("Location")))
    assert violations == []
    report = c.get("/report?branch=ueno&format=json").get_data(as_text=True)
    assert "shibuya" not in report and "ikebukuro" not in report
    board = c.get("/leaderboard?period=all&branch=ueno&format=json").get_json()
    assert board["rows"]


def test_headoffice_signin_is_throttled_and_csrf_checked(app) -> None:
    from chain import branches
    from chain import pg_schema as ps

    with ps.connect(app.config["HEADOFFICE_DB"]) as pg:
        branches.add_account(pg, "Yamada", "a long password!", "owner", None, "test")
    c = app.test_client()
    c.get("/signin")
    with c.session_transaction() as s:
        token = s["csrf_token"]
    # no CSRF token: refused, whatever the password
    r = c.post("/signin", data={"name": "yamada", "password": "a long password!"})
    assert r.status_code in (400, 403)
    for _ in range(5):
        r = c.post("/signin", data={"name": "yamada", "password": "wrong", "csrf_token": token})
        assert r.status_code == 401
    r = c.post("/signin", data={"name": "yamada", "password": "a long password!",
                                "csrf_token": token})
    assert r.status_code == 429 and "15" in r.get_data(as_text=True)


def test_headoffice_signin_cookie_is_secure_and_signout_ends_it(chain, request) -> None:
    app = create_app(chain["url"], testing=False)
    request.addfinalizer(app.extensions["headoffice_refresher"].stop)
    from chain import branches

    with pg_schema.connect(chain["url"]) as pg:
        branches.add_account(pg, "sato", "another long one", "area", None, "test")
    c = app.test_client()
    r = c.get("/signin", base_url="https://localhost")
    cookie = r.headers["Set-Cookie"]
    assert "Secure" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    with c.session_transaction(base_url="https://localhost") as s:
        token = s["csrf_token"]
    r = c.post("/signin", data={"name": "sato", "password": "another long one",
                                "csrf_token": token}, base_url="https://localhost")
    assert r.status_code == 302
    assert c.get("/", base_url="https://localhost").status_code == 200
    with c.session_transaction(base_url="https://localhost") as s:
        token = s["csrf_token"]
    c.post("/signout", data={"csrf_token": token}, base_url="https://localhost")
    assert c.get("/", base_url="https://localhost").status_code == 302


def test_headoffice_signin_accounts_come_from_the_operators_command(headoffice_url) -> None:
    def admin(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "headoffice", "admin", "--db",
                               headoffice_url, *args], cwd=ROOT, capture_output=True,
                              text=True, input=stdin, timeout=120)

    p = admin("add-account", "owner1", "--role", "owner", stdin="a password of length\n")
    assert p.returncode == 0, p.stderr
    for args, stdin, words in [
        (("add-account", "owner1", "--role", "owner"), "another password!\n", "already"),
        (("add-account", "x", "--role", "owner"), "short\n", "at least 12"),
        (("add-account", "x", "--role", "branch"), "a password of length\n", "branch"),
        (("add-account", "x", "--role", "branch", "--branch", "nowhere"),
         "a password of length\n", "no branch nowhere"),
    ]:
        p = admin(*args, stdin=stdin)
        assert p.returncode == 2 and words in p.stderr and "Traceback" not in p.stderr, args
    with pg_schema.connect(headoffice_url) as pg:
        h = pg.execute("SELECT pw_hash, role FROM chain.ho_accounts").fetchall()
        assert len(h) == 1 and h[0][0].startswith("scrypt:") and h[0][1] == "owner"
        assert pg.execute("SELECT count(*) FROM chain.ho_audit WHERE action = 'add_account'"
                          ).fetchone() == (1,)
