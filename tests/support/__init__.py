"""What the tests share, imported as ``from support import ...`` from any folder of tests/
(pyproject.toml's ``pythonpath = ["tests"]``):

- :mod:`support.paths` — the repository, the bundled sample collection, tests/data;
- :mod:`support.cli` — the command line run in process (``run_main``, ``error_of``) and as the
  installed console script in a subprocess (``cli``, ``fail``);
- :mod:`support.reference` — the slow, obviously correct reference of every measure;
- :mod:`support.registered` — every registered measure as test inputs;
- :mod:`support.measure_checks` — a measure against the reference, over tie orders, by threshold;
- :mod:`support.random_collections` — seeded random collections and hypothesis' ``collections()``;
- :mod:`support.slow_statistics` — slow rank correlations and the enumerated randomization test;
- :mod:`support.chosen_values` — experiments whose per-query values a test chooses (P@k of chosen hits);
- :mod:`support.doc_examples` — running the README's and the site's examples;
- :mod:`support.upstream_hook` — the plugin hook docs/upstream.md proposes to ir_measures, as a sketch.

Fixtures (a Spark session, Chromium, the OHSUMED home, the large report) are in tests/conftest.py.
"""
