"""How an SQL statement names a table or a column: in double quotes, a quote inside doubled.

Its own module so that every SQL piece (:mod:`edits.sql`, :mod:`edits.derived`, the dialects)
imports it at module top without importing the editor.

    >>> print(quote('a"b'))
    "a""b"
"""


def quote(name: str) -> str:
    """``name`` as an SQL identifier."""
    return '"' + name.replace('"', '""') + '"'
