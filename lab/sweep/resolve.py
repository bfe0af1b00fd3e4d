"""A release's requirements: the row's pinned environment with the release in place of the pinned one.

A row's ``requirements.txt`` pins its whole environment exactly (a ``pip freeze`` of a clean install).
A release is resolved the same way, by pip's resolver, from the same file with one pin changed: the SUT
package's (its extras kept). Every other pin stays the row's, unless the release's own requirements
contradict it: then pip says so (``ResolutionImpossible``, "The conflict is caused by: The user
requested X==1 / sut 2 depends on X==2") and that pin is released (the package left to the resolver)
and the resolution tried again, the resolver's reason kept with the pin. A conflict that names only the
SUT's own pin, a release that is not installable on this Python, a requirement no registry serves:
the resolution fails with pip's message, and the release is reported as one whose install failed.

The result is written as the release's requirements: every package pinned exactly, the row's lines in
the row's order, a released pin at the version the resolver chose, a package the release needs that
the row does not pin added at its end. For the pinned release itself the file is the row's, byte for
byte (the same cached environment serves both). The resolution runs ``pip install --dry-run`` with this
Python (the local runtime's environments are built with it), or with the pip a row pins
(``pip==X``, as the runtime does), in a small environment of that pip kept in the lab's cache.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from lab.runtime.housekeeping import cache_dir
from lab.runtime.local import pinned_pip
from lab.sweep.registry import pip_message

#: What ``pip freeze`` leaves out of a row's pins (the environment's own tools): never "added".
FREEZE_LEAVES = frozenset({"pip", "setuptools", "wheel", "distribute"})
#: Rounds of releasing pins before the resolution is given up (each names at least one new pin).
MAX_ROUNDS = 12


class NotPinned(ValueError):
    """The row's requirements do not pin its SUT package: there is no pin for a release to replace."""


@dataclass
class Resolution:
    """What pip made of a release in the row's environment."""

    version: str
    ok: bool
    requirements: str = ""          # the release's requirements.txt (when ok)
    released: list[dict[str, Any]] = field(default_factory=list)   # package, pinned, resolved, because
    added: list[dict[str, str]] = field(default_factory=list)       # package, version: not pinned by the row
    message: str = ""               # the resolver's message (when not ok)

    def to_json(self) -> dict[str, Any]:
        """What a sweep records of the resolution."""
        out: dict[str, Any] = {"ok": self.ok, "released": self.released, "added": self.added}
        if not self.ok:
            out["message"] = self.message
        return out


@dataclass
class _Line:
    text: str
    name: str | None = None          # canonical name of a requirement line
    req: Requirement | None = None


def parse_lines(text: str) -> list[_Line]:
    """The file's lines, each requirement with its canonical name (comments, options kept as text)."""
    out = []
    for raw in text.splitlines():
        body = raw.split("#", 1)[0].strip()
        if not body or body.startswith("-"):
            out.append(_Line(raw))
            continue
        try:
            req = Requirement(body)
        except InvalidRequirement:
            out.append(_Line(raw))
            continue
        out.append(_Line(raw, canonicalize_name(req.name), req))
    return out


def pinned_version(text: str, package: str) -> str | None:
    """The version the row's requirements pin ``package`` at (``==``), or None."""
    for line in parse_lines(text):
        if line.name == canonicalize_name(package) and line.req is not None:
            pins = [s.version for s in line.req.specifier if s.operator in ("==", "===")]
            if pins:
                return pins[0]
    return None


def sut_line(line: _Line, version: str) -> str:
    """The SUT's requirement line with ``version`` in place of its pin (extras and marker kept)."""
    req = line.req
    assert req is not None
    extras = f"[{','.join(sorted(req.extras))}]" if req.extras else ""
    marker = f"; {req.marker}" if req.marker else ""
    return f"{req.name}{extras}=={version}{marker}"


Pip = Callable[[list[str], Path], subprocess.CompletedProcess]


def resolve(text: str, package: str, version: str, pip: Pip | None = None) -> Resolution:
    """Resolve ``version`` of ``package`` in the environment ``text`` (a row's requirements) pins."""
    lines = parse_lines(text)
    key = canonicalize_name(package)
    at = [i for i, ln in enumerate(lines) if ln.name == key]
    if not at:
        raise NotPinned(f"the row's requirements.txt pins no {package}: a sweep replaces that pin with each release")
    old = pinned_version(text, package)
    pip = pip or _pip_for(text)
    pinned = {ln.name: ln for ln in lines if ln.name and ln.name != key}
    released: dict[str, str] = {}   # canonical name -> the resolver's reason
    for _ in range(MAX_ROUNDS):
        asked = [sut_line(ln, version) if ln.name == key else (ln.req.name if ln.name in released and ln.req else ln.text)
                 for ln in lines]
        with tempfile.TemporaryDirectory(prefix="memlab-resolve-") as tmp:
            folder = Path(tmp)
            (folder / "requirements.txt").write_text("\n".join(asked) + "\n", encoding="utf-8")
            proc = pip(["install", "--dry-run", "--ignore-installed", "--report", str(folder / "report.json"),
                        "-r", str(folder / "requirements.txt")], folder)
            report = (json.loads((folder / "report.json").read_text(encoding="utf-8"))
                      if proc.returncode == 0 and (folder / "report.json").is_file() else None)
        output = (proc.stdout or "") + (proc.stderr or "")
        if report is not None:
            installed = {canonicalize_name(item["metadata"]["name"]): (item["metadata"]["name"], item["metadata"]["version"])
                         for item in report.get("install", [])}
            return _written(text, lines, key, package, old, version, installed, released, pinned)
        causes = conflict_names(output)
        new = [name for name in causes if name in pinned and name not in released]
        if not new:
            return Resolution(version, False, message=resolver_message(output))
        reason = "; ".join(conflict_lines(output))
        for name in new:
            released[name] = reason
    return Resolution(version, False, message=f"gave up after releasing {MAX_ROUNDS} rounds of pins; last:\n"
                                              + resolver_message(output))


def _written(text: str, lines: list[_Line], key: str, package: str, old: str | None, version: str,
             installed: dict[str, tuple[str, str]], released: dict[str, str], pinned: dict[str, _Line]) -> Resolution:
    """The release's requirements file from the resolution pip reported."""
    added = [{"package": name, "version": ver} for canon, (name, ver) in sorted(installed.items())
             if canon != key and canon not in pinned and canon not in FREEZE_LEAVES]
    gone = []
    freed = []
    for canon, reason in released.items():
        line = pinned[canon]
        old_pin = next((s.version for s in line.req.specifier if s.operator == "=="), "") if line.req else ""
        now = installed.get(canon, (None, None))[1]
        freed.append({"package": line.req.name if line.req else canon, "pinned": old_pin, "resolved": now,
                      "because": reason})
        if now is None:
            gone.append(canon)
    if not released and not added and version == old:
        return Resolution(version, True, requirements=text)
    out = [f"# memlab sweep: {package} {version} in place of the row's {old}; every other pin is the row's"
           + (", but those the release's own requirements contradict (released below, with pip's reason)" if released else "")]
    for item in freed:
        out.append(f"# released: {item['package']} (the row pins {item['pinned']}; resolved "
                   f"{item['resolved'] or 'to nothing: not needed'}) because {item['because']}")
    for line in lines:
        if line.name == key:
            out.append(sut_line(line, version))
        elif line.name in released:
            if line.name not in gone and line.req is not None:
                out.append(f"{line.req.name}=={installed[line.name][1]}")
        else:
            out.append(line.text)
    if added:
        out.append(f"# needed by {package} {version}, not pinned by the row (as the resolver chose them)")
        out.extend(f"{item['package']}=={item['version']}" for item in added)
    return Resolution(version, True, requirements="\n".join(out) + "\n", released=freed, added=added)


def conflict_lines(output: str) -> list[str]:
    """The lines under pip's "The conflict is caused by:"."""
    lines = output.splitlines()
    try:
        start = next(i for i, ln in enumerate(lines) if ln.strip() == "The conflict is caused by:")
    except StopIteration:
        return []
    out = []
    for ln in lines[start + 1:]:
        if not ln.strip():
            break
        out.append(ln.strip())
    return out


def conflict_names(output: str) -> list[str]:
    """The packages (canonical) a conflict names: those the user requested and those that depend."""
    names = []
    for ln in conflict_lines(output):
        found = re.match(r"The user requested ([A-Za-z0-9._-]+)", ln) or re.match(r"([A-Za-z0-9._-]+) \S+ depends on ", ln)
        if found:
            names.append(canonicalize_name(found.group(1)))
    return list(dict.fromkeys(names))


def resolver_message(output: str) -> str:
    """pip's message of a failed resolution (its errors and the conflict), without its download lines."""
    noise = re.compile(r"^\s*(Collecting |Downloading |Processing |Using cached |Obtaining |━|INFO: pip is looking|"
                       r"Requirement already satisfied|Looking in )")
    return pip_message("\n".join(ln for ln in output.splitlines() if not noise.match(ln)))


def _pip_for(text: str) -> Pip:
    """The pip that resolves: this Python's, or the one the row pins (as the runtime builds with it)."""
    own = pinned_pip(text)
    python = _pinned_pip_python(own) if own else sys.executable

    def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
        return subprocess.run([python, "-m", "pip", "--disable-pip-version-check", *args], cwd=cwd,
                              capture_output=True, text=True)
    return run


def _pinned_pip_python(spec: str) -> str:
    """An environment holding ``spec`` (``pip==X``), made once in the lab's cache; its python."""
    venv = cache_dir() / "sweep-pips" / spec.replace("==", "-")
    python = venv / "bin" / "python"
    if not (venv / ".memlab-ready").is_file():
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True, capture_output=True)
        subprocess.run([str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q", spec], check=True,
                       capture_output=True)
        (venv / ".memlab-ready").write_text(spec + "\n")
    return str(python)
