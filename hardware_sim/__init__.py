"""A simulator of the AMOS JP-EX automatic mahjong table speaking the
``tablectl.protocol`` wire protocol (docs/protocol.md).

* ``python -m hardware_sim --pty`` / ``--tcp PORT``: a table on a
  pseudo-terminal or a TCP port (``--help`` for every option);
* :class:`Simulator`: the same in process (``start()``/``stop()``,
  ``serve_pty()``, ``serve_tcp()``, fault injection methods);
* ``sim://`` pyserial URLs after :func:`register` (see
  :mod:`hardware_sim.protocol_sim`).
"""

from .faults import LinkFaults
from .protocol_sim import close_all, get, register
from .simulator import Simulator
from .table import TableConfig, TableModel
from .tiles import tile_set

__all__ = ["Simulator", "LinkFaults", "TableConfig", "TableModel", "tile_set",
           "register", "get", "close_all"]
