"""``python -m ir_measures_graded``: the same command line as ``ir-measures-graded``."""

import sys

from ir_measures_graded.cli import console

if __name__ == "__main__":
    sys.exit(console())
