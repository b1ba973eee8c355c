"""``python -m hallubench.cli``."""

import sys

from hallubench.cli import main

sys.exit(main())
