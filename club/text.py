"""Names and labels people type: normalised once, control and invisible characters refused.

``ＳＴＡＦＦ`` and ``STAFF`` are the same name after Unicode NFKC; a sign-in
name is also case-folded (``Émilie`` signs in as ``émilie``), in Python, at
creation and at sign-in, so the database compares plain strings.
"""

from __future__ import annotations

import unicodedata

from club.errors import UserError

# Bidirectional overrides and isolates reorder what a screen shows.
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f")
# Default-ignorable characters outside category Cf: shown as nothing (or a blank), so
# "Player\u200b001" would sit beside "Player001" looking the same.
_INVISIBLE = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180f"
                       "\u3164\uffa0\u2800")


def _variant_of(c: str, base: str) -> bool:
    """Whether ``c`` is a variation selector that changes how ``base`` looks: an
    ideographic one (U+E0100-E01EF) after a kanji, a standard one (U+FE00-FE0F) after
    a symbol such as an emoji."""
    if "\U000e0100" <= c <= "\U000e01ef":
        return unicodedata.name(base, "").startswith("CJK UNIFIED IDEOGRAPH")
    if "\ufe00" <= c <= "\ufe0f":
        return unicodedata.category(base) == "So"
    return False


def _selector(c: str) -> bool:
    return "\ufe00" <= c <= "\ufe0f" or "\U000e0100" <= c <= "\U000e01ef"


def invisible_at(text: str) -> int | None:
    """Where ``text`` holds a character a screen does not show, or None.

    Category Cf (zero-width spaces and joiners, the BOM, soft hyphens, word joiners,
    tags...) and the other default-ignorables are invisible. A variation selector is
    taken only where it changes the character before it (a kanji's variant form, an
    emoji's look); anywhere else it shows nothing either."""
    for i, c in enumerate(text):
        if unicodedata.category(c) == "Cf" or c in _INVISIBLE:
            return i
        if _selector(c) and (i == 0 or not _variant_of(c, text[i - 1])):
            return i
    return None


def clean(value: object, field: str, most: int) -> str:
    """``value`` as a one-line name: NFKC, spaces collapsed, 1 to ``most`` characters,
    no control characters and nothing a screen does not show (:func:`invisible_at`), so
    two names that look alike are alike (UserError naming ``field`` otherwise)."""
    if not isinstance(value, str):
        raise UserError("field.not_text", code="invalid_field", details={"field": field},
                        field=field)
    text = unicodedata.normalize("NFKC", value)
    if any(unicodedata.category(c) in ("Cc", "Cs", "Co") or c in _BIDI for c in text):
        raise UserError("field.control_characters", code="invalid_field",
                        details={"field": field}, field=field)
    if invisible_at(text) is not None:
        raise UserError("field.invisible_characters", code="invalid_field",
                        details={"field": field}, field=field)
    text = " ".join(text.split())
    if not text:
        raise UserError("field.required", code="invalid_field", details={"field": field},
                        field=field)
    if len(text) > most:
        raise UserError("field.too_long", code="invalid_field", details={"field": field},
                        field=field, most=most)
    return text


def sign_in_name(value: object) -> str:
    """A staff sign-in name as stored and compared: NFKC, then case-folded."""
    text = unicodedata.normalize("NFKC", value if isinstance(value, str) else "")
    return unicodedata.normalize("NFKC", " ".join(text.split()).casefold())


MAX_DIGITS = 19
"""Digits a whole number from a request may have (2^63-1, SQLite's largest, has 19)."""


def whole_number(raw: object) -> int | None:
    """``raw`` as a whole number when it is 1 to :data:`MAX_DIGITS` ASCII digits ``0-9``,
    else None.

    ``str.isdigit()`` also takes ``²``, ``١`` and ``１`` (which ``int()`` then refuses or
    reads as another script's number): every number a person, a script or a request
    types goes through here instead."""
    if not isinstance(raw, str) or not 0 < len(raw) <= MAX_DIGITS:
        return None
    if not (raw.isascii() and raw.isdigit()):
        return None
    return int(raw)


def bounded_number(raw: str, field: str, low: int, high: int) -> int:
    """A whole number typed into ``field`` (a query parameter, a form field) between ``low``
    and ``high``, or a refusal in words naming the field and the bounds."""
    value = whole_number(raw)
    if value is None or not low <= value <= high:
        raise UserError("field.out_of_range", code="invalid_field", details={"field": field},
                        field=field, low=low, high=high, value=str(raw)[:20])
    return value


def text_of(data: dict, key: str) -> str | None:
    """An optional text field of a form or a JSON object: None when absent (or JSON null),
    else the text. A JSON number, boolean, list or object is a 422 naming the field, never
    read as text (``1.5``, ``nan``) nor as "not given" (``0``, ``false``, ``[]``)."""
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise UserError("field.not_text", status=422, code="invalid_field",
                        details={"field": key}, field=key)
    return value


EMAIL_MOST = 254
_LOCAL_OK = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                      "!#$%&'*+-/=?^_`{|}~.")
_LABEL_OK = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")


def email_address(value: object, field: str = "email") -> str:
    """``value`` as one e-mail address a mail server takes as one recipient, or a refusal
    naming ``field``: 254 characters at most (64 before the ``@``), no control or blank
    characters, exactly one ``@``, no list (``,`` ``;``), no display name or comment
    (``<>`` ``()`` quotes), no domain literal (``[127.0.0.1]``, a bare IP address), and
    a domain of at least two labels of letters, digits and inner hyphens (an
    international one in its IDNA form)."""
    def refuse() -> UserError:
        return UserError("field.bad_email", code="invalid_email", details={"field": field},
                         field=field)

    if not isinstance(value, str):
        raise refuse()
    address = value.strip()
    if not 3 <= len(address) <= EMAIL_MOST or address.count("@") != 1:
        raise refuse()
    if any(unicodedata.category(c)[0] in "CZ" for c in address):
        raise refuse()                        # control, format, blank: never in an address
    local, domain = address.split("@")
    if not 1 <= len(local) <= 64 or not set(local) <= _LOCAL_OK or \
            local.startswith(".") or local.endswith(".") or ".." in local:
        raise refuse()
    try:
        ascii_domain = domain.encode("idna").decode("ascii").lower()
    except UnicodeError:
        raise refuse() from None
    labels = ascii_domain.split(".")
    if len(ascii_domain) > 253 or len(labels) < 2 or labels[-1].isdigit():
        raise refuse()                        # a bare IP address is a domain literal too
    for label in labels:
        if not 1 <= len(label) <= 63 or not set(label) <= _LABEL_OK or \
                label.startswith("-") or label.endswith("-"):
            raise refuse()
    return address


def printable(text: str) -> str:
    """``text`` with printable characters only: every control character (C0 with ESC and
    the rest, DEL, C1), format and other invisible character, and a lone surrogate is
    dropped, so no text can carry a printer command (``ESC p`` a drawer kick, ``GS V`` a
    cut, ``ESC @`` a reset); a tab is a space. The one filter every text passes on its
    way to the printer (:func:`club.printing.receipt.encode`)."""
    text = text.replace("\t", " ")
    return "".join(c for c in text
                   if unicodedata.category(c) not in ("Cc", "Cf", "Cs", "Co", "Cn"))
