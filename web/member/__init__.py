"""A member's own page, reached by the personal link the desk issues (blueprint ``member``,
under ``/m``). Japanese first, ``?lang=en`` for English; phone-first.

Its views are in :mod:`web.member.views`."""

from web.member import own  # noqa: F401  (its routes register on bp)
from web.member.views import bp

__all__ = ["bp"]
