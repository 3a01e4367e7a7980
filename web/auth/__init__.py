"""Staff sign-in and tablet pairing (blueprint ``auth``, under ``/auth``).

Its views are in :mod:`web.auth.views`."""

from web.auth.views import bp

__all__ = ["bp"]
