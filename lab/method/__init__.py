"""The method (the procedure of docs/method.md): per case a fresh copy of the seeded volumes, the SUT
stopped, one fault step (an edit by a generic editor, or a restore around the SUT's own
operation), C3 before the restart, then restart, read and observe; rows and, once a row is
seeded, its trials side by side; a composition's sequences of moves around each edit.

It only observes: raw observations are saved as they happen; verdicts are the judge's.
May import: ``edits``, ``lab.profile``, ``lab.driver``, ``lab.runtime``, ``lab.cases``,
``lab.judge`` (C3 on the evidence it just took), ``lab.compose`` (the sequences a composition runs),
``lab.resultset`` (to write what it saw) and
``lab.moments`` (the named moments of a run). A killed run resumes (:mod:`lab.method.resume`).
"""
