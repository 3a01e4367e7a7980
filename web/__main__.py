"""``python -m web``: see :mod:`web.cli`."""

import sys

from web.cli import main

sys.exit(main())
