"""The choices of the CI gate's options (lab.resultset.gate): ``--fail-on`` and ``--min-level``.

Apart from the gate, so that the commands that offer them (``memlab run --help``, ``memlab gate
--help``) load none of the judge; the levels are those of lab.judge.scoring's ladder after L0 (a test
holds them equal).
"""

#: ``--fail-on``: any ACCEPTED cell fails the gate (accepted), or also audit-only detection (partial).
FAIL_ON = ("accepted", "partial")
#: ``--min-level``: the levels a row can reach, lowest first.
LEVELS = ("L0", "L1", "L2", "L3", "L4")
