"""Word sent through real channels (LINE, e-mail), from an outbox in the club file.

* :mod:`.outbox`: the ``outbox`` and ``staff_contacts`` tables (migration set ``notify``)
  and the queueing the club's writes call in their own transaction;
* :mod:`.words`: what a message says, from the catalogue at send time;
* :mod:`.channels`: LINE Messaging API push and SMTP;
* :mod:`.config`: ``[notify]`` in ``club.toml`` and the 0600 secrets file;
* :mod:`.sender`: the process that sends (``python -m club.notify``), never a request.
"""
