"""pytest plugin for a team's CI: run memlab rows in the lab's container and assert on levels.

Installed with the lab (entry point ``pytest11``), it gives the fixture ``memlab``::

    # tests/test_memory_integrity.py in your project
    def test_our_memory_reaches_l3(memlab):
        result = memlab.run("our-memory", profiles="memlab/")   # profiles + drivers of your own
        assert result.exit_code == 0, result.output
        assert result.level("our-memory") >= "L3"        # by rank; False for a row not evaluated
        assert result.accepted() == []

``memlab.run(*rows, profiles=None, args=())`` runs ``memlab run --runtime docker`` for
those rows (names or globs) in ``memlab/lab:latest`` (built on first use, from the
base image ``memlab images build`` makes) through testcontainers, and returns a
:class:`Matrix` of the result set: ``result.row("our-memory")`` is the row's JSON, ``result.record(...)``
the lab's typed row record (lab.judge.row.AtRestRow: ``.cells["T1"].verdict``). Needs a Docker engine; no
registry.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:  # read at a run's end only: loading the plugin imports none of the lab
    from lab.judge.row import AtRestRow


#: The levels a row can reach, lowest first (lab.resultset.gate_choices.LEVELS).
LEVEL_ORDER = ("L0", "L1", "L2", "L3", "L4")
#: What :meth:`Matrix.level` returns for a row that could not be evaluated.
NOT_EVALUABLE = "none"


class Level(str):
    """A row's level that compares as a level: ``Level("L4") >= "L3"`` is True by rank, not by the
    letters of the string. A row that was not evaluated is ``Level("none")``: below every level, so
    ``>=`` and ``>`` against any level are False (a CI assertion ``level >= "L3"`` fails for a row never
    measured). It is a ``str``: ``str(level)``, ``level == "L3"`` and JSON keep working. Comparing with
    anything that is no level (``"l3"``, ``"L9"``) raises ValueError."""

    def __new__(cls, value: str | None) -> "Level":
        value = NOT_EVALUABLE if value is None else str(value)
        if value not in LEVEL_ORDER and value != NOT_EVALUABLE:
            raise ValueError(f"{value!r} is not a level (one of {', '.join(LEVEL_ORDER)}, or {NOT_EVALUABLE!r})")
        return super().__new__(cls, value)

    @property
    def evaluable(self) -> bool:
        """Whether the row was evaluated (it has a level)."""
        return str(self) != NOT_EVALUABLE

    @property
    def rank(self) -> int:
        """0..4 for L0..L4; -1 when not evaluable."""
        return LEVEL_ORDER.index(str(self)) if self.evaluable else -1

    @staticmethod
    def _rank(other: object) -> int:
        if not isinstance(other, str):
            raise TypeError(f"a level compares with a level or a string like 'L3', not {type(other).__name__}")
        return Level(other).rank

    def __ge__(self, other: object) -> bool:  # type: ignore[override]
        rank = self._rank(other)  # a bad level raises even when this one is not evaluable
        return self.evaluable and self.rank >= rank

    def __gt__(self, other: object) -> bool:  # type: ignore[override]
        rank = self._rank(other)
        return self.evaluable and self.rank > rank

    def __le__(self, other: object) -> bool:  # type: ignore[override]
        return self.rank <= self._rank(other)

    def __lt__(self, other: object) -> bool:  # type: ignore[override]
        return self.rank < self._rank(other)

    __eq__ = str.__eq__
    __hash__ = str.__hash__

    def __repr__(self) -> str:
        return f"Level({str(self)!r})"


@dataclass
class Matrix:
    """A finished run: its exit code, what it printed, and its rows."""

    exit_code: int
    output: str
    out: Path
    rows: list[AtRestRow]

    def record(self, name: str, point: str = "read") -> AtRestRow:
        """The row ``name`` at detection point ``point``, as the lab's typed row record."""
        for row in self.rows:
            if row.row == name and row.detection_point == point:
                return row
        raise KeyError(f"no row {name}@{point} in {self.out} (rows: {[r.row for r in self.rows]})")

    def row(self, name: str, point: str = "read") -> dict:
        """The row ``name`` at detection point ``point``, as its JSON (``row(...)["cells"]["T1"]["verdict"]``,
        as the plugin has always given it; :meth:`record` gives the typed record)."""
        return self.record(name, point).to_json()

    def level(self, name: str, point: str = "read") -> Level:
        """The row's :class:`Level`, ``L0``..``L4``, compared by rank (``level >= "L3"``); ``Level("none")``
        when the row could not be evaluated, which reaches no level (``>=``/``>`` any level is False)."""
        return Level(self.record(name, point).level)

    def verdicts(self, name: str, point: str = "read") -> dict[str, str]:
        """Case id -> verdict of one row."""
        return {cid: cell.verdict for cid, cell in self.record(name, point).cells.items()}

    def accepted(self) -> list[str]:
        """Every ACCEPTED cell as ``row@point:case``."""
        return [f"{r.row}@{r.detection_point}:{cid}" for r in self.rows
                for cid, cell in r.cells.items() if cell.verdict == "ACCEPTED"]


class LabRunner:
    """Runs the lab's container once per call; each run gets its own result folder."""

    def __init__(self, root: Path):
        self.root, self.runs = Path(root), 0

    def run(self, *rows: str, profiles: str | Path | None = None, args: tuple[str, ...] = (),
            timeout: float = 1800) -> Matrix:
        """``memlab run --runtime docker --sut ROW ...`` in the lab's container."""
        from lab.judge.row import read_row
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
        found = [read_row(json.loads(p.read_text())) for p in sorted((out / "rows").glob("*.json"))]
        return Matrix(code, output, out, found)


@pytest.fixture(scope="session")
def memlab(tmp_path_factory) -> LabRunner:
    """Run memlab rows in the lab's container (testcontainers) and assert on the result."""
    return LabRunner(tmp_path_factory.mktemp("memlab-results"))
