"""Staff console (blueprint ``staff``, under ``/staff``); every route needs a staff sign-in.

Pages (Japanese first, ``?lang=en`` for English) and their JSON twins:

* ``/staff/``                  floor view, polling ``/staff/floor.json`` every 2 s
* ``/staff/tables/<id>/command`` mode change, cycle, check... through ``tablectl.store``
* ``/staff/tables/<id>/mode``  the guided mode change (what the drawers need, live)
* ``/staff/players/<id>/member`` a member's own-page link, PIN and member card
* ``/staff/players/<id>/chain`` the member's chain member id, a card from another branch,
  merging two records of one person
* ``/staff/players``, ``/staff/rulesets``, ``/staff/tablets``, ``/staff/accounts``
* ``/staff/waiting``           the waiting list, seating free tables (a seat draw)
* ``/staff/nights``            event nights: random seating, then swiss rounds
* ``/staff/games``             games: correct, strike, restore, void, swap seats (audited)
* ``/staff/audit``             the audit log
* ``/staff/report``            the daily report (日報) and every player's account for the day
* ``/staff/standings``         the club's dan table and seasons (TOML)
* ``/staff/report-cards``      a member's report card and the day's R risers, printable
* ``/staff/printing``          the receipt printer: its state, the print queue
* ``/staff/players/<id>/data``  a member's data: its download, the erasure of it
* ``/staff/notify``            staff contacts for calls, the outbox of word sent (LINE, e-mail)
* ``/staff/money``             the club's money per rule set, the fee caps, the fee list
* ``/staff/till``              the till: each player's account checked off, the drawer
* ``/staff/tables/<id>/camera`` a table's camera: its picture, the digits' region (dragged)
"""

from web.staff import (  # noqa: E402,F401  (their routes register on it)
    camera,
    chain_desk,
    floor_page,
    manage,
    member_data,
    members,
    modes,
    money_page,
    names,
    notify,
    printing,
    records,
    report,
    report_cards,
    waiting_page,
)
from web.staff.common import bp  # noqa: F401  (the blueprint, defined beside the views' helpers)
