"""``python -m adk_memory_kit.cli``: the same as the ``adk-memory-kit`` command."""

import sys

from adk_memory_kit.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
