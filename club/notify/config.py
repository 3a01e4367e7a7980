"""The sender's settings: the ``[notify]`` section of ``club.toml`` and the secrets file.

The channels' secrets (the LINE channel access token, the SMTP password) live in a file
of their own, named by ``secrets`` in ``[notify]``: never in the club database, so never
in a backup or the nightly export. The file must be readable by its owner alone (mode
0600 or 0400); any other mode is refused at start-up with words saying what to run.
"""

from __future__ import annotations

import os
import stat
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from club.errors import UserError

SECRET_MODES = (0o600, 0o400)
SECRET_KEYS = ("line_channel_access_token", "line_channel_secret", "smtp_password")


@dataclass(frozen=True)
class Settings:
    """How the sender reaches LINE and the mail server, and how it retries."""

    line_api: str = "https://api.line.me"
    line_token: str = ""
    line_secret: str = ""
    """The channel secret: the webhook's ``X-Line-Signature`` is checked with it."""
    line_account: str = ""
    """The club's official account (``@…``), for the member page's add-friend link."""
    smtp_host: str = ""
    smtp_port: int = 587
    smtp_starttls: bool = True
    smtp_user: str = ""
    smtp_password: str = ""
    mail_from: str = ""
    poll: float = 2.0
    first_retry: float = 30.0
    max_retry: float = 3600.0
    attempts: int = 8
    timeout: float = 15.0


_TYPES: dict[str, type | tuple[type, ...]] = {
    "secrets": str, "line_api": str, "line_account": str, "smtp_host": str, "smtp_port": int,
    "smtp_starttls": bool, "smtp_user": str, "mail_from": str, "poll": (int, float),
    "first_retry": (int, float), "max_retry": (int, float), "attempts": int,
    "timeout": (int, float),
}


def _bad(path: Path, key: str, value: Any, allowed: str) -> UserError:
    return UserError("notify.config_bad", path=str(path), setting=key, value=repr(value)[:80],
                     allowed=allowed)


def read_secrets(path: Path) -> dict[str, str]:
    """The secrets file, refused unless only its owner may read it (0600 or 0400)."""
    try:
        st = path.stat()
    except OSError:
        raise UserError("notify.secrets_missing", path=str(path)) from None
    mode = stat.S_IMODE(st.st_mode)
    if mode not in SECRET_MODES:
        raise UserError("notify.secrets_mode", path=str(path), mode=f"{mode:04o}")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise UserError("notify.secrets_unreadable", path=str(path),
                        reason=getattr(e, "strerror", None) or str(e)) from None
    for key, value in data.items():
        if key not in SECRET_KEYS or not isinstance(value, str):
            raise _bad(path, key, "…", ", ".join(SECRET_KEYS) + " (text in quotes)")
    return data


def load(config: str | os.PathLike[str]) -> Settings:
    """The sender's settings from ``club.toml`` (its ``[notify]`` section) and the secrets
    file it names (relative paths from the config's folder)."""
    path = Path(config)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError("notify.config_missing", path=str(path)) from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise UserError("notify.config_unreadable", path=str(path),
                        reason=getattr(e, "strerror", None) or str(e)) from None
    section = data.get("notify")
    if not isinstance(section, dict):
        raise UserError("notify.config_no_section", path=str(path))
    values: dict[str, Any] = {}
    for key, value in section.items():
        kind = _TYPES.get(key)
        if kind is None:
            raise _bad(path, key, value, ", ".join(_TYPES))
        if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
            raise _bad(path, key, value, "a value of the kind the sample club.toml shows")
        values[key] = value
    for key in ("poll", "first_retry", "max_retry", "timeout"):
        if key in values and not values[key] > 0:
            raise _bad(path, key, values[key], "a number of seconds above 0")
    if "attempts" in values and not 1 <= values["attempts"] <= 100:
        raise _bad(path, "attempts", values["attempts"], "a whole number 1..100")
    secrets_at = values.pop("secrets", None)
    secrets: dict[str, str] = {}
    if secrets_at:
        secrets = read_secrets(path.resolve().parent / secrets_at)
    given: dict[str, Any] = {k: float(v) if k in ("poll", "first_retry", "max_retry", "timeout")
                             else v for k, v in values.items()}
    return Settings(line_token=secrets.get("line_channel_access_token", ""),
                    line_secret=secrets.get("line_channel_secret", ""),
                    smtp_password=secrets.get("smtp_password", ""), **given)


def line_link(settings: Settings) -> dict[str, str]:
    """What the web app's LINE webhook and member pages need (its ``LINE_LINK``): the
    same channel as the sender's, its secret and the official account."""
    return {"api_base": settings.line_api, "channel_secret": settings.line_secret,
            "channel_token": settings.line_token, "account_id": settings.line_account}
