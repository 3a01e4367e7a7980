"""Bounds on what a request may carry: body size per route, JSON depth, ids in paths.

* Each route reads at most its own body size (:data:`BODY_LIMITS`, by endpoint;
  :data:`DEFAULT_BODY_LIMIT` otherwise): a hand is a few hundred bytes, a rules
  file a few kilobytes. More is a 413 before anything is parsed.
* JSON nested deeper than :data:`MAX_JSON_DEPTH` is a 400 (the parser never
  recurses into a 10,000-deep document), and so is JSON that does not parse,
  with the parser's reason.
* ``<int:...>`` in a route only matches ids SQLite can store (1 to 2^63-1):
  anything larger is a 404, never an overflow inside the database driver.
"""

from __future__ import annotations

import json

from flask import Request, request
from flask.json.provider import DefaultJSONProvider
from werkzeug.routing import IntegerConverter

from .errors import UserError

ID_MAX = 2**63 - 1
MAX_JSON_DEPTH = 32
DEFAULT_BODY_LIMIT = 64 * 1024
BODY_LIMITS = {
    "api.record": 16 * 1024,
    "api.preview": 16 * 1024,
    "api.score_hand": 16 * 1024,
    "api.undo": 4 * 1024,
    "api.start_game": 4 * 1024,
    "api.add_guest": 4 * 1024,
    "api.confirm": 4 * 1024,
    "auth.login_post": 4 * 1024,
    "auth.pair_post": 4 * 1024,
    "staff.ruleset_save": 256 * 1024,  # a rules file (64 KB of TOML at most) as an upload
}


class IdConverter(IntegerConverter):
    """``<int:name>``: a whole number from 1 to 2^63-1 (a SQLite row id)."""

    def __init__(self, map, fixed_digits=0, min=1, max=ID_MAX, signed=False):  # noqa: A002
        super().__init__(map, fixed_digits=fixed_digits, min=min, max=max, signed=signed)


def _depth(value) -> int:
    """How deeply ``value`` nests (iterative: no recursion on hostile input)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, level)
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, level + 1) for child in children
                         if isinstance(child, (dict, list)))
    return deepest


class _TooDeep(ValueError):
    pass


class BoundedJSON(DefaultJSONProvider):
    """Flask's JSON, refusing documents nested deeper than :data:`MAX_JSON_DEPTH`."""

    def loads(self, s, **kwargs):
        try:
            data = json.loads(s, **kwargs)
        except RecursionError:
            raise _TooDeep() from None
        if _depth(data) > MAX_JSON_DEPTH:
            raise _TooDeep()
        return data


class BoundedRequest(Request):
    """Bad JSON is a 400 in words: too deep, or the parser's reason."""

    def on_json_loading_failed(self, e: ValueError | None):
        if isinstance(e, _TooDeep):
            raise UserError("http.json_too_deep", code="invalid_json", most=MAX_JSON_DEPTH)
        raise UserError("http.json_invalid", code="invalid_json", reason=str(e)[:200])


def json_body() -> object:
    """The request's JSON (400 in words if it is not JSON, does not parse, or nests too deep)."""
    if not request.is_json:
        raise UserError("http.send_json_object", code="invalid_json")
    return request.get_json()


def _cap_body() -> None:
    request.max_content_length = BODY_LIMITS.get(request.endpoint or "", DEFAULT_BODY_LIMIT)


def init_app(app) -> None:
    """Install the bounds on ``app`` (before any blueprint registers its routes)."""
    app.url_map.converters["int"] = IdConverter
    app.request_class = BoundedRequest
    app.json = BoundedJSON(app)
    app.before_request(_cap_body)
