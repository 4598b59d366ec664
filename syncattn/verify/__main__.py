"""``python -m syncattn.verify``: the same as ``syncattn verify``."""

import sys

from . import main


sys.exit(main())
