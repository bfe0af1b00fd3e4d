"""The project cites only itself: no committed file points a reader at a document or a path outside
the repository (docs/design.md, "Habits").

The method, the lifecycle method and the design are the project's own documents (docs/method.md,
docs/lifecycle.md, docs/design.md). A file that names the guides they replaced -- by their old
capitalised names -- or an absolute path under the build machine's /work, or a folder beside the
checkout, sends a contributor who cloned the project to something they cannot open. The result
sets under results/ are evidence, pinned byte for byte, and are not read here.

Two places name such a path on purpose, and only they may:
- scripts/test.d/40-peers.sh looks for the source of the peer gate memorycheck (on no package
  registry) at $MEMLAB_MEMORYCHECK_SOURCE, by default in shared/peers/memorycheck beside the checkout
  or the folder above it;
- the lab's own image works in /work (images/lab.Dockerfile: ``WORKDIR /work``), where a run's
  results and a team's profiles are mounted: paths inside that container, on no machine's disk.

This file names what it looks for, and is not read either.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SELF = "tests/unit/test_no_outside_citations.py"
#: The guides outside the repository, by the names they were cited by.
GUIDES = re.compile(r"\b(?:METHOD|DESIGN|LIFECYCLE|SUT_NOTES)\.md\b")
#: An absolute path under /work (the build machine's folders), not part of a longer path or word.
WORK = re.compile(r"(?<![\w.~/-])/work/[^\s\"'`)\]>,;]*")
#: A relative path that climbs out of the checkout into a shared folder beside it.
BESIDE = re.compile(r"(?:\.\./)+shared/[^\s\"'`)\]}>,;]*")

#: (file, pattern, the paths it may name there): the deliberate exceptions, and nothing else.
ALLOWED = {
    ("scripts/test.d/40-peers.sh", "BESIDE"): {"../shared/peers/memorycheck", "../../shared/peers/memorycheck"},
    ("compose/docker-compose.yml", "WORK"): {"/work/results", "/work/results/compose"},
    ("lab/runtime/labcontainer.py", "WORK"): {"/work/results", "/work/profiles"},
    ("lab/testing.py", "WORK"): {"/work/results/{name}", "/work/profiles"},
    ("tests/docker/test_lab_container.py", "WORK"): {"/work/results/{out.name}"},
}


def project_files() -> list[str]:
    """Every file git tracks, but the result sets (evidence) and this one."""
    out = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, check=True).stdout
    return sorted(f for f in out.decode().split("\0") if f and not f.startswith("results/") and f != SELF)


def text_of(name: str) -> str | None:
    """The file's text, or None for a binary file (or one removed from the working tree)."""
    path = ROOT / name
    if not path.is_file():
        return None
    data = path.read_bytes()
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def outside_citations(name: str, text: str) -> list[str]:
    """``file:line: what it cites`` for every citation outside the repository not allowed in ``name``."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        for kind, pattern in (("GUIDES", GUIDES), ("WORK", WORK), ("BESIDE", BESIDE)):
            for match in pattern.finditer(line):
                if match.group(0) not in ALLOWED.get((name, kind), set()):
                    found.append(f"{name}:{number}: {match.group(0)}")
    return found


def test_no_project_file_cites_a_file_outside_the_repository():
    files = project_files()
    assert len(files) > 100, "git ls-files listed almost nothing: not a checkout?"
    found = [hit for name in files if (text := text_of(name)) is not None for hit in outside_citations(name, text)]
    assert found == [], ("cite the project's own documents (docs/method.md, docs/lifecycle.md, "
                         "docs/design.md) and paths inside the repository:\n" + "\n".join(found))


def test_the_exceptions_are_still_there():
    """Each allowed path is still named where it is allowed (an exception nothing needs goes)."""
    missing = []
    for (name, kind), paths in ALLOWED.items():
        text = text_of(name) or ""
        pattern = {"WORK": WORK, "BESIDE": BESIDE}[kind]
        named = {m.group(0) for m in pattern.finditer(text)}
        missing += [f"{name}: {p}" for p in sorted(paths - named)]
    assert missing == [], "allowed but no longer named (drop them from ALLOWED):\n" + "\n".join(missing)
    assert re.search(r"^WORKDIR /work$", (ROOT / "images" / "lab.Dockerfile").read_text(), re.M), \
        "the lab's image no longer works in /work: its paths are no exception any more"


def test_the_check_finds_what_it_looks_for():
    """The patterns catch a guide's name, a path under /work and a folder beside the checkout."""
    guide, work, beside = "METHOD.md", "/work/shared/x", "../shared/y"
    assert outside_citations("docs/x.md", f"see {guide}") == [f"docs/x.md:1: {guide}"]
    assert outside_citations("lab/x.py", f'open("{work}")') == [f"lab/x.py:1: {work}"]
    assert outside_citations("lab/x.py", f"a {beside} b") == [f"lab/x.py:1: {beside}"]
    assert outside_citations("lab/x.py", "docs/method.md and tests/x/work/y and lab.METHOD_REVISION") == []
