"""``python -m ir_measures_graded.datasets ...``: ir_datasets' own command line, with our collections.

ir_datasets has no plugin discovery, so its ``ir_datasets`` command does not know OHSUMED; this one
registers it first, e.g. ``python -m ir_measures_graded.datasets export ohsumed/letor3 qrels``.
Without ir_datasets installed it says which extra brings it, in one line.
"""

import sys


def main() -> int:
    try:
        import ir_datasets
    except ImportError:
        sys.stderr.write("ir-measures-graded datasets: error: this needs ir_datasets: "
                         "pip install 'ir-measures-graded[datasets]'\n")
        return 2
    from ir_measures_graded.datasets import ohsumed  # noqa: F401  (registers the datasets)

    ir_datasets.main_cli()
    return 0


if __name__ == "__main__":
    sys.exit(main())
