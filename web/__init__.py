"""Jantaku's club web app: tablets at the tables, the staff console, the JSON API.

``create_app(test_config=None)`` is a flaskr-style factory. Configuration:

* ``JANTAKU_DB``          path of the SQLite file shared with the ``tablectl``
                          daemon (default ``<instance>/jantaku.sqlite``);
* ``JANTAKU_SECRET_KEY``  the session signing key (default: a random key
                          stored in ``<instance>/secret_key``, so restarts
                          keep sessions);
* ``test_config``         a mapping that overrides everything (tests).
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from flask import Flask

from chain import box
from clubdb import shared
from web import api, auth, board, db, leaderboard, limits, member, security, signin, staff, tablet
from web.tablet import panels


def _secret_key(instance: Path) -> str:
    key = os.environ.get("JANTAKU_SECRET_KEY")
    if key:
        return key
    path = instance / "secret_key"
    if not path.exists():
        private_file(path, secrets.token_hex(32))
    return path.read_text().strip()


def private_file(path: Path, text: str) -> None:
    """Write a new file only its owner can read (created 0600: never readable, not even
    for a moment, by other users of the machine)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)


def private_database(path: str) -> None:
    """Make the club database only its owner's: a new file is created 0600 (SQLite gives
    its -wal and -shm files the database file's mode), an existing one is set to 0600."""
    if path == ":memory:":
        return
    if not os.path.exists(path):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
    for name in (path, path + "-wal", path + "-shm"):
        if os.path.exists(name) and os.stat(name).st_mode & 0o077:
            os.chmod(name, 0o600)


def create_app(test_config: dict | None = None) -> Flask:
    """Build the app: config, database migrations, every blueprint, error handlers."""
    app = Flask(__name__, instance_relative_config=True)
    instance = Path(app.instance_path)
    test_config = dict(test_config or {})
    needs_db = "DATABASE" not in test_config and not os.environ.get("JANTAKU_DB")
    needs_key = "SECRET_KEY" not in test_config and not os.environ.get("JANTAKU_SECRET_KEY")
    if needs_db or needs_key:
        instance.mkdir(parents=True, exist_ok=True)
    app.config.from_mapping(
        DATABASE=os.environ.get("JANTAKU_DB") or str(instance / "jantaku.sqlite"),
        JSON_AS_ASCII=False,
        MAX_CONTENT_LENGTH=1 << 20,
    )
    if "SECRET_KEY" not in test_config:
        app.config["SECRET_KEY"] = _secret_key(instance)
    app.config.update(test_config)
    limits.init_app(app)  # first: its converters and body caps apply to every route
    security.init_works(app)
    panels.init_app(app)
    app.register_blueprint(auth.bp)
    app.register_blueprint(staff.bp)
    app.register_blueprint(tablet.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(leaderboard.bp)
    app.register_blueprint(board.bp)
    app.register_blueprint(member.bp)
    app.add_url_rule("/favicon.ico", "favicon", tablet.favicon)
    # Flask's documented way to wrap the app in a WSGI middleware
    app.wsgi_app = signin.FastRefusal(app.wsgi_app, app)  # type: ignore[method-assign]
    db.init_app(app)
    box.prepare(app.config["DATABASE"])  # an empty or damaged file is refused, never served
    private_database(app.config["DATABASE"])
    box.migrate(shared(app.config["DATABASE"]))
    return app
