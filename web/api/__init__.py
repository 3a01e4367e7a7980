"""The JSON API: everything the tablet page does, for scripts and other clients too.

Its views are in :mod:`web.api.views`."""

from web.api import table_floor  # noqa: F401  (the floor's tablet routes register on bp)
from web.api.views import bp

__all__ = ["bp"]
