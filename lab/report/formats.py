"""The report formats by name, and the file each is written to in a result set (lab.report.files).

Apart from the renderers, so that the commands that name them (``memlab run --help``, ``memlab report
--help``) load none of them.
"""

#: The report files ``memlab run``, ``memlab analyze`` and ``memlab lifecycle run`` write into a result set,
#: by format (every format a result set's reports come in: lab.report.files renders each).
DEFAULT_FILES = {"markdown": "report.md", "junit": "junit.xml", "html": "report.html"}
