"""Reports rendered from a result set's rows: terminal, Markdown, JUnit XML, HTML.

May import: ``lab.cases``, ``lab.judge``, ``lab.resultset``, ``lab.lifecycle`` (its results) and
``lab.frontdoor`` (its results).
"""
