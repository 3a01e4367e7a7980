"""Errors answered in words: JSON for JSON callers, a page for people.

Bad input is never a 500. The domain raises :class:`club.errors.UserError` (or a
subclass) with a catalogue key and the values its sentence names, and a status; the
handlers here word it in the caller's language.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, jsonify, render_template, request
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException

import lexicon
from club.errors import UserError
from web.i18n import t


def wants_json() -> bool:
    """API paths, JSON bodies and clients that prefer JSON get JSON; browsers get a page."""
    if request.path.startswith("/api/") or request.path.endswith(".json") or request.is_json:
        return True
    accept = request.accept_mimetypes
    best = accept.best_match(["text/html", "application/json"])
    return best == "application/json" and accept[best] > accept["text/html"]


def error_response(status: int, code: str, message: str,
                   details: dict | None = None) -> ResponseReturnValue:
    """The one shape of every error: ``{"ok": false, "error": {"code", "message"}}``, with
    ``Retry-After`` when the refusal says how long to wait."""
    # A refusal that says how long to wait says it to HTTP clients too.
    headers = {"Retry-After": str(details["retry_after"])} if details and \
        details.get("retry_after") else {}
    if wants_json():
        body: dict[str, Any] = {"ok": False, "error": {"code": code, "message": message}}
        if details:
            body["error"].update(details)
        return jsonify(body), status, headers
    return (render_template("error.html", status=status, message=message, code=code), status,
            headers)


def init_app(app: Flask) -> None:
    """Register the handlers on ``app``."""

    @app.errorhandler(UserError)
    def _user_error(e: UserError) -> ResponseReturnValue:
        return error_response(e.status, e.code, e.message, e.details)

    @app.errorhandler(HTTPException)
    def _http_error(e: HTTPException) -> ResponseReturnValue:
        if e.response is not None:  # an answer already made (a refusal from a decorator)
            return e.response
        code = (e.name or "error").lower().replace(" ", "_")
        key = f"http.{e.code}"
        message = t(key) if lexicon.has(key) else (e.description or e.name)
        return error_response(e.code or 500, code, message)

    @app.errorhandler(Exception)
    def _unexpected(e: Exception) -> ResponseReturnValue:
        # A bug, not bad input: log it with its traceback, answer in words.
        app.logger.exception("unexpected error on %s %s", request.method, request.path)
        return error_response(500, "internal_error", t("http.500"))
