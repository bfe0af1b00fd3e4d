"""The judge: pure functions from saved observations to C3 results, effect checks, verdicts,
cells (the weakest variant), scores and levels. No I/O, no processes: ``memlab analyze`` and
``memlab verify`` re-run it over a saved set, and tests feed it hand-made observations.

May import: ``edits`` (records and specs as data) and ``lab.cases``.
"""
