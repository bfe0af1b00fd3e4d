"""The result set: rows and observations on disk (read into the judge's types,
:mod:`lab.judge.observation`), canonical encoding (RFC 8785) and digests, the manifest with its
decision rules, verification, the independent recount, signatures, re-derivation (analyze),
comparison and the CI gate; a composition's trials and rows on disk.

May import: ``lab.profile``, ``lab.cases``, ``lab.judge`` (rows are derived by the judge),
``lab.compose`` (so are compose rows) and ``lab.moments`` (the named moments of a run).
"""
