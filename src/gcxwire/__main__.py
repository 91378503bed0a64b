"""``python -m gcxwire``: the same command line as the ``gcxwire`` script."""

from .cli import main

raise SystemExit(main())
