"""Bounds on what a request may carry: body size per route, JSON depth, ids in paths.

* Each route reads at most its own body size (:data:`BODY_LIMITS`, by endpoint;
  :data:`DEFAULT_BODY_LIMIT` otherwise): a hand is a few hundred bytes, a rules
  file a few kilobytes. More is a 413 before anything is parsed.
* JSON nested deeper than :data:`MAX_JSON_DEPTH` is a 400 (the parser never
  recurses into a 10,000-deep document), and so is JSON that does not parse,
  with the parser's reason. ``NaN``, ``Infinity`` and ``-Infinity`` are not JSON
  (Python's parser takes them by default): a 400 naming the word. A string (or a
  key) holding a lone surrogate (``"\\ud800"``) is not text: a 400 naming the
  field, so no view ever meets a string it cannot encode.
* ``<int:...>`` in a route only matches ids SQLite can store (1 to 2^63-1):
  anything larger is a 404, never an overflow inside the database driver.
* A number in the query string or a form is read by one reader,
  :func:`query_number` (:func:`bounded_number` underneath): ASCII digits only
  (``١٢`` and ``１２`` are refused, not read as 12), within its bounds (never beyond
  2^63-1): anything else is a 400 naming the field and the bounds. A yes/no field is
  read by :func:`flag_of` (a form's ticked box, a JSON boolean; a 422 for anything else).
"""

from __future__ import annotations

import json
from typing import Any, NoReturn

from flask import Flask, Request, request
from flask.json.provider import DefaultJSONProvider
from werkzeug.routing import IntegerConverter, Map

from club import text
from club.db import ID_MAX
from club.errors import UserError

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
    """``<int:name>``: a whole number from 1 to 2^63-1 (a SQLite row id), in ASCII digits.

    Werkzeug's ``\\d+`` also matches ``١٢`` and 5,000 nines (which ``int()`` then refuses
    with a ValueError, a 500): 1 to 19 ASCII digits match, anything else is a 404."""

    regex = r"[0-9]{1,19}"

    def __init__(self, map: Map, fixed_digits: int = 0, min: int = 1,  # noqa: A002
                 max: int = ID_MAX, signed: bool = False) -> None:
        super().__init__(map, fixed_digits=fixed_digits, min=min, max=max, signed=signed)


def _depth(value: object) -> int:
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


class _NotJSONNumber(ValueError):
    def __init__(self, word: str):
        super().__init__(word)
        self.word = word


class _NotText(ValueError):
    def __init__(self, field: str):
        super().__init__(field)
        self.field = field


def _refuse_constant(word: str) -> NoReturn:
    raise _NotJSONNumber(word)


def _is_text(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: only an escape can make one
        return False
    return True


def _check_text(value: object) -> None:
    """Raise :class:`_NotText` naming the first string (or key) that is not text."""
    stack = [(value, "")]
    while stack:
        item, path = stack.pop()
        if isinstance(item, str):
            if not _is_text(item):
                raise _NotText(path or "body")
        elif isinstance(item, dict):
            for key, child in item.items():
                where = f"{path}.{key}" if path else str(key)
                if not _is_text(key):
                    raise _NotText(where.encode("utf-8", "replace").decode("utf-8"))
                stack.append((child, where))
        elif isinstance(item, list):
            stack.extend((child, f"{path}[{i}]") for i, child in enumerate(item))


class BoundedJSON(DefaultJSONProvider):
    """Flask's JSON, refusing documents nested deeper than :data:`MAX_JSON_DEPTH`, the
    non-JSON words ``NaN`` and ``Infinity``, and strings that are not text."""

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        kwargs.setdefault("parse_constant", _refuse_constant)
        try:
            data = json.loads(s, **kwargs)
        except RecursionError:
            raise _TooDeep() from None
        if _depth(data) > MAX_JSON_DEPTH:
            raise _TooDeep()
        _check_text(data)
        return data


def json_refusal(e: ValueError | None) -> UserError:
    """Why JSON was refused, in words (for the body and for JSON typed into a form)."""
    if isinstance(e, _TooDeep):
        return UserError("http.json_too_deep", code="invalid_json", most=MAX_JSON_DEPTH)
    if isinstance(e, _NotJSONNumber):
        return UserError("http.json_not_number", code="invalid_json", word=e.word)
    if isinstance(e, _NotText):
        return UserError("field.not_unicode", code="invalid_field",
                         details={"field": e.field}, field=e.field)
    return UserError("http.json_invalid", code="invalid_json", reason=str(e)[:200])


class BoundedRequest(Request):
    """Bad JSON is a 400 in words: too deep, not JSON's numbers, not text, or the
    parser's reason."""

    def on_json_loading_failed(self, e: ValueError | None) -> NoReturn:
        raise json_refusal(e)


def json_body() -> object:
    """The request's JSON (400 in words if it is not JSON, does not parse, or nests too deep)."""
    if not request.is_json:
        raise UserError("http.send_json_object", code="invalid_json")
    return request.get_json()


def _cap_body() -> None:
    limit = BODY_LIMITS.get(request.endpoint or "", DEFAULT_BODY_LIMIT)
    request.max_content_length = limit
    if (request.content_length or 0) > limit:  # refused whether or not the route reads it
        raise UserError("http.body_too_large", status=413, code="request_entity_too_large",
                        most=f"{limit // 1024} KB")


def init_app(app: Flask) -> None:
    """Install the bounds on ``app`` (before any blueprint registers its routes)."""
    app.url_map.converters["int"] = IdConverter
    app.request_class = BoundedRequest
    app.json = BoundedJSON(app)
    app.before_request(_cap_body)


def bounded_number(raw: str, field: str, low: int, high: int) -> int:
    """A whole number typed into ``field`` (a query parameter, a form field) between ``low``
    and ``high`` (at most 2^63-1), or a refusal in words naming the field and the bounds."""
    return text.bounded_number(raw, field, low, min(high, ID_MAX))


def query_number(name: str, default: int | None = None, low: int = 1,
                 high: int = ID_MAX) -> int | None:
    """The query parameter ``name`` as a whole number from ``low`` to ``high`` (at most
    2^63-1), ``default`` when absent or empty; a 400 in words otherwise (ASCII digits
    only). Every number a page reads from its query string comes through here."""
    raw = request.args.get(name, "")
    if raw == "":
        return default
    return bounded_number(raw, name, low, high)


def form_data() -> dict[str, Any]:
    """The request's fields: a JSON object body or the form."""
    if request.is_json:
        data = json_body()
        if not isinstance(data, dict):
            raise UserError("http.send_json_object", code="bad_json")
        return data
    return request.form.to_dict()


def flag_of(data: dict, key: str, *, required: bool = False) -> bool:
    """A yes/no field. A form's unticked checkbox is absent (no); a JSON body gives a JSON
    boolean (422 naming the field for anything else: ``0``, ``"false"``, ``[]``) and leaves
    an optional one out for no; a ``required`` one must be there."""
    if request.is_json:
        if key not in data and not required:
            return False
        value = data.get(key)
        if not isinstance(value, bool):
            raise UserError("field.not_bool", status=422, code="invalid_field",
                            details={"field": key}, field=key)
        return value
    if key not in data and required:
        raise UserError("field.required", code=f"missing_{key}", details={"field": key},
                        field=key)
    return str(data.get(key, "")).lower() in ("1", "true", "on", "yes")
