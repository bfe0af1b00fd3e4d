"""What the steps of one row share: its profile, the seed plan, the test bed and the sessions."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lab.cases.seedplan import SeedPlan
from lab.method.bed import Bed
from lab.method.sessions import Sessions
from lab.profile import Profile


@dataclass(frozen=True)
class Row:
    """One row's context, handed to every step."""

    profile: Profile
    plan: SeedPlan
    bed: Bed
    sessions: Sessions
    #: Where the seeded volumes are kept until the row ends, so a killed run resumes from them.
    kept: Path | None = None
