"""``python -m flashpoc.cli``: the ``flashpoc`` command."""

import sys

from flashpoc.cli import main

if __name__ == "__main__":
    sys.exit(main())
