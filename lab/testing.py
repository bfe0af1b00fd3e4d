"""pytest plugin for a team's CI: run memlab rows in the lab's container and assert on levels.

Installed with the lab (entry point ``pytest11``), it gives the fixture ``memlab``::

    # tests/test_memory_integrity.py in your project
    def test_our_memory_reaches_l3(memlab):
        result = memlab.run("our-memory", profiles="memlab/")   # profiles + drivers of your own
        assert result.exit_code == 0, result.output
        assert result.level("our-memory") >= "L3"
        assert result.accepted() == []

``memlab.run(*rows, profiles=None, args=())`` runs ``memlab run --runtime docker`` for
those rows (names or globs) in ``memlab/lab:latest`` (built on first use, from the
base image ``memlab images build`` makes) through testcontainers, and returns a
:class:`Matrix` of the result set. Needs a Docker engine; no registry.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest


@dataclass
class Matrix:
    """A finished run: its exit code, what it printed, and its rows."""

    exit_code: int
    output: str
    out: Path
    rows: list[dict[str, Any]]

    def row(self, name: str, point: str = "read") -> dict[str, Any]:
        """The row ``name`` at detection point ``point``."""
        for row in self.rows:
            if row["row"] == name and row["detection_point"] == point:
                return row
        raise KeyError(f"no row {name}@{point} in {self.out} (rows: {[r['row'] for r in self.rows]})")

    def level(self, name: str, point: str = "read") -> str:
        """The row's level, ``L0``..``L4`` (compare with ``>=``); ``"none"`` when not evaluable."""
        return self.row(name, point).get("level") or "none"

    def verdicts(self, name: str, point: str = "read") -> dict[str, str]:
        """Case id -> verdict of one row."""
        return {cid: cell["verdict"] for cid, cell in self.row(name, point)["cells"].items()}

    def accepted(self) -> list[str]:
        """Every ACCEPTED cell as ``row@point:case``."""
        return [f"{r['row']}@{r['detection_point']}:{cid}" for r in self.rows
                for cid, cell in r["cells"].items() if cell["verdict"] == "ACCEPTED"]


class LabRunner:
    """Runs the lab's container once per call; each run gets its own result folder."""

    def __init__(self, root: Path):
        self.root, self.runs = Path(root), 0

    def run(self, *rows: str, profiles: str | Path | None = None, args: tuple[str, ...] = (),
            timeout: float = 1800) -> Matrix:
        """``memlab run --runtime docker --sut ROW ...`` in the lab's container."""
        from lab.runtime.images import ensure_lab
        from lab.runtime.labcontainer import LabContainer

        ensure_lab()
        self.runs += 1
        name = f"run{self.runs}"
        argv = ["run", "--runtime", "docker", "--out", f"/work/results/{name}",
                *(a for row in rows for a in ("--sut", row)), *args]
        if profiles is not None:
            argv += ["--profiles", "/work/profiles"]
        with LabContainer(argv, results=self.root, profiles=Path(profiles) if profiles else None) as lab:
            code = lab.wait_for_exit(timeout)
            output = lab.output()
        out = self.root / name
        found = [json.loads(p.read_text()) for p in sorted((out / "rows").glob("*.json"))]
        return Matrix(code, output, out, found)


@pytest.fixture(scope="session")
def memlab(tmp_path_factory) -> LabRunner:
    """Run memlab rows in the lab's container (testcontainers) and assert on the result."""
    return LabRunner(tmp_path_factory.mktemp("memlab-results"))
