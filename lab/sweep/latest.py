"""``memlab run --sut ROW --latest``: the row measured with the newest release of its SUT package, cell
by cell beside its pinned published set, with the exit code of a gate.

The published set (``results/published/<row>/``, its lifecycle set in ``lifecycle/``) is verified
first. The newest release the registry serves (pre-releases aside) is resolved and measured exactly as
a sweep measures a release (:mod:`lab.sweep.runner`: the row's pins, that release in place of the
pinned one; its own row ``<row>_v<version>``; at rest, and the lifecycle gate when the row takes it,
with the published set's runtime and ``--fail-on``), and its cells compared with the published ones.

Codes: 0 every cell and check the same, 1 a verdict (of a cell, or of one of the expressions of a case a
cell is the weakest of: lab.sweep.lineup) or a check changed, 2 the newest release could not
be measured (not installable, a run that failed, a set that does not verify) or the published set
cannot be compared (missing, not verifying).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from packaging.version import Version

from lab.profile import Profile
from lab.resultset.loading import Unreadable
from lab.runtime.housekeeping import cache_dir
from lab.sweep.lineup import ABSENT, differing, set_cells, set_variants
from lab.sweep.measure import Measured, Options, measure_release, verify_sets
from lab.sweep.registry import served_versions
from lab.sweep.resolve import pinned_version, resolve
from lab.sweep.versionrow import check_sweepable, write_version_row

SAME, CHANGED, NOT_MEASURED = 0, 1, 2


@dataclass
class Latest:
    """The newest release beside the published set: the cells of each and what differs."""

    row: str
    package: str
    pinned: str
    newest: str | None = None
    code: int = NOT_MEASURED
    message: str = ""
    published: dict[str, str] = field(default_factory=dict)
    cells: dict[str, str] = field(default_factory=dict)
    changed: list[str] = field(default_factory=list)
    published_variants: dict[str, str] = field(default_factory=dict)
    variants: dict[str, str] = field(default_factory=dict)
    changed_variants: list[str] = field(default_factory=list)   # expressions of a case whose verdict changed
    out: Path | None = None
    released: list[dict] = field(default_factory=list)

    def table(self) -> list[list[str]]:
        """A line per cell: name, published, newest, and ``changed`` where they differ; then a line per
        expression of a case (variant) that changed."""
        return ([[name, self.published.get(name, ABSENT), self.cells.get(name, ABSENT),
                  "changed" if name in self.changed else ""] for name in dict.fromkeys([*self.published, *self.cells])]
                + [[name, self.published_variants.get(name, ABSENT), self.variants.get(name, ABSENT), "changed"]
                   for name in self.changed_variants])


def newest(package: str) -> str:
    """The newest release (no pre-release) the registry serves of ``package``."""
    served = served_versions(package)
    releases = [v for v in served if not Version(v).is_prerelease] or served
    return releases[-1]


def published_cells(published: Path) -> dict[str, str]:
    """The cells of a row's published set, once it verifies (``Unreadable`` when it cannot serve)."""
    sets = {}
    if (published / "manifest.json").is_file():
        sets["at_rest"] = str(published)
    if (published / "lifecycle" / "manifest.json").is_file():
        sets["lifecycle"] = str(published / "lifecycle")
    if not sets:
        raise Unreadable(f"{published} holds no published set of this row (no manifest.json there or in "
                         "lifecycle/); --latest compares the newest release with it: give --published DIR")
    problems = verify_sets(sets)
    if problems:
        raise Unreadable("the published set does not verify: " + "; ".join(problems))
    return set_cells(published)


def run_latest(profile: Profile, published: Path, out: Path, options: Options) -> Latest:
    """Measure ``profile``'s row with its package's newest release into ``out``; compare with ``published``."""
    check_sweepable(profile)
    pins = (profile.driver_dir / "requirements.txt").read_text(encoding="utf-8")
    package = str(profile.sut["package"])
    result = Latest(profile.row, package, pinned_version(pins, package) or str(profile.sut.get("version")), out=out)
    result.published = published_cells(published)
    result.published_variants = set_variants(published)
    result.newest = newest(package)
    resolution = resolve(pins, package, result.newest)
    if not resolution.ok:
        result.message = f"{package} {result.newest} could not be installed in the row's environment:\n{resolution.message}"
        return result
    result.released = resolution.released
    scratch = cache_dir() / "sweeps" / hashlib.sha256(str(out.resolve()).encode()).hexdigest()[:12] / result.newest
    row = write_version_row(profile, result.newest, resolution.requirements, scratch)
    measured: Measured = measure_release(result.newest, row, scratch, out, "at_rest" in profile.measurements,
                                         "lifecycle" in profile.measurements, options)
    if measured.status != "measured":
        result.message = f"{package} {result.newest}: {measured.status}: {measured.message}"
        return result
    result.cells, result.variants = measured.cells or {}, measured.variants or {}
    result.changed = differing(result.published, result.cells)
    result.changed_variants = [name for name in differing(result.published_variants, result.variants)
                               if name in result.published_variants and name in result.variants]
    result.code = CHANGED if result.changed or result.changed_variants else SAME
    return result
