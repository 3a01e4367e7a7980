"""A fuzz of every operation the OpenAPI document describes: no 500 on any route.

Bodies come from the operation's own JSON schema (:func:`from_schema`, Hypothesis
strategies for the part of JSON Schema the document uses) and from arbitrary JSON;
path parameters are any integer (far outside 64 bits too) or any text. Every string
may also be one of :data:`HOSTILE` (lone surrogates, digits that are not ASCII, the
calendar's ends, CR/LF, invisible characters, a 300-character time-zone name), and a
body may be raw JSON text with ``NaN``, ``Infinity`` or numbers past any bound. Each
operation is called by whoever may call it (a paired tablet, a signed-in owner,
anyone), so the fuzz reaches the code behind the access checks; the pages outside the
document get the same hostile queries. Every route is in the document or in
:data:`PAGES` with the reason it is not. Derandomized and bounded, so it runs the same
in CI every time and takes well under a minute.

Hypothesis drives the document itself rather than Schemathesis: the document uses a
small part of JSON Schema (:func:`from_schema` covers it), and the fuzz must send what
a schema-respecting generator never would (lone surrogates, raw ``NaN``).
"""

from __future__ import annotations

import json
import re
import uuid
from urllib.parse import quote, urlencode

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from club import club_tables, games, roster
from club.accounts import create_staff
from club.db import connect
from tests.support.web import english
from web import create_app
from web.api.openapi import OPENAPI
from web.security import issue_tablet_token

SCHEMAS = OPENAPI["components"]["schemas"]
EXAMPLES = 20
HOSTILE_EXAMPLES = 8

HOSTILE = [
    "\ud800", "a\udfffb", "\ud83d", "²", "١٢", "１２", "٣", "9999-12-31", "0001-01-01",
    "10000-01-01", "0000-00-00", "2026-02-30", "\r\n", "x\r\nSet-Cookie: a=b", "\n", "\x00",
    "\u200b", "Player\u200b001", "owner1\u200b", "\ufeff", "\u00ad", "\u2060", "\u202e",
    "NaN", "Infinity", "-1", "0", "9" * 30, "9" * 5000, "Asia/" + "x" * 300, "Asia/Tokyo",
    "../../etc/passwd", "%00", "t1", "mcr", "", " ",
]
"""Strings that broke, or could break, a view: each is tried wherever a string goes."""
NUMBERS = ["NaN", "Infinity", "-Infinity", "1e400", "-1e400", "1" + "0" * 400,
           "123456789012345678901234567890", "-0", "1.5", "9" * 5000]
"""Raw JSON number texts (and the words Python's parser would take for numbers)."""

PAGES = {
    "static": "the app's own files (scripts, styles), no input but the file name",
    "favicon": "the site's icon, a file",
    "staff.floor": "the floor page; its data is /staff/floor.json, in the document",
    "auth.login": "the sign-in form (GET); the sign-in itself is in the document",
    "auth.pair": "the page a pairing QR code opens (GET); the pairing is in the document",
    "tablet.table_page": "the tablet page; what it reads and writes is /api, in the document",
    "tablet.service_worker": "the tablet's service-worker script",
    "leaderboard.board": "the leaderboard page (its figures are the engine's, no API)",
    "leaderboard.game_page": "a game's printable page",
    "leaderboard.player_page": "a player's page",
}
"""Routes outside the OpenAPI document, and why: pages for people. They still get the
hostile queries (:func:`test_pages_outside_the_document_answer_hostile_queries`)."""
PAGE_QUERIES = ("day", "date", "period", "family", "season", "min_games", "order", "limit",
                "lang", "next", "code", "table", "status", "game", "player", "month", "year",
                "from", "to", "sheet", "format")


def _inline(schema):
    """The schema with ``$ref``s to the components replaced by what they name."""
    if isinstance(schema, dict):
        if "$ref" in schema:
            return _inline(SCHEMAS[schema["$ref"].rsplit("/", 1)[1]])
        return {k: _inline(v) for k, v in schema.items()}
    if isinstance(schema, list):
        return [_inline(v) for v in schema]
    return schema


def from_schema(schema: dict):
    """Values a schema allows (the keywords the document uses: type, properties, required,
    additionalProperties, items, min/maxItems, minimum, enum, const, min/maxLength), with
    extra fields where it allows them."""
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kind = schema.get("type")
    if kind == "object":
        props = schema.get("properties", {})
        required = set(schema.get("required", ()))
        base = st.fixed_dictionaries(
            {k: from_schema(v) for k, v in props.items() if k in required},
            optional={k: from_schema(v) for k, v in props.items() if k not in required})
        if schema.get("additionalProperties", True) is False:
            return base
        extra = st.dictionaries(st.text(max_size=8), JSON, max_size=2)
        return st.builds(lambda a, b: {**b, **a}, base, extra)
    if kind == "array":
        return st.lists(from_schema(schema.get("items", {})), min_size=schema.get("minItems", 0),
                        max_size=schema.get("maxItems", 5))
    if kind == "integer":
        return st.integers(min_value=schema.get("minimum"), max_value=schema.get("maximum"))
    if kind == "string":
        return st.text(min_size=schema.get("minLength", 0),
                       max_size=min(schema.get("maxLength", 30), 30)) | st.sampled_from(HOSTILE)
    if kind == "boolean":
        return st.booleans()
    return JSON


def operations() -> list[tuple[str, str, dict]]:
    return [(path, method, op) for path, ops in sorted(OPENAPI["paths"].items())
            for method, op in sorted(ops.items())]


TEXT = st.text(max_size=20) | st.sampled_from(HOSTILE)
JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
                    | TEXT,
                    lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.text(max_size=10), inner, max_size=4), max_leaves=12)
PARAM = {
    "integer": st.integers(min_value=-3, max_value=2**70) | st.integers(1, 5)
    | st.sampled_from(HOSTILE),
    "string": st.sampled_from(["t1", "t2", "nekohouse-4a", "mika", "ken", "zz"])
    | st.text(min_size=1, max_size=12) | st.sampled_from(HOSTILE),
    # the paired tablet's own table most of the time, so the fuzz gets past the access check
    "table_id": st.sampled_from(["t1"] * 8 + ["t2", "t3", "zz", "../t1"]),
}


def _param(spec: dict):
    if spec["name"] in PARAM:
        return PARAM[spec["name"]]
    return PARAM.get(spec.get("schema", {}).get("type", "string"), PARAM["string"])


@pytest.fixture(scope="module")
def club(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("fuzz") / "club.sqlite")
    app = create_app({"DATABASE": path, "SECRET_KEY": "fuzz", "TESTING": True,
                      "COOKIE_SECURE": False, "TABLE_COMMAND_WAIT": 0.01,
                      "LOGIN_GLOBAL_PER_SECOND": 1000.0, "LOGIN_GLOBAL_BURST": 1000})
    db = connect(path)
    for tid, rules in (("t1", "nekohouse-4a"), ("t2", "mcr"), ("t3", "nekohouse-3a")):
        club_tables.save_table(db, tid, tid, rules)
    ids = [roster.add_player(db, n)["id"] for n in ("A", "B", "C", "D", "E")]
    games.start_game(db, "t1", ids[:4], idempotency_key=uuid.uuid4().hex)
    create_staff(db, "mika", "mahjong-club", role="owner")
    create_staff(db, "ken", "ron-ron-ron")
    tablet = {"Authorization": "Bearer " + issue_tablet_token(db, "t1")}
    db.conn.close()
    return app, tablet


def _client(app, address: str):
    c = english(app.test_client())
    c.environ_base["REMOTE_ADDR"] = address
    return c


def _staff_client(app):
    """The owner, signed in (from an address of its own: the sign-in fuzz does not slow it)."""
    c = _client(app, "10.7.0.1")
    token = c.get("/auth/csrf").get_json()["csrf_token"]
    r = c.post("/auth/login", json={"name": "mika", "password": "mahjong-club"},
               headers={"X-CSRF-Token": token})
    assert r.status_code == 200, r.get_json()
    return c, {"X-CSRF-Token": r.get_json()["csrf_token"]}


def _caller(app, tablet, path: str):
    """The client and headers of whoever may call ``path``."""
    if path.startswith("/staff"):
        return _staff_client(app)
    c = _client(app, "10.7.0.2")
    if path.startswith("/auth"):
        return c, {"X-CSRF-Token": c.get("/auth/csrf").get_json()["csrf_token"]}
    return c, dict(tablet)


def _bytes(value) -> bytes:
    """A value as the bytes a client sends (a lone surrogate as its invalid UTF-8)."""
    return str(value).encode("utf-8", "surrogatepass")


def _url(path: str, path_values: dict, query_values: dict) -> str:
    url = re.sub(r"\{(\w+)\}", lambda m: quote(_bytes(path_values[m.group(1)]), safe=""),
                 path)
    query = urlencode({k: _bytes(v) for k, v in query_values.items()})
    return url + ("?" + query if query else "")


def _raw_json(payload, slot: int, word: str) -> str:
    """``payload`` as JSON text with one value (or the whole body) the raw ``word``."""
    mark = "\x00raw\x00"
    if isinstance(payload, dict) and payload:
        keys = sorted(payload, key=repr)
        payload = {**payload, keys[slot % len(keys)]: mark}
    elif isinstance(payload, list) and payload:
        payload = [*payload[:-1], mark]
    else:
        payload = mark
    return json.dumps(payload).replace(json.dumps(mark), word)


def _check(r, what) -> None:
    assert r.status_code < 500, (*what, r.get_data(as_text=True)[:300])
    if r.is_json:
        body_json = r.get_json()
        assert isinstance(body_json, dict)
        if r.status_code >= 400 and "error" in body_json:
            assert body_json["error"]["message"]


def _strategies(op: dict):
    params = {p["name"]: _param(p) for p in op.get("parameters", []) if p["in"] == "path"}
    query = {p["name"]: _param(p) for p in op.get("parameters", []) if p["in"] == "query"}
    body_schema = (op.get("requestBody", {}).get("content", {})
                   .get("application/json", {}).get("schema"))
    body = (from_schema(_inline(body_schema)) | JSON) if body_schema else st.none()
    return st.fixed_dictionaries(params), st.fixed_dictionaries(query), body


@pytest.mark.parametrize("path, method, op", operations(),
                         ids=[f"{m.upper()} {p}" for p, m, _ in operations()])
def test_no_operation_answers_500(club, path, method, op):
    app, tablet = club
    client, headers = _caller(app, tablet, path)

    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(*_strategies(op))
    def call(path_values, query_values, payload):
        url = _url(path, path_values, query_values)
        kw = {"headers": {**headers, "Accept": "application/json"}}
        if payload is not None or method != "get":
            kw["data"] = json.dumps(payload)
            kw["content_type"] = "application/json"
        _check(getattr(client, method)(url, **kw), (method, url, payload))

    call()


WRITES = [(p, m, op) for p, m, op in operations() if m != "get"]


@pytest.mark.parametrize("path, method, op", WRITES,
                         ids=[f"{m.upper()} {p}" for p, m, _ in WRITES])
def test_raw_json_with_nan_infinity_and_huge_numbers_is_never_500(club, path, method, op):
    app, tablet = club
    client, headers = _caller(app, tablet, path)
    params, query, body = _strategies(op)

    @settings(max_examples=HOSTILE_EXAMPLES, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(params, query, body, st.integers(0, 8), st.sampled_from(NUMBERS))
    def call(path_values, query_values, payload, slot, word):
        url = _url(path, path_values, query_values)
        text = _raw_json(payload, slot, word)
        r = getattr(client, method)(url, data=text, content_type="application/json",
                                    headers={**headers, "Accept": "application/json"})
        _check(r, (method, url, text[:200]))
        if word in ("NaN", "Infinity", "-Infinity") and "requestBody" in op:
            assert r.status_code >= 400, (method, url, text[:200])

    call()


def _doc_path(rule) -> str:
    return re.sub(r"<(?:\w+(?:\([^)]*\))?:)?(\w+)>", r"{\1}", rule.rule)


def test_every_route_is_in_the_document_or_a_page_with_its_reason(club):
    app, _tablet = club
    for rule in app.url_map.iter_rules():
        if rule.endpoint in PAGES:
            continue
        path = _doc_path(rule)
        assert path in OPENAPI["paths"], f"{rule.endpoint} {path}: not in the document"
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            assert method.lower() in OPENAPI["paths"][path], (method, path)
    routes = {rule.endpoint for rule in app.url_map.iter_rules()}
    assert set(PAGES) <= routes, set(PAGES) - routes  # no stale exception


PAGE_RULES = ["/leaderboard/", "/leaderboard/games/1", "/leaderboard/players/1",
              "/auth/login", "/auth/pair", "/tablet/t1", "/staff/"]


@pytest.mark.parametrize("page", PAGE_RULES)
def test_pages_outside_the_document_answer_hostile_queries(club, page):
    app, tablet = club
    client, headers = (_staff_client(app) if page.startswith("/staff")
                       else (_client(app, "10.7.0.3"), dict(tablet)))

    @settings(max_examples=HOSTILE_EXAMPLES * 2, deadline=None, derandomize=True,
              database=None, suppress_health_check=list(HealthCheck))
    @given(st.dictionaries(st.sampled_from(PAGE_QUERIES), st.sampled_from(HOSTILE)
                           | st.text(max_size=8), min_size=1, max_size=4))
    def call(query_values):
        url = _url(page, {}, query_values)
        _check(client.get(url, headers=headers), ("GET", url))

    call()
