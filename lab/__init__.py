"""memlab: a fault-injection lab for the integrity of agent memory at rest."""

__version__ = "0.1.0"

#: Revision of ../METHOD.md this lab implements (draft-khandelwal-bpm-agent-memory-integrity).
METHOD_REVISION = "bpm-agent-memory-integrity-00"
