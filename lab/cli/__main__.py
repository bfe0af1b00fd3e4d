"""``python -m lab.cli``: the memlab command line."""

from lab.cli import main

main()
