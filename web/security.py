"""Request safety for the web app (stub, being filled in by W2).

CSRF: templates put ``<meta name="csrf-token" content="{{ csrf_token() }}">``
in ``<head>``; JavaScript sends that value in the ``X-CSRF-Token`` header
on every POST/PUT/PATCH/DELETE. HTML forms send a hidden ``csrf_token`` field.
"""

from __future__ import annotations

import functools

CSRF_META_NAME = "csrf-token"
CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf_token"


def init_app(app):
    """Install CSRF checks, cookie flags and Jinja globals on ``app``."""
    app.jinja_env.globals["csrf_token"] = lambda: ""


def staff_required(view):
    """Allow only a signed-in staff account."""
    @functools.wraps(view)
    def wrapped(*args, **kwargs):
        return view(*args, **kwargs)
    return wrapped


def tablet_required(view):
    """Allow only a paired, unrevoked tablet bound to the route's table_id."""
    @functools.wraps(view)
    def wrapped(*args, **kwargs):
        return view(*args, **kwargs)
    return wrapped


def current_staff():
    """The signed-in staff account as a dict, or None."""
    return None


def current_tablet_table():
    """The table id the request's tablet token is bound to, or None."""
    return None


def csrf_token():
    """The session's CSRF token (created on first use)."""
    return ""
