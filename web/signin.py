"""The sign-in throttles of this server process (:class:`club.accounts.SignInGuard`, made
from the app's configuration) and the 429 answered in front of Flask to an address that
must still wait."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING

from flask import Flask, current_app
from werkzeug.datastructures import LanguageAccept
from werkzeug.http import parse_accept_header

import lexicon
from club.accounts import (
    FREE_FAILURES,
    GLOBAL_BURST,
    GLOBAL_PER_SECOND,
    SIGN_IN_PATH,
    SignInGuard,
    Throttle,
)

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

_KEY = "jantaku_sign_in_guard"


def guard(app: Flask | None = None) -> SignInGuard:
    """This process's guard for ``app`` (the current app if not given), made at its first
    use from ``LOGIN_GLOBAL_PER_SECOND``, ``LOGIN_GLOBAL_BURST`` and ``LOGIN_FREE_FAILURES``."""
    app = app or current_app._get_current_object()  # type: ignore[attr-defined]
    found = app.extensions.get(_KEY)
    if found is None:
        found = app.extensions[_KEY] = SignInGuard(
            per_second=app.config.get("LOGIN_GLOBAL_PER_SECOND", GLOBAL_PER_SECOND),
            burst=app.config.get("LOGIN_GLOBAL_BURST", GLOBAL_BURST),
            free_failures=app.config.get("LOGIN_FREE_FAILURES", FREE_FAILURES))
    return found


def free_tries(throttle: Throttle) -> int:
    """The free tries of ``throttle`` in this app (``THROTTLE_FREE_<WHAT>``, else its own)."""
    return int(current_app.config.get(f"THROTTLE_FREE_{throttle.what.upper()}", throttle.free))


def sign_in_wait(app: Flask, ip: str | None) -> int:
    """Seconds ``ip`` must still wait before its next sign-in, as this process knows it
    (no database work: the server's event loop asks it of every sign-in)."""
    found = app.extensions.get(_KEY)
    return found.waits.left(ip or "?", time.time()) if found else 0


class FastRefusal:
    """WSGI middleware: a sign-in from an address that must still wait gets its 429 here,
    without Flask, the session or the database (a flood costs the server next to nothing)."""

    def __init__(self, wsgi_app: WSGIApplication, app: Flask) -> None:
        self.wsgi_app, self.app = wsgi_app, app

    def __call__(self, environ: WSGIEnvironment,
                 start_response: StartResponse) -> Iterable[bytes]:
        if environ.get("PATH_INFO") == SIGN_IN_PATH and environ.get("REQUEST_METHOD") == "POST":
            left = sign_in_wait(self.app, environ.get("REMOTE_ADDR"))
            if left:
                return self._refuse(environ, start_response, left)
        return self.wsgi_app(environ, start_response)

    @staticmethod
    def _refuse(environ: WSGIEnvironment, start_response: StartResponse,
                left: int) -> list[bytes]:
        accepted = parse_accept_header(environ.get("HTTP_ACCEPT_LANGUAGE"), LanguageAccept)
        lang = accepted.best_match(lexicon.LANGS) or lexicon.DEFAULT_LANG
        body = json.dumps({"ok": False, "error": {
            "code": "login_rate_limited", "retry_after": left,
            "message": lexicon.t("auth.wait", lang, seconds=left)}}, ensure_ascii=False)
        data = body.encode("utf-8")
        start_response("429 Too Many Requests", [
            ("Content-Type", "application/json"), ("Content-Length", str(len(data))),
            ("Retry-After", str(left)), ("Cache-Control", "no-store"),
            ("X-Content-Type-Options", "nosniff")])
        return [data]
