"""Names and labels people type: normalised once, control characters refused.

``ＳＴＡＦＦ`` and ``STAFF`` are the same name after Unicode NFKC; a sign-in
name is also case-folded (``Émilie`` signs in as ``émilie``), in Python, at
creation and at sign-in, so the database compares plain strings.
"""

from __future__ import annotations

import unicodedata

from .errors import UserError

# Bidirectional overrides and isolates reorder what a screen shows.
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f")


def clean(value, field: str, most: int) -> str:
    """``value`` as a one-line name: NFKC, spaces collapsed, 1 to ``most`` characters,
    no control characters (UserError naming ``field`` otherwise)."""
    if not isinstance(value, str):
        raise UserError("field.not_text", code="invalid_field", details={"field": field},
                        field=field)
    text = unicodedata.normalize("NFKC", value)
    if any(unicodedata.category(c) in ("Cc", "Cs", "Co") or c in _BIDI for c in text):
        raise UserError("field.control_characters", code="invalid_field",
                        details={"field": field}, field=field)
    text = " ".join(text.split())
    if not text:
        raise UserError("field.required", code="invalid_field", details={"field": field},
                        field=field)
    if len(text) > most:
        raise UserError("field.too_long", code="invalid_field", details={"field": field},
                        field=field, most=most)
    return text


def sign_in_name(value) -> str:
    """A staff sign-in name as stored and compared: NFKC, then case-folded."""
    text = unicodedata.normalize("NFKC", value if isinstance(value, str) else "")
    return unicodedata.normalize("NFKC", " ".join(text.split()).casefold())


MAX_DIGITS = 19
"""Digits a whole number from a request may have (2^63-1, SQLite's largest, has 19)."""


def whole_number(raw) -> int | None:
    """``raw`` as a whole number when it is 1 to :data:`MAX_DIGITS` ASCII digits ``0-9``,
    else None.

    ``str.isdigit()`` also takes ``²``, ``١`` and ``１`` (which ``int()`` then refuses or
    reads as another script's number): every number a person or a script types goes
    through here instead."""
    if not isinstance(raw, str) or not 0 < len(raw) <= MAX_DIGITS:
        return None
    if not (raw.isascii() and raw.isdigit()):
        return None
    return int(raw)
