"""A fuzz of every operation the OpenAPI document describes: no 500 on any route.

Bodies come from the operation's own JSON schema (:func:`from_schema`, Hypothesis
strategies for the part of JSON Schema the document uses) and from arbitrary JSON;
path parameters are any integer (far outside 64 bits too) or any text. Each
operation is called by whoever may call it (a paired tablet, a signed-in owner,
anyone), so the fuzz reaches the code behind the access checks. Derandomized and
bounded, so it runs the same in CI every time and takes seconds.
"""

from __future__ import annotations

import json
import re
import uuid
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.web import english
from web import create_app, games
from web.api.openapi import OPENAPI
from web.auth import create_staff
from web.db import connect
from web.security import issue_tablet_token

SCHEMAS = OPENAPI["components"]["schemas"]
EXAMPLES = 25


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
                       max_size=min(schema.get("maxLength", 30), 30))
    if kind == "boolean":
        return st.booleans()
    return JSON


def operations() -> list[tuple[str, str, dict]]:
    return [(path, method, op) for path, ops in sorted(OPENAPI["paths"].items())
            for method, op in sorted(ops.items())]


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
                    | st.text(max_size=20),
                    lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.text(max_size=10), inner, max_size=4), max_leaves=12)
PARAM = {
    "integer": st.integers(min_value=-3, max_value=2**70) | st.integers(1, 5),
    "string": st.sampled_from(["t1", "t2", "nekohouse-4a", "mika", "ken", "zz"])
    | st.text(min_size=1, max_size=12),
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
        games.save_table(db, tid, tid, rules)
    ids = [games.add_player(db, n)["id"] for n in ("A", "B", "C", "D", "E")]
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


@pytest.mark.parametrize("path, method, op", operations(),
                         ids=[f"{m.upper()} {p}" for p, m, _ in operations()])
def test_no_operation_answers_500(club, path, method, op):
    app, tablet = club
    params = {p["name"]: _param(p) for p in op.get("parameters", []) if p["in"] == "path"}
    query = {p["name"]: _param(p) for p in op.get("parameters", []) if p["in"] == "query"}
    body_schema = (op.get("requestBody", {}).get("content", {})
                   .get("application/json", {}).get("schema"))
    body = (from_schema(_inline(body_schema)) | JSON) if body_schema else st.none()
    client, headers = _caller(app, tablet, path)

    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.fixed_dictionaries(params), st.fixed_dictionaries(query), body)
    def call(path_values, query_values, payload):
        url = re.sub(r"\{(\w+)\}", lambda m: quote(str(path_values[m.group(1)]), safe=""),
                     path)
        kw = {"headers": {**headers, "Accept": "application/json"},
              "query_string": {k: str(v) for k, v in query_values.items()}}
        if payload is not None or method != "get":
            kw["data"] = json.dumps(payload)
            kw["content_type"] = "application/json"
        r = getattr(client, method)(url, **kw)
        assert r.status_code < 500, (method, url, payload, r.get_data(as_text=True)[:300])
        if r.is_json:
            body_json = r.get_json()
            assert isinstance(body_json, dict)
            if r.status_code >= 400 and "error" in body_json:
                assert body_json["error"]["message"]

    call()

