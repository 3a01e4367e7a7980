"""Signing in to the head office in tests and benchmarks, through its real form."""

from __future__ import annotations

import secrets
from typing import Any


def signed_in(app: Any, role: str = "owner", branch: str | None = None) -> Any:
    """A test client of the head office ``app``, signed in through ``/signin`` as a new
    account of ``role`` (``branch`` for a branch manager)."""
    from chain import branches, pg_schema

    name = f"{role}-{secrets.token_hex(4)}"
    password = secrets.token_urlsafe(16)
    with pg_schema.connect(app.config["HEADOFFICE_DB"]) as pg:
        branches.add_account(pg, name, password, role, branch, "test")
    client = app.test_client()
    client.get("/signin")
    with client.session_transaction() as s:
        token = s["csrf_token"]
    r = client.post("/signin", data={"name": name, "password": password, "csrf_token": token})
    assert r.status_code == 302, r.get_data(as_text=True)[:500]
    return client
