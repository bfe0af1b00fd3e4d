"""The result set: rows and observations on disk (read into the judge's types,
:mod:`lab.judge.observation`), canonical encoding (RFC 8785) and digests, the manifest with its
decision rules, verification, the independent recount, signatures, re-derivation (analyze),
comparison and the CI gate.

May import: ``lab.profile``, ``lab.cases``, ``lab.judge`` (rows are derived by the judge) and
``lab.moments`` (the named moments of a run).
"""
