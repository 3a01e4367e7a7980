"""``python -m tablectl``: the same as the ``tablectl`` console script."""

import sys

from .cli import main

sys.exit(main())
