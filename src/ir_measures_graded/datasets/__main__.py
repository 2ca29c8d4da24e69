"""``python -m ir_measures_graded.datasets ...``: ir_datasets' own command line, with our collections.

ir_datasets has no plugin discovery, so its ``ir_datasets`` command does not know OHSUMED; this one
registers it first, e.g. ``python -m ir_measures_graded.datasets export ohsumed/letor3 qrels``.
"""

import ir_datasets

from ir_measures_graded.datasets import ohsumed  # noqa: F401  (registers the datasets)

if __name__ == "__main__":
    ir_datasets.main_cli()
