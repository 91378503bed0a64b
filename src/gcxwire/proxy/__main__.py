"""``python -m gcxwire.proxy [options] -- <server command> [args...]``."""

import sys

from .cli import main

sys.exit(main())
