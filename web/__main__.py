"""``python -m web``: see :mod:`web.cli`."""

import sys

from .cli import main

sys.exit(main())
