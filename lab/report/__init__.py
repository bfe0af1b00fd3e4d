"""Reports rendered from a result set's rows: terminal, Markdown, JUnit XML, HTML.

May import: ``lab.cases``, ``lab.judge``, ``lab.resultset``, ``lab.lifecycle`` (its results),
``lab.frontdoor`` (its results) and ``lab.compose`` (its rows).
"""
