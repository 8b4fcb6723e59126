"""``python -m agentcodec``: the same as the ``agentcodec`` command."""

import sys

from .cli import main

sys.exit(main())
