"""``python -m ir_measures_graded``: the sample evaluation on bundled data."""

from ir_measures_graded.sample import main

if __name__ == "__main__":
    main()
