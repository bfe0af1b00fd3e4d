"""Generic storage editors: read records and apply edits per backend.

This package must never import code of a system under test; a test enforces it.
"""
