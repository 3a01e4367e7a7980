"""The pieces every OpenAPI entry is built from: a schema reference, a JSON body, an
object, a path parameter, an operation with its answers and the error words of each
status. ``staff``, ``members``, ``notify`` and ``chain`` build their paths from these."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def ref(name: str) -> dict:
    """A reference to a schema of ``components``."""
    return {"$ref": f"#/components/schemas/{name}"}


def json_body(schema: dict) -> dict:
    """A JSON content of ``schema``."""
    return {"content": {"application/json": {"schema": schema}}}


ERR = {
    "400": "bad input, or the CSRF token is missing (csrf_missing); the message says what to do",
    "401": "not signed in as staff (staff_login_required)",
    "403": "wrong CSRF token (csrf_invalid), or a tablet calling a staff endpoint (staff_only)",
    "404": "no such table, player, rule set, tablet or game",
    "409": "conflict: already exists / already done, or the table refused the command",
    "422": "the rules refuse this (e.g. a correction the engine cannot replay)",
    "429": "too many failed sign-ins for this name from this address; wait and retry",
    "413": "the body is larger than this route takes",
    "503": "the camera gives no picture now (missing, busy, unplugged); the message says which",
}
STAFF: list[dict[str, list[str]]] = [{"staffSession": [], "csrfHeader": []}]


def obj(required: Iterable[str] = (), **props: Any) -> dict:
    """An object schema with its ``required`` properties."""
    return {"type": "object", "required": list(required), "properties": props}


STR, INT, BOOL = {"type": "string"}, {"type": "integer"}, {"type": "boolean"}


def op(summary: str, *, params: Iterable[dict] = (), body: dict | None = None, ok: str = "200",
        errors: Iterable[str] = ("400",),
        staff: bool = True) -> dict:
    """An operation: its summary, parameters, body, the OK answer and each error's words
    (a staff one needs the session and the CSRF header)."""
    entry: dict = {"summary": summary, "tags": ["staff" if staff else "sign-in"],
                "parameters": list(params),
                "responses": {ok: {"description": "OK", **json_body(ref("Ok"))}}}
    codes = list(errors) + (["401", "403"] if staff else [])
    for code in codes:
        entry["responses"][code] = {"description": ERR[code], **json_body(ref("Error"))}
    if body is not None:
        entry["requestBody"] = {"required": True, **json_body(body)}
    if staff:
        entry["security"] = STAFF
    return entry


def path_param(name: str, kind: dict) -> dict:
    """A required path parameter."""
    return {"name": name, "in": "path", "required": True, "schema": kind}


TABLE, PLAYER = path_param("table_id", STR), path_param("player_id", INT)
TABLET, GAME = path_param("tablet_id", INT), path_param("game_id", INT)
SEQ, RULES = path_param("seq", INT), path_param("rule_set_id", STR)
