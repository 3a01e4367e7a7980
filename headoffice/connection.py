"""This thread's connection to the head office's PostgreSQL, for the pages and the
sign-in alike."""

from __future__ import annotations

import threading
from typing import Any

from flask import current_app

from chain import pg_schema

_local = threading.local()


def pg() -> Any:
    """This thread's connection to the app's head office database (opened once, reopened
    if it broke)."""
    url = current_app.config["HEADOFFICE_DB"]
    conns = _local.__dict__.setdefault("conns", {})
    conn = conns.get(url)
    if conn is None or conn.closed or conn.broken:
        conn = conns[url] = pg_schema.connect(url)
    return conn


def this_thread_connection(url: str) -> Any | None:
    """This thread's open connection to ``url``, if it has one."""
    return _local.__dict__.get("conns", {}).get(url)
