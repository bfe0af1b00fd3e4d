"""Hostile folders against memlab's writers: a symlink or a hard link planted where memlab writes a
file (a site page, a report, a signature, run.lock, a key), or a changed folder given to --resume. Each
holds when the command refuses (naming the path), and the file outside keeps its bytes."""

from __future__ import annotations

import json
import os
from pathlib import Path

from hostile_base import VICTIM_TEXT, Bed, Hostile, memlab, refused

ROW = "reference-naive"


def _kept(victim: Path, outcome: tuple[bool, str]) -> tuple[bool, str]:
    """The outcome, not held when the file outside changed."""
    if victim.read_text() != VICTIM_TEXT:
        return False, f"the file outside was written: {outcome[1]}"
    return outcome


def site_index_symlink(bed: Bed) -> tuple[bool, str]:
    victim, site = bed.victim(), bed.work / "site"
    site.mkdir()
    (site / "index.html").symlink_to(victim)
    return _kept(victim, refused(memlab(bed, "site", bed.pristine, "--out", site, *bed.no_sweeps()), 2, "index.html",
                                 "symlink"))


def site_page_hardlink(bed: Bed) -> tuple[bool, str]:
    victim, site = bed.victim(), bed.work / "site"
    site.mkdir()
    os.link(victim, site / f"{ROW}.html")
    return _kept(victim, refused(memlab(bed, "site", bed.pristine, "--out", site, *bed.no_sweeps()), 2, f"{ROW}.html",
                                 "hard links"))


def report_symlink(bed: Bed) -> tuple[bool, str]:
    victim, out = bed.victim(), bed.work / "r.md"
    out.symlink_to(victim)
    done = memlab(bed, "report", bed.pristine, "--format", "markdown", "--out", out)
    return _kept(victim, refused(done, 2, "r.md", "symlink"))


def report_terminal_hardlink(bed: Bed) -> tuple[bool, str]:
    victim, out = bed.victim(), bed.work / "r.txt"
    os.link(victim, out)
    return _kept(victim, refused(memlab(bed, "report", bed.pristine, "--out", out), 2, "r.txt", "hard links"))


def sign_hardlinked_signature(bed: Bed) -> tuple[bool, str]:
    victim, root = bed.victim(), bed.copy()
    os.link(victim, root / "manifest.sig")
    done = memlab(bed, "sign", root, "--key", bed.key)
    return _kept(victim, refused(done, 2, "manifest.sig", "hard links"))


def sign_symlinked_signature(bed: Bed) -> tuple[bool, str]:
    victim, root = bed.victim(), bed.copy()
    (root / "manifest.sig").symlink_to(victim)
    done = memlab(bed, "sign", root, "--key", bed.key)  # the set does not verify (unsafe-file): not signed
    return _kept(victim, refused(done, 1, "unsafe-file", "manifest.sig", "not signed"))


def run_lock_symlink(bed: Bed) -> tuple[bool, str]:
    victim, out = bed.victim(), bed.work / "out"
    out.mkdir()
    (out / "run.lock").symlink_to(victim)
    done = memlab(bed, "run", "--runtime", "local", "--sut", ROW, "--out", out, "--no-reports")
    return _kept(victim, refused(done, 2, "run.lock", "symlink"))


def _killed(bed: Bed) -> Path:
    """A copy of the set as a killed run leaves it (run.json interrupted, no manifest)."""
    root = bed.copy()
    run = json.loads((root / "run.json").read_text())
    run["status"] = "interrupted"
    (root / "run.json").write_text(json.dumps(run))
    (root / "manifest.json").unlink()
    return root


def resume_observation_symlink(bed: Bed) -> tuple[bool, str]:
    victim, root = bed.victim(), _killed(bed)
    (root / "observations" / ROW / "T5.json").unlink()
    (root / "observations" / ROW / "T5.json").symlink_to(victim)
    done = memlab(bed, "run", "--resume", root, "--no-reports")
    return _kept(victim, refused(done, 2, "T5.json", "symlink", "cannot be resumed"))


def resume_logs_folder_symlink(bed: Bed) -> tuple[bool, str]:
    root, outside = _killed(bed), bed.work / "outside-logs"
    (root / "logs" / ROW).rename(outside)
    (root / "logs" / ROW).symlink_to(outside, target_is_directory=True)
    before = sorted(p.name for p in outside.iterdir())
    done = memlab(bed, "run", "--resume", root, "--no-reports")
    outcome = refused(done, 2, f"logs/{ROW}", "symlink", "cannot be resumed")
    return outcome if sorted(p.name for p in outside.iterdir()) == before else (False, "a log was written outside")


def keygen_dangling_public_link(bed: Bed) -> tuple[bool, str]:
    target = bed.work / "planted.pem"
    (bed.work / "k.pub.pem").symlink_to(target)
    done = memlab(bed, "keygen", bed.work / "k.pem")
    ok, what = refused(done, 2, "k.pub.pem")
    return (ok and not target.exists() and not (bed.work / "k.pem").exists()), what


WRITES = (
    Hostile("site --out S: S/index.html a symlink out", "writer", site_index_symlink),
    Hostile("site --out S: a SUT page hard-linked to a file outside", "writer", site_page_hardlink),
    Hostile("report --out F: F a symlink out", "writer", report_symlink),
    Hostile("report --out F (terminal): F hard-linked to a file outside", "writer", report_terminal_hardlink),
    Hostile("sign: manifest.sig hard-linked to a file outside", "writer", sign_hardlinked_signature),
    Hostile("sign: manifest.sig a symlink out", "writer", sign_symlinked_signature),
    Hostile("run --out D: D/run.lock a symlink out", "writer", run_lock_symlink),
    Hostile("run --resume D: an observation a symlink out", "writer", resume_observation_symlink),
    Hostile("run --resume D: the row's log folder a symlink out", "writer", resume_logs_folder_symlink),
    Hostile("keygen K: K.pub.pem a dangling symlink out", "writer", keygen_dangling_public_link),
)
