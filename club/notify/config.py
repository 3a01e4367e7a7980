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
from typing import Any, Callable

from club.errors import UserError
from groundwork.options import Options, read_toml

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


_SECONDS = ("poll", "first_retry", "max_retry", "timeout")
_READ: dict[str, Callable[[Options, str], Any]] = {
    **{key: lambda o, k: o.gettext(k)
       for key in ("secrets", "line_api", "line_account", "smtp_host", "smtp_user",
                   "mail_from")},
    "smtp_port": lambda o, k: o.getint(k),
    "smtp_starttls": lambda o, k: o.getboolean(k),
    "attempts": lambda o, k: o.getint(k, minval=1, maxval=100),
    **{key: lambda o, k: o.getfloat(k, above=0) for key in _SECONDS},
}
"""How each option of ``[notify]`` is read (its kind and bounds)."""


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
    data = read_toml(path, lambda: UserError("notify.config_missing", path=str(path)),
                     lambda e: UserError("notify.config_unreadable", path=str(path),
                                         reason=getattr(e, "strerror", None) or str(e)))
    section = data.get("notify")
    if not isinstance(section, dict):
        raise UserError("notify.config_no_section", path=str(path))
    for key, value in section.items():
        if key not in _READ:
            raise _bad(path, key, value, ", ".join(_READ))
    options = Options(section, lambda key, value, allowed: _bad(path, key, value, allowed))
    values: dict[str, Any] = {key: _READ[key](options, key) for key in section}
    secrets_at = values.pop("secrets", None)
    secrets: dict[str, str] = {}
    if secrets_at:
        secrets = read_secrets(path.resolve().parent / secrets_at)
    return Settings(line_token=secrets.get("line_channel_access_token", ""),
                    line_secret=secrets.get("line_channel_secret", ""),
                    smtp_password=secrets.get("smtp_password", ""), **values)


def line_link(settings: Settings) -> dict[str, str]:
    """What the web app's LINE webhook and member pages need (its ``LINE_LINK``): the
    same channel as the sender's, its secret and the official account."""
    return {"api_base": settings.line_api, "channel_secret": settings.line_secret,
            "channel_token": settings.line_token, "account_id": settings.line_account}
