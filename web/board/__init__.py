"""The public board (blueprint ``board``, ``/board``): the waiting list as players see it
on a wall screen or their phone, with each place and the estimated wait, and which
tables are free; it refreshes itself. Open to everyone on the club network (names only,
as on the club"s whiteboard), Japanese first, ``?lang=en`` for English.

Its views are in :mod:`web.board.views`."""

from web.board.views import bp

__all__ = ["bp"]
