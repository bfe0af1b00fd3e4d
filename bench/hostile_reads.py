"""Hostile text and shapes against memlab's readers: a set whose names and reasons carry escape
sequences, forged lines, rich markup, invisible or direction-changing characters or a lone surrogate;
a row field of the wrong type; a folder where a file belongs; a SUT or a profile saying such text.
Each holds when every reader (show, report in each format, compare, verify, gate, site) ends with
exit 0, 1 or 2, prints nothing raw and no traceback, and refuses what is not a memlab row."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any, Callable

from hostile_base import ROOT, Bed, Hostile, clean, memlab, refused, said

ROW = "reference-naive"
HOSTILE_DRIVER = ROOT / "tests" / "fixtures" / "hostile"


def _row(root: Path, change: Callable[[dict[str, Any]], Any]) -> None:
    path = root / "rows" / f"{ROW}@read.json"
    row = json.loads(path.read_text())
    change(row)
    path.write_text(json.dumps(row))


def _readers(bed: Bed, root: Path, codes: tuple[int, ...] = (0, 1, 2), *words: str) -> tuple[bool, str]:
    """Every reader on ``root``: held when each exits one of ``codes``, clean, saying ``words``."""
    for args in (("show", root), ("report", root), ("report", root, "--format", "markdown"),
                 ("report", root, "--format", "junit"), ("report", root, "--format", "html"),
                 ("compare", bed.pristine, root), ("verify", root), ("gate", root, "--fail-on", "accepted"),
                 ("site", root, "--out", bed.work / "site", "--no-verify", *bed.no_sweeps())):
        done = memlab(bed, *args)
        problem = clean(done)
        if problem or done.returncode not in codes:
            return False, f"{args[0]} {' '.join(map(str, args[2:3]))}: {said(done)} {problem or ''}".strip()
        if args[-1] == "junit" and done.returncode == 0:
            ET.fromstring(done.stdout)  # valid XML: no raw control character in it
        if words and args[0] == "show" and not all(w in done.stdout + done.stderr for w in words):
            return False, f"show never said {words}: {said(done)}"
    for page in (bed.work / "site").glob("*.html"):
        if any(c in page.read_text(encoding="utf-8") for c in ("\x1b", "\x07", "\r")):
            return False, f"site page {page.name} holds a raw control character"
    return True, "every reader: clean, " + ("refused" if codes == (2,) else "text shown inert")


def text_class(text: str, *shown: str) -> Callable[[Bed], tuple[bool, str]]:
    """A set whose row name, title and a reason hold ``text``; show must print it as ``shown``."""
    def attempt(bed: Bed) -> tuple[bool, str]:
        root = bed.copy()
        _row(root, lambda r: (r.update(row=r["row"] + text, title=text),
                              r["cells"]["T1"].update(verdict="error", reason=f"boom {text}")))
        return _readers(bed, root, (0, 1, 2), *shown)
    return attempt


def refused_class(change: Callable[[Path], None], *words: str) -> Callable[[Bed], tuple[bool, str]]:
    """A set changed by ``change``: every reader but verify and gate refuses it (exit 2) naming ``words``."""
    def attempt(bed: Bed) -> tuple[bool, str]:
        root = bed.copy()
        change(root)
        for args in (("show", root), ("report", root, "--format", "markdown"), ("report", root, "--format", "html"),
                     ("compare", bed.pristine, root),
                     ("site", root, "--out", bed.work / "site", "--no-verify", *bed.no_sweeps())):
            ok, what = refused(memlab(bed, *args), 2, *words)
            if not ok:
                return False, f"{args[0]}: {what}"
        return refused(memlab(bed, "verify", root), 1, "REJECTED")
    return attempt


def _surrogate(root: Path) -> None:
    path = root / "rows" / f"{ROW}@read.json"
    path.write_text(path.read_text().replace(f'"row": "{ROW}"', f'"row": "{ROW}\\ud800"', 1))


def _folder_row(root: Path) -> None:
    (root / "rows" / "extra@read.json").mkdir()


def _escaped_file_name(bed: Bed) -> tuple[bool, str]:
    root = bed.copy()
    (root / "rows" / "x\x1b]52;c;aGk=\x07@read.json").write_text("{}")
    return refused(memlab(bed, "verify", root), 1, "row-extra", "\\x1b]52")


def _observation_folder(bed: Bed) -> tuple[bool, str]:
    root = bed.copy()
    obs = root / "observations" / ROW / "T3.json"
    obs.unlink()
    obs.mkdir()
    ok, what = refused(memlab(bed, "verify", root), 1, "evidence-missing")
    return (ok, what) if not ok else _readers(bed, root)


def _sut_text(bed: Bed) -> tuple[bool, str]:
    profile = (ROOT / "sut_profiles" / "reference-naive-jsonl.yaml").read_text().replace(
        "row: reference-naive-jsonl", "row: hostile-text").replace("driver: reference", f"driver: {HOSTILE_DRIVER}")
    folder = bed.work / "profiles"
    folder.mkdir()
    (folder / "hostile-text.yaml").write_text(profile.replace("  seal: none\n", "  seal: none\n  hostile: {kind: text}\n"))
    out = bed.work / "out"
    done = memlab(bed, "run", "--runtime", "local", "--profiles", folder, "--sut", "hostile-text", "--out", out)
    problem = clean(done)
    if problem or done.returncode != 2:  # 2: not evaluable, its C1 served texts that differ
        return False, f"{said(done)} {problem or ''}"
    verified = memlab(bed, "verify", out)
    if verified.returncode != 0:
        return False, f"its set does not verify: {said(verified)}"
    for name in ("report.md", "junit.xml", "report.html"):
        if any(c in (out / name).read_text(encoding="utf-8") for c in ("\x1b", "\x07", "\r", "\ud800")):
            return False, f"{name} holds a raw control character"
    return _readers(bed, out)


def _profile_markup(bed: Bed) -> tuple[bool, str]:
    folder = bed.work / "profiles"
    folder.mkdir()
    text = (ROOT / "sut_profiles" / "reference-naive.yaml").read_text()
    (folder / "markup.yaml").write_text(text.replace("row: reference-naive\n", "row: markup\n", 1).replace(
        "title: ", 'title: "[/x] [bold]b[link=http://127.0.0.1/]l" # ', 1))
    (folder / "bad.yaml").write_text(text.replace("row: reference-naive\n", 'row: "[/x]bad"\n', 1))
    listed = memlab(bed, "list", "--profiles", folder, "--runtime", "local")
    ok, what = refused(listed, 2, "'[/x]bad' is not a safe name")
    if not ok:
        return False, f"list: {what}"
    done = memlab(bed, "run", "--runtime", "local", "--profiles", folder, "--sut", "markup", "--out", bed.work / "out")
    ok, what = refused(done, 0, "result set")
    report = (bed.work / "out" / "report.md").read_text() if ok else ""
    return (ok and "\\[/x\\] \\[bold\\]b" in report), f"run: {what}"


def alias_bomb(first: str) -> str:
    """A YAML document whose ``first`` line is followed by eight levels of ten aliases each: a few
    hundred bytes, a hundred million values once expanded."""
    levels = ['a0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    levels += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    return first + "\n" + "\n".join(levels) + "\n"


def _shim_config_bomb(bed: Bed) -> tuple[bool, str]:
    config = bed.work / "shim.yaml"
    config.write_text(alias_bomb("base_url: http://127.0.0.1:9"))
    done = memlab(bed, "lifecycle", "doctor", "--adapter", f"http:{config}", timeout=60)
    return refused(done, 2, "alias bomb")


def _scenario_bomb(bed: Bed) -> tuple[bool, str]:
    pack = bed.work / "pack"
    pack.mkdir()
    (pack / "bomb.yaml").write_text(alias_bomb("id: bomb"))
    done = memlab(bed, "lifecycle", "validate", pack, timeout=60)
    return refused(done, 2, "aliases")


READS = (
    Hostile("a set's names and reasons with ESC ]52 and a forged CR/LF line", "reader",
            text_class("\x1b]52;c;aGk=\x07\r\nFAKE  PASS  everything", "\\x1b]52;c;aGk=\\x07\\r\\nFAKE")),
    Hostile("a set's names and reasons with rich markup [/x] [bold] [link=...]", "reader",
            text_class("[/x] [bold]b[link=http://127.0.0.1/]l", "[/x] [bold]b[link=http://127.0.0.1/]l")),
    Hostile("a set's names with U+202E and a zero-width space", "reader",
            text_class("\u202eexe.txt\u200b", "\\u202eexe.txt\\u200b")),
    Hostile("a set's row with a lone surrogate", "reader", refused_class(_surrogate, "lone surrogate")),
    Hostile("a row whose controls.C1 lacks ok", "reader",
            refused_class(lambda r: _row(r, lambda row: row["controls"]["C1"].pop("ok")), "controls.C1.ok")),
    Hostile("a row whose cell evidence is a list", "reader",
            refused_class(lambda r: _row(r, lambda row: row["cells"]["T2"].update(evidence=["x"])),
                          "cells.T2.evidence")),
    Hostile("a row whose metric is a string", "reader",
            refused_class(lambda r: _row(r, lambda row: row.update(metric="0.9")), "metric")),
    Hostile("rows/X.json a folder", "reader", refused_class(_folder_row, "not a regular file")),
    Hostile("a set file named with an escape sequence", "reader", _escaped_file_name),
    Hostile("an observation a folder", "reader", _observation_folder),
    Hostile("a SUT serving ESC ]52, CR/LF, markup and a lone surrogate", "sut", _sut_text),
    Hostile("a profile with rich markup in its title and its row name", "profile", _profile_markup),
    Hostile("a shim config that is a YAML alias bomb (a hundred million values)", "shim", _shim_config_bomb),
    Hostile("a scenario file that is a YAML alias bomb", "profile", _scenario_bomb),
)
