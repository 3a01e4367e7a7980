"""Running the floor: what staff and players need beyond one game's hands.

Pure logic and its own tables, no Flask views (those are in :mod:`web.staff` and
:mod:`web.board`):

* :mod:`.modechange`: the guided mode change (which drawers need sticks for a mode);
* :mod:`.clock`: hands, minutes per hand and elapsed time from the table's own cycles,
  event-night time limits;
* :mod:`.waiting`: the waiting list (待ち席) and its estimated waits;
* :mod:`.seating`: proposals for a free table, seat draws, games made ready;
* :mod:`.pairing`: random seating and swiss pairing (pure);
* :mod:`.nights`: event nights (rounds of pairings, time limits);
* :mod:`.calls`: staff calls from the tablets (呼び出し).
"""
