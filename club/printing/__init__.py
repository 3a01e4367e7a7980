"""Receipts on the club's ESC/POS thermal printer (58 or 80 mm), through a queue.

* :mod:`~club.printing.config`: the ``[printer]`` of ``club.toml`` (USB, network,
  a device file, or none), checked key by key;
* :mod:`~club.printing.documents`: the settlement sheet of a game, a member's
  report card and the daily report (日報), as lines for the paper's width;
* :mod:`~club.printing.receipt`: those lines as ESC/POS bytes through python-escpos;
* :mod:`~club.printing.queue`: the print queue (``print_jobs``) and the printer's
  state for the console; a request only enqueues;
* :mod:`~club.printing.worker`: the worker that prints the queue in order, retrying
  a printer that is down.

What a real printer must support: ESC/POS with a Japanese (Kanji) font and the Shift JIS
code system selected by ``FS C 1``, Kanji mode ``FS &``, the international set ``ESC R``,
character size ``GS !`` and a cutter (``GS V``). Japanese models do (Epson TM-T88/TM-T20/
TM-m30 "J" models, Star mC-Print3 and TSP100 JP, most 58 mm "Japanese" printers sold for
POS); a printer with a Chinese (GB18030) font prints the Japanese as the wrong characters.
"""
