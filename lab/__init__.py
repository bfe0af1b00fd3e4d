"""memlab: a fault-injection lab for the integrity of agent memory at rest."""

__version__ = "0.1.0"

#: Revision of ../METHOD.md this lab implements (draft-khandelwal-bpm-agent-memory-integrity), and of
#: the lab's variants of a case (docs/method.md, "Variants"): every expression of a case the store
#: allows is a trial of its own, and a cell is the weakest of them for the SUT.
METHOD_REVISION = "bpm-agent-memory-integrity-00+variants-1"
