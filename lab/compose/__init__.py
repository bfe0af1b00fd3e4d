"""Composition: sequences of moves that land where no single move does (docs/composition.md). Pure: the
moves and the sequences searched, the edit moves a row's saved trials offer, each sequence's verdict
beside its moves alone, the typed compose row. The method runs the sequences
(:mod:`lab.method.composition`); the result set saves and verifies them (:mod:`lab.resultset.composition`).

May import: ``edits``, ``lab.cases`` and ``lab.judge``.
"""
