"""A member's LINE, linked as players use it: the club's official account is added as a
friend, the member sends the code their page shows, and the webhook (its body signed by
the LINE platform: ``X-Line-Signature`` is the base64 HMAC-SHA256 of the body under the
channel secret) links the LINE user id that sent it. Nobody types a "U…" id.

Replies and pushes go to the Messaging API at the base URL of the settings (the LINE
platform in a club; a stand-in on this machine in the tests), over real HTTP.

Settings (``LINE_LINK`` of the app's config): ``api_base`` (default
``https://api.line.me``), ``channel_secret``, ``channel_token`` (the channel access
token), ``account_id`` (the official account's ``@…`` id, for the add-friend link);
``python -m web serve --config club.toml`` fills them from ``[notify]`` and its secrets
file (:func:`club.notify.config.line_link`).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import unicodedata
import urllib.error
import urllib.request
from typing import Any

from club import members
from club.audit import audit
from club.db import Db, Migrations, now_iso, one, write_tx
from club.i18n import t

MIGRATIONS = Migrations("line_link")

DEFAULT_API = "https://api.line.me"
CODE_ALPHABET = "ACDEFGHJKLMNPQRTUVWXY34679"
"""Letters and digits no one misreads (no 0/O, 1/I/L, 2/Z, 5/S, 8/B)."""
CODE_LENGTH = 6
TIMEOUT_S = 10


@MIGRATIONS
def _create_line_link(db: Db) -> None:
    db.executescript(
        """
        CREATE TABLE line_link_codes (
            player_id INTEGER PRIMARY KEY REFERENCES players(id),
            code TEXT NOT NULL UNIQUE,
            created_at TEXT NOT NULL
        );
        """
    )


def code_for(db: Db, player_id: int) -> str:
    """The code a member sends the club's account to link their LINE (one per member,
    kept until it is used)."""
    row = one(db, "SELECT code FROM line_link_codes WHERE player_id = ?", [player_id])
    if row:
        return str(row["code"])
    with write_tx(db):
        while True:
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            if one(db, "SELECT 1 FROM line_link_codes WHERE code = ?", [code]) is None:
                break
        db.execute("INSERT INTO line_link_codes (player_id, code, created_at) VALUES (?, ?, ?)",
                   [player_id, code, now_iso()])
    return code


def signature(secret: str, body: bytes) -> str:
    """The ``X-Line-Signature`` of ``body`` under the channel ``secret``."""
    digest = hmac.new(secret.encode("utf-8"), body, hashlib.sha256).digest()
    return base64.b64encode(digest).decode("ascii")


def signed(secret: str, body: bytes, given: str | None) -> bool:
    """Whether ``given`` is the platform's signature of ``body`` (constant time)."""
    return bool(secret and given) and hmac.compare_digest(signature(secret, body), given or "")


def _typed_code(text: str) -> str:
    """What a member typed, as a code: full-width letters, spaces and case do not matter."""
    return "".join(unicodedata.normalize("NFKC", text).split()).upper()


def handle(db: Db, payload: dict, cfg: dict) -> list[dict]:
    """The webhook's events: a follow is answered with how to link; a text that is a
    member's code links the sender's user id to that member (audited) and is answered
    with their name; any other text is answered with what to send. Returns what it did."""
    done = []
    for ev in payload.get("events") or []:
        if not isinstance(ev, dict):
            continue
        user = ((ev.get("source") or {}).get("userId")) or ""
        token = ev.get("replyToken") or ""
        if ev.get("type") == "follow":
            reply(cfg, token, t("line.follow"))
            done.append({"event": "follow", "user": user})
            continue
        message = ev.get("message") or {}
        if ev.get("type") != "message" or message.get("type") != "text" or not user:
            continue
        code = _typed_code(str(message.get("text") or ""))
        row = one(db, "SELECT c.player_id, p.name FROM line_link_codes c "
                      "JOIN players p ON p.id = c.player_id WHERE c.code = ?", [code])
        if row is None:
            reply(cfg, token, t("line.unknown_code"))
            done.append({"event": "unknown", "user": user})
            continue
        _link(db, int(row["player_id"]), user)
        reply(cfg, token, t("line.linked", name=row["name"]))
        done.append({"event": "linked", "user": user, "player_id": row["player_id"]})
    return done


def _link(db: Db, player_id: int, user_id: str) -> None:

    with write_tx(db):
        members.set_line_user(db, player_id, user_id)
        db.execute("DELETE FROM line_link_codes WHERE player_id = ?", [player_id])
        # the user id itself stays in the member's profile only (erased with it)
        audit(db, "line", "member.line_linked", f"player:{player_id}")


def linked_user(db: Db, player_id: int) -> str | None:
    """The LINE user id linked to a member, if any."""
    row = one(db, "SELECT line_user_id FROM member_profiles WHERE player_id = ?", [player_id])
    return (row or {}).get("line_user_id") or None


def _post(cfg: dict, path: str, body: dict) -> int:
    base = str(cfg.get("api_base") or DEFAULT_API).rstrip("/")
    req = urllib.request.Request(
        base + path, data=json.dumps(body, ensure_ascii=False).encode("utf-8"), method="POST",
        headers={"Content-Type": "application/json",
                 "Authorization": f"Bearer {cfg.get('channel_token') or ''}"})
    try:
        with urllib.request.urlopen(req, timeout=TIMEOUT_S) as resp:  # noqa: S310
            return int(resp.status)
    except urllib.error.HTTPError as e:
        return int(e.code)
    except OSError:
        return 0


def reply(cfg: dict, reply_token: str, text: str) -> int:
    """Answer a webhook event (the Messaging API's reply); the HTTP status (0: no answer)."""
    if not reply_token:
        return 0
    return _post(cfg, "/v2/bot/message/reply",
                 {"replyToken": reply_token, "messages": [{"type": "text", "text": text}]})


def push(cfg: dict, user_id: str, text: str) -> int:
    """Send a linked member a message (the Messaging API's push); the HTTP status."""
    return _post(cfg, "/v2/bot/message/push",
                 {"to": user_id, "messages": [{"type": "text", "text": text}]})


def friend_url(cfg: dict) -> str | None:
    """The add-friend link of the club's official account (None when not set)."""
    account = str(cfg.get("account_id") or "").strip()
    return f"https://line.me/R/ti/p/{account}" if account else None


def settings(config: Any) -> dict:
    """The LINE settings from the app's config (``LINE_LINK``)."""
    return dict(config.get("LINE_LINK") or {})
