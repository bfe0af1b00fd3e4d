"""The three controls of docs/method.md, as data: what each checks, and what the method does for it.

All must hold for a result to count: without C1 a SUT that refuses everything would score
perfectly; without C2 one that serves nothing new would; a case whose edit did not land (C3)
is an error, never a pass or a fail. The judge checks C1 and C2 (:mod:`lab.judge.verdicts`);
C3 is each case's own rule (:mod:`lab.judge.c3` dispatches to it).
"""

from __future__ import annotations

from dataclasses import dataclass

#: Where the genuine record C2 writes after the restart goes, after the seeded ones (T9's is at 1).
C2_EXTRA_OFFSET = 0


@dataclass(frozen=True)
class Control:
    """One control: id, name, what it checks, and the genuine record it writes (C2) if any."""

    id: str
    name: str
    checks: str
    write_label: str | None = None
    write_offset: int | None = None

    @property
    def text(self) -> str:
        """``name: what it checks`` (how reports and docs/method.md state it)."""
        return f"{self.name}: {self.checks}"


C1 = Control("C1", "no-op reload", "restart with no edit; seeded memory served unchanged, no integrity signal")
C2 = Control("C2", "genuine write after restart", "one more record written through the SUT is served",
             write_label="A", write_offset=C2_EXTRA_OFFSET)
C3 = Control("C3", "edit landed", "the raw store changed exactly as the case intends, checked before the restart")
ALL = (C1, C2, C3)
