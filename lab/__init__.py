"""memlab: a fault-injection lab for the integrity of agent memory at rest.

Also here: the few constants the command line shows in its options' help (``memlab run --help``),
defined once where reading them loads no role; the roles that own them import them from here.
"""

from pathlib import Path

__version__ = "0.1.0"

#: Revision of docs/method.md this lab implements (draft-khandelwal-bpm-agent-memory-integrity), and of
#: the lab's variants of a case (docs/method.md, "Variants"): every expression of a case the store
#: allows is a trial of its own, and a cell is the weakest of them for the SUT.
METHOD_REVISION = "bpm-agent-memory-integrity-00+variants-1"

#: The runtimes a SUT runs on (lab.runtime.get_runtime; a run's ``auto`` is chosen by lab.runtime.choice).
RUNTIME_NAMES = ("auto", "local", "docker")
#: The checkout: the folder holding lab/ (lab.resultset.files asks git about it).
PROJECT_ROOT = Path(__file__).resolve().parent.parent
#: The folder of the shipped SUT profiles (lab.profile).
PROFILES_DIR = PROJECT_ROOT / "sut_profiles"
#: Records per context: the default and the method's minimum ("at least five records in each")
#: (lab.cases.seedplan).
RECORDS_PER_CONTEXT = 5
