"""A SUT environment a runtime prepared (``Prepared``), and the Python that lists what is installed in
one (``LIST_PACKAGES``): what every runtime builds on (``lab.runtime`` names ``Prepared`` too)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lab.profile import Profile

#: Python run inside a SUT environment to list it: {"python": version, "packages": {name: version},
#: "requires": {name: [requirement, ...]}} (each package's Requires-Dist: what ``memlab compare``
#: follows for the SUT's dependency closure). Run it isolated (``python -I``): otherwise the working
#: folder is on the path and, in a source checkout, the lab's own ``*.egg-info`` shows up as a package.
LIST_PACKAGES = ("import importlib.metadata as m, json, platform; ds = list(m.distributions()); print(json.dumps("
                 "{'python': platform.python_version(), 'packages': {d.metadata['Name']: d.version for d in ds}, "
                 "'requires': {d.metadata['Name']: d.requires or [] for d in ds}}))")


@dataclass(frozen=True)
class Prepared:
    """A SUT environment ready to launch: how to start the driver and what is installed."""

    profile: Profile
    runtime: str
    python: str
    packages: dict[str, str] = field(default_factory=dict)
    detail: dict[str, Any] = field(default_factory=dict)
