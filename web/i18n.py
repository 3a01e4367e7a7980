"""Japanese first, English on a switch: the request's language over :mod:`lexicon`.

``t(key)`` is a Jinja global (and a Python function) that returns the text for
the current language: ``?lang=en`` / ``?lang=ja`` sets it for the session,
else the caller's ``Accept-Language`` (a script or a browser set to English),
otherwise Japanese. The words themselves are in ``lexicon/catalogue/*.toml``.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, g, has_request_context, request, session

import lexicon
from club.i18n import use_language_source
from lexicon import DEFAULT_LANG, LANGS


def current_lang() -> str:
    """The language of this request: ``?lang=`` (remembered in the session), the session's,
    the caller's Accept-Language, else Japanese."""
    if not has_request_context():
        return DEFAULT_LANG
    if "lang" in g:
        return g.lang
    lang = request.args.get("lang")
    if lang in LANGS:
        session["lang"] = lang
    else:
        lang = session.get("lang")
        if lang not in LANGS:
            lang = request.accept_languages.best_match(LANGS) or DEFAULT_LANG
    g.lang = lang
    return lang


def request_lang() -> str | None:
    """The request's language, or None outside a request (what the domain's words and
    errors ask :mod:`club.i18n` for)."""
    return current_lang() if has_request_context() else None


def t(key: str, lang: str | None = None, **values: Any) -> str:
    """The text for ``key`` in the current language (the key itself if unknown)."""
    return lexicon.t(key, lang or current_lang(), **values)


use_language_source(request_lang)


def init_app(app: Flask) -> None:
    app.jinja_env.globals["t"] = t
    app.jinja_env.globals["current_lang"] = current_lang
