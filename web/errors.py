"""Errors answered in words: JSON for the API, a page for people.

Bad input is never a 500. Domain code raises :class:`UserError` (or a
subclass) with a sentence a person can act on and an HTTP status (400 bad
input, 404 not found, 409 conflicts such as "already recorded", 422 a request
the rules refuse); the handlers here turn it into the right answer.
"""

from __future__ import annotations

from flask import jsonify, render_template, request
from werkzeug.exceptions import HTTPException


class UserError(Exception):
    """A request that cannot be done as asked, with the reason in words."""

    status = 400
    code = "bad_request"

    def __init__(self, message: str, *, status: int | None = None, code: str | None = None,
                 details: dict | None = None):
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status
        if code is not None:
            self.code = code
        self.details = details or {}


class NotFound(UserError):
    status = 404
    code = "not_found"


class Conflict(UserError):
    status = 409
    code = "conflict"


class Refused(UserError):
    """The rules (or the game's state) do not allow this."""

    status = 422
    code = "refused"


def wants_json() -> bool:
    """API paths and clients that ask for JSON get JSON; browsers get a page."""
    if request.path.startswith("/api/"):
        return True
    best = request.accept_mimetypes.best_match(["text/html", "application/json"])
    accept = request.accept_mimetypes
    return best == "application/json" and accept[best] > accept["text/html"]


def error_response(status: int, code: str, message: str, details: dict | None = None):
    """The one shape of every error: ``{"ok": false, "error": {"code", "message"}}``."""
    if wants_json():
        body = {"ok": False, "error": {"code": code, "message": message}}
        if details:
            body["error"].update(details)
        return jsonify(body), status
    return render_template("error.html", status=status, message=message, code=code), status


def init_app(app) -> None:
    """Register the handlers on ``app``."""

    @app.errorhandler(UserError)
    def _user_error(e: UserError):
        return error_response(e.status, e.code, e.message, e.details)

    @app.errorhandler(HTTPException)
    def _http_error(e: HTTPException):
        code = (e.name or "error").lower().replace(" ", "_")
        return error_response(e.code or 500, code, e.description or e.name)

    @app.errorhandler(Exception)
    def _unexpected(e: Exception):
        # A bug, not bad input: log it with its traceback, answer in words.
        app.logger.exception("unexpected error on %s %s", request.method, request.path)
        return error_response(
            500, "internal_error",
            "Something went wrong on the server; nothing was recorded by this request. "
            "Try again, and tell the staff if it keeps happening.",
        )
