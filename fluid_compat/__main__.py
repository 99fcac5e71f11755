"""``python -m fluid_compat``: the ``fluid-compat`` command."""

from __future__ import annotations

import sys

from fluid_compat.cli import main

if __name__ == "__main__":
    sys.exit(main())
