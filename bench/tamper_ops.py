"""The tampering operations of bench/tamper.py: how each class changes a copy of a result set
(edit a file and re-pin its digest, splice text in, add a symlink or a fifo, re-sign, ...)."""

from __future__ import annotations

import json
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lab.resultset import signing  # noqa: E402
from lab.resultset.loading import MAX_JSON_BYTES  # noqa: E402
from lab.resultset.pins import file_digest  # noqa: E402
from lab.resultset.results import digest  # noqa: E402
from lab.resultset.stored_dumps import DUMPS, resolved  # noqa: E402

ROW_NAME = "reference-naive"
ROW = f"rows/{ROW_NAME}@read.json"
OBS = f"observations/{ROW_NAME}"
HUGE = MAX_JSON_BYTES + 1  # above lab.resultset.loading.MAX_JSON_BYTES


@dataclass(frozen=True)
class Keys:
    """The publisher's key pair (and its public key's file) and an adversary's private key."""

    private: Any
    public: Any
    other: Any
    public_path: Path



def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def save(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def edit(root: Path, file: str, change: Callable[[Any], Any]) -> None:
    data = load(root / file)
    change(data)
    save(root / file, data)


def repin_row(root: Path, file: str = ROW) -> None:
    manifest = load(root / "manifest.json")
    for entry in manifest["rows"]:
        if entry["file"] == file:
            entry["digest"] = digest(load(root / file))
    save(root / "manifest.json", manifest)


def repin_file(root: Path, file: str) -> None:
    manifest = load(root / "manifest.json")
    for entry in manifest["evidence"]:
        if entry["file"] == file:
            entry["digest"] = file_digest(root / file)
    save(root / "manifest.json", manifest)


def manifest(change: Callable[[dict], Any]) -> Callable[[Path, Keys], None]:
    return lambda root, keys: edit(root, "manifest.json", change)


def row(change: Callable[[dict], Any], repin: bool = True) -> Callable[[Path, Keys], None]:
    def apply(root: Path, keys: Keys) -> None:
        edit(root, ROW, change)
        if repin:
            repin_row(root)
    return apply


def obs(file: str, change: Callable[[dict], Any], repin: bool = True) -> Callable[[Path, Keys], None]:
    def apply(root: Path, keys: Keys) -> None:
        edit(root, f"{OBS}/{file}", change)
        if repin:
            repin_file(root, f"{OBS}/{file}")
    return apply


def text(file: str, old: str, new: str, repin: bool = False) -> Callable[[Path, Keys], None]:
    """Replace the first ``old`` in a file's text (keeping it otherwise byte for byte)."""
    def apply(root: Path, keys: Keys) -> None:
        text = (root / file).read_text(encoding="utf-8")
        assert old in text, f"{old!r} not in {file}"
        (root / file).write_text(text.replace(old, new, 1), encoding="utf-8")
        if repin:
            repin_file(root, file)
    return apply


def deep(file: str, repin: bool = False) -> Callable[[Path, Keys], None]:
    return text(file, "{", '{"deep": ' + "[" * 100_000 + "]" * 100_000 + ", ", repin)


def write(file: str, text: str) -> Callable[[Path, Keys], None]:
    return lambda root, keys: (root / file).write_text(text, encoding="utf-8")


def remove_row_and_entry(root: Path, keys: Keys) -> None:
    (root / ROW).unlink()
    manifest(lambda m: m.update(rows=[e for e in m["rows"] if e["file"] != ROW]))(root, keys)


def rename_row(root: Path, keys: Keys) -> None:
    (root / ROW).rename(root / "rows" / "other@read.json")
    manifest(lambda m: [e.update(file="rows/other@read.json") for e in m["rows"]])(root, keys)


def run_commit(root: Path, keys: Keys) -> None:
    edit(root, "run.json", lambda r: r["lab"].update(commit="0" * 40))
    repin_file(root, "run.json")


def run_rows(root: Path, keys: Keys) -> None:
    edit(root, "run.json", lambda r: r.update(rows=[]))
    repin_file(root, "run.json")


def run_status(root: Path, keys: Keys) -> None:
    edit(root, "run.json", lambda r: r.update(status="interrupted"))
    repin_file(root, "run.json")


def partial(root: Path, keys: Keys) -> None:
    """What a run interrupted before T10 leaves, made consistent: T10's observation and entry gone."""
    (root / OBS / "T10.json").unlink()
    manifest(lambda m: m.update(evidence=[e for e in m["evidence"] if e["file"] != f"{OBS}/T10.json"]))(root, keys)
    run_status(root, keys)


def c3_dump(root: Path, keys: Keys) -> None:
    """An untouched record's text edited alike before and after the edit, the dumps written into the
    observation itself (a reader takes them inline too): C3 re-run agrees."""
    def change(data: dict) -> None:
        data.update(resolved(root / OBS, data, "T3.json"))
        for key in ("records_before", "records_after"):
            rec = data["c3"][key][-1]
            rec["payload"] = rec["fields"]["body"] = rec["payload"] + " (forged)"
    obs("T3.json", change)(root, keys)


def stored_dump(root: Path, keys: Keys) -> None:
    """The seeded store's dump (the one every case refers to) edited and re-pinned: it no longer hashes
    to its name."""
    dump = next((root / OBS / DUMPS).iterdir())
    records = load(dump)
    records[-1]["payload"] += " (forged)"
    save(dump, records)
    repin_file(root, dump.relative_to(root).as_posix())


def stored_dump_gone(root: Path, keys: Keys) -> None:
    """The seeded store's dump removed, and its manifest entry with it."""
    dump = next((root / OBS / DUMPS).iterdir())
    dump.unlink()
    rel = dump.relative_to(root).as_posix()
    manifest(lambda m: m.update(evidence=[e for e in m["evidence"] if e["file"] != rel]))(root, keys)


def c3_flip(root: Path, keys: Keys) -> None:
    obs("T3.json", lambda o: o["c3"].update(records_after=o["c3"]["records_before"]))(root, keys)


def symlink_file(root: Path, keys: Keys) -> None:
    """An evidence file replaced by a symlink to an identical copy outside the set (its digest matches)."""
    target = root.parent / "outside-environment.json"
    shutil.copyfile(root / OBS / "environment.json", target)
    (root / OBS / "environment.json").unlink()
    (root / OBS / "environment.json").symlink_to(target)


def symlink_dir(root: Path, keys: Keys) -> None:
    target = root.parent / "outside-logs"
    shutil.move(root / "logs" / ROW_NAME, target)
    (root / "logs" / ROW_NAME).symlink_to(target, target_is_directory=True)


def fifo(root: Path, keys: Keys) -> None:
    os.mkfifo(root / "rows" / "blocked@read.json")


def huge(file: str) -> Callable[[Path, Keys], None]:
    def apply(root: Path, keys: Keys) -> None:
        with open(root / file, "ab") as fh:
            fh.write(b" " * HUGE)  # still the same JSON value: its canonical digest matches
    return apply


def sign(root: Path, key: Any) -> None:
    signing.sign(root, key)


def resign_other(root: Path, keys: Keys) -> None:
    row(lambda r: r.update(metric=1.0, level="L4"))(root, keys)
    sign(root, keys.other)


def dup_verdict(root: Path, keys: Keys) -> None:
    """A first "verdict" key inserted before the real one: a last-wins reader sees the pinned value."""
    text(ROW, '"verdict": "ACCEPTED"', '"verdict": "REJECTED", "verdict": "ACCEPTED"')(root, keys)


def sig_edit(change: Callable[[dict], Any]) -> Callable[[Path, Keys], None]:
    def apply(root: Path, keys: Keys) -> None:
        edit(root, "manifest.sig", change)
    return apply


def surrogate(file: str, repin: bool = False) -> Callable[[Path, Keys], None]:
    """A lone surrogate (``\\ud800``) spliced into the first string of a file."""
    return text(file, '": "', '": "\\ud800', repin)


def folder(file: str) -> Callable[[Path, Keys], None]:
    """A file of the set replaced by a folder of the same name."""
    def apply(root: Path, keys: Keys) -> None:
        (root / file).unlink()
        (root / file).mkdir()
    return apply


def evidence_again(root: Path, keys: Keys) -> None:
    """The first evidence entry listed a second time, spelled ``a//b``."""
    manifest(lambda m: m["evidence"].append({**m["evidence"][0],
                                             "file": m["evidence"][0]["file"].replace("/", "//", 1)}))(root, keys)


def escaped_name(root: Path, keys: Keys) -> None:
    """A file in rows/ whose name holds an escape sequence (OSC 52) and a forged line."""
    (root / "rows" / "x\x1b]52;c;aGk=\x07\r\nFAKE@read.json").write_text("{}\n", encoding="utf-8")


def flip_b64(text: str) -> str:
    return ("A" if text[0] != "A" else "B") + text[1:]
