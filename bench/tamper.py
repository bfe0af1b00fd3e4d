"""Tamper classes against `memlab verify`, then hostile classes against every command: tried / held.

Each tamper class is one way an adversary changes a result set (an edit, a removal, an addition,
re-pinning a digest, re-signing without the publisher's key, a symlink out of the set, a
huge or deeply nested file, a file listed twice, a lone surrogate, a folder where a file belongs,
...), applied to a fresh copy of one real set. A class *holds*
when `memlab verify` rejects the copy naming the expected ground (exit 1), or refuses it
as unreadable (exit 2) where that is expected; a class whose copy verifies, or that names
another ground only, or crashes, does not hold. tests/adversarial/test_tamper_classes.py asserts every
class holds (and that the reading commands never crash on any of them).

The hostile classes (bench/hostile.py) follow: links planted where memlab writes, text a terminal
would obey, rows of another shape, a store linked out of its volume, a full or read-only disk, a
folder one may not read, SIGTERM mid-run; tests/adversarial/test_hostile_classes.py asserts each. The last
lines are the totals, each class that did not hold named.

    python bench/tamper.py                  # runs reference-naive into a temp folder, prints both tables
    python bench/tamper.py --from results/X # tampers copies of a saved (unsigned, one-row) set
    python bench/tamper.py --verify-only    # the tamper table alone
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))

import tamper_ops as op  # noqa: E402
from tamper_ops import OBS, ROOT, ROW, ROW_NAME, Keys  # noqa: E402,F401 (ROW_NAME: the tests' row)

import hostile  # noqa: E402
from lab.resultset import signing  # noqa: E402
from lab.resultset.verify import verify  # noqa: E402

UNREADABLE = "unreadable"  # the expected outcome of a class verify refuses to read (exit 2)


@dataclass(frozen=True)
class Tamper:
    """One tamper class: its name, what it does to a copy, the ground verify must name."""

    name: str
    apply: Callable[[Path, Keys], None]
    ground: str
    pinned: bool = False  # verify with --pubkey of the publisher's key
    signed: bool = False  # the copy is signed by the publisher before the tamper


CLASSES: tuple[Tamper, ...] = (
    # rows: edits
    Tamper("row byte edited", op.text(ROW, '"level": "L0"', '"level": "L9"'), "digest-mismatch"),
    Tamper("row truncated", lambda r, k: (r / ROW).write_bytes((r / ROW).read_bytes()[:-10]), "digest-mismatch"),
    Tamper("row metric edited, digest re-pinned", op.row(lambda r: r.update(metric=0.9)), "recount-differs"),
    Tamper("row level edited, digest re-pinned", op.row(lambda r: r.update(level="L2")), "recount-differs"),
    Tamper("row counts edited, digest re-pinned", op.row(lambda r: r["counts"].update(accepted=0)), "recount-differs"),
    Tamper("row verdict edited, re-pinned",
           op.row(lambda r: r["cells"]["T3"].update(verdict="REJECTED")), "recount-differs"),
    Tamper("row cell reason edited, re-pinned", op.row(lambda r: r["cells"]["T1"].update(reason="fine")),
           "verdict-not-derivable"),
    Tamper("row configuration edited, re-pinned", op.row(lambda r: r.update(configuration={"head": "x"})),
           "row-not-derivable"),
    Tamper("row lab commit edited, re-pinned", op.row(lambda r: r["lab"].update(commit="0" * 40)), "row-not-derivable"),
    Tamper("row run_id edited, re-pinned", op.row(lambda r: r.update(run_id="someone-else")), "row-not-derivable"),
    Tamper("row date edited, re-pinned", op.row(lambda r: r.update(date="2020-01-01T00:00:00+00:00")),
           "row-not-derivable"),
    Tamper("row method revision edited, re-pinned", op.row(lambda r: r.update(method_revision="x-99")),
           "unknown-method-revision"),
    Tamper("row controls removed, re-pinned", op.row(lambda r: r.pop("controls")), "row-malformed"),
    Tamper("row cell removed, re-pinned", op.row(lambda r: r["cells"].pop("T7")), "row-malformed"),
    Tamper("row unknown verdict, re-pinned", op.row(lambda r: r["cells"]["T2"].update(verdict="PASSED")),
           "row-malformed"),
    Tamper("row NaN metric", op.text(ROW, '"metric": 0.0', '"metric": NaN'), "row-malformed"),
    Tamper("row 1e400 metric", op.text(ROW, '"metric": 0.0', '"metric": 1e400'), "row-malformed"),
    Tamper("row 100k-deep JSON", op.deep(ROW), "row-malformed"),
    Tamper("row duplicate verdict key", op.dup_verdict, "row-malformed"),
    Tamper("row duplicate verdict key, signed set", op.dup_verdict, "row-malformed", pinned=True, signed=True),
    Tamper("row file 33 MiB (same JSON value)", op.huge(ROW), "row-malformed"),
    # rows: removals, additions, renames
    Tamper("row removed", lambda r, k: (r / ROW).unlink(), "row-missing"),
    Tamper("row removed with its manifest entry", op.remove_row_and_entry, "row-missing"),
    Tamper("row added", lambda r, k: shutil.copyfile(r / ROW, r / "rows" / "copy@read.json"), "row-extra"),
    Tamper("stray rows/*.tmp", op.write("rows/x.json.tmp", "{}\n"), "row-extra"),
    Tamper("stray rows/*.tmp, signed set", op.write("rows/x.json.tmp", "{}\n"), "row-extra", pinned=True, signed=True),
    Tamper("row file renamed with its entry", op.rename_row, "row-malformed"),
    Tamper("a fifo in rows/", op.fifo, "unsafe-file"),
    # the manifest
    Tamper("manifest lab.commit edited", op.manifest(lambda m: m["lab"].update(commit="0" * 40)), "run-disagrees"),
    Tamper("manifest run_id edited", op.manifest(lambda m: m.update(run_id="someone-else")), "run-disagrees"),
    Tamper("manifest method revision edited", op.manifest(lambda m: m.update(method_revision="x-99")),
           "unknown-method-revision"),
    Tamper("manifest decision rule edited", op.manifest(lambda m: m["decision_rules"].update(metric="N/N")),
           "unknown-decision-rules"),
    Tamper("manifest row digest edited", op.manifest(lambda m: m["rows"][0].update(digest="sha256:" + "0" * 64)),
           "digest-mismatch"),
    Tamper("manifest row entry listed twice", op.manifest(lambda m: m["rows"].append(dict(m["rows"][0]))),
           "row-malformed"),
    Tamper("manifest evidence entry removed", op.manifest(lambda m: m["evidence"].pop()), "evidence-extra"),
    Tamper("manifest evidence path out of the set",
           op.manifest(lambda m: m["evidence"].append({"file": "../outside.json", "digest": "sha256:0"})),
           "row-malformed"),
    Tamper("manifest duplicate key", op.text("manifest.json", '"rows":', '"rows": [], "rows":'), UNREADABLE),
    Tamper("manifest NaN", op.text("manifest.json", '"schema":', '"x": NaN, "schema":'), UNREADABLE),
    Tamper("manifest 100k-deep JSON", op.deep("manifest.json"), UNREADABLE),
    Tamper("manifest removed", lambda r, k: (r / "manifest.json").unlink(), UNREADABLE),
    Tamper("manifest garbage", op.write("manifest.json", "{not json"), UNREADABLE),
    Tamper("manifest wrong schema", op.manifest(lambda m: m.update(schema="other/9")), UNREADABLE),
    # run.json
    Tamper("run.json commit edited", lambda r, k: op.edit(r, "run.json", lambda x: x["lab"].update(commit="0" * 40)),
           "digest-mismatch"),
    Tamper("run.json commit edited and re-pinned", op.run_commit, "run-disagrees"),
    Tamper("run.json rows emptied and re-pinned", op.run_rows, "run-disagrees"),
    Tamper("run.json removed", lambda r, k: (r / "run.json").unlink(), "evidence-missing"),
    Tamper("run.json status set to interrupted, re-pinned", op.run_status, "run-incomplete"),
    Tamper("partial run: a trial removed with its entry, run.json interrupted", op.partial, "run-incomplete"),
    Tamper("run.json 100k-deep, re-pinned", op.deep("run.json", repin=True), "run-disagrees"),
    # observations
    Tamper("observation edited", op.obs("T1.json", lambda o: o.update(read={"ok": False, "refused": True}), False),
           "digest-mismatch"),
    Tamper("observation edited, re-pinned",
           op.obs("T1.json", lambda o: o.update(read={"ok": False, "refused": True, "error": "x", "signals": []})),
           "verdict-not-derivable"),
    Tamper("observation C3 evidence contradicts its result, re-pinned", op.c3_flip, "c3-not-derivable"),
    Tamper("C3 store dump edited before and after alike, re-pinned", op.c3_dump, "c3-not-derivable"),
    Tamper("stored store dump edited, re-pinned", op.stored_dump, "verdict-not-derivable"),
    Tamper("stored store dump removed with its manifest entry", op.stored_dump_gone, "verdict-not-derivable"),
    Tamper("observation of the wrong shape, re-pinned", op.obs("T3.json", lambda o: o["c3"].update(ok="yes")),
           "verdict-not-derivable"),
    Tamper("observation NaN, re-pinned", op.text(f"{OBS}/T1.json", '"case":', '"x": NaN, "case":', repin=True),
           "verdict-not-derivable"),
    Tamper("observation duplicate key, re-pinned",
           op.text(f"{OBS}/T1.json", '"case":', '"case": "T2", "case":', repin=True), "verdict-not-derivable"),
    Tamper("observation 100k-deep, re-pinned", op.deep(f"{OBS}/T1.json", repin=True), "verdict-not-derivable"),
    Tamper("observation removed", lambda r, k: (r / OBS / "T5.json").unlink(), "evidence-missing"),
    Tamper("observation added", op.write(f"{OBS}/T11.json", "{}\n"), "evidence-extra"),
    Tamper("stray observations/*.tmp", op.write(f"{OBS}/T1.json.tmp", "{}\n"), "evidence-extra"),
    Tamper("stray observations/*.tmp, signed set", op.write(f"{OBS}/T1.json.tmp", "{}\n"), "evidence-extra",
           pinned=True, signed=True),
    Tamper("observation symlinked out of the set (same bytes)", op.symlink_file, "unsafe-file"),
    # logs
    Tamper("log edited", lambda r, k: (r / "logs" / ROW_NAME / "T1-0.log").write_text("all fine\n"),
           "digest-mismatch"),
    Tamper("log removed", lambda r, k: (r / "logs" / ROW_NAME / "T1-0.log").unlink(), "evidence-missing"),
    Tamper("log added", op.write(f"logs/{ROW_NAME}/T1-9.log", "x\n"), "evidence-extra"),
    Tamper("stray logs/*.tmp", op.write(f"logs/{ROW_NAME}/T1-0.log.tmp", "x\n"), "evidence-extra"),
    Tamper("log folder symlinked out of the set", op.symlink_dir, "unsafe-file"),
    # signatures
    Tamper("signed, then the manifest edited", op.manifest(lambda m: m.update(canonicalization="none")),
           "bad-signature", signed=True),
    Tamper("signature altered", op.sig_edit(lambda s: s.update(signature=op.flip_b64(s["signature"]))), "bad-signature",
           signed=True),
    Tamper("signature garbage", op.write("manifest.sig", "{not json"), "bad-signature", signed=True),
    Tamper("signature with a duplicate key", op.text("manifest.sig", '"algorithm":', '"algorithm": "x", "algorithm":'),
           "bad-signature", signed=True),
    Tamper("signature removed, key pinned", lambda r, k: (r / "manifest.sig").unlink(), "signature-missing",
           pinned=True, signed=True),
    Tamper("row edited and re-signed without the publisher's key", op.resign_other, "signature-key-mismatch",
           pinned=True, signed=True),
    # issue 28: a manifest naming a file twice or out of place, lone surrogates, folders, shapes, names
    Tamper("manifest evidence entry listed twice", op.manifest(lambda m: m["evidence"].append(dict(m["evidence"][0]))),
           "row-malformed"),
    Tamper("manifest evidence entry listed again as a//b", op.evidence_again, "row-malformed"),
    Tamper("manifest lists manifest.json as evidence",
           op.manifest(lambda m: m["evidence"].append({"file": "manifest.json", "digest": "sha256:" + "0" * 64})),
           "row-malformed"),
    Tamper("row with a lone surrogate", op.surrogate(ROW), "row-malformed"),
    Tamper("observation with a lone surrogate, re-pinned", op.surrogate(f"{OBS}/T1.json", repin=True),
           "verdict-not-derivable"),
    Tamper("manifest with a lone surrogate", op.surrogate("manifest.json"), UNREADABLE),
    Tamper("signature with a lone surrogate", op.surrogate("manifest.sig"), "bad-signature", signed=True),
    Tamper("row file replaced by a folder", op.folder(ROW), "row-missing"),
    Tamper("observation replaced by a folder", op.folder(f"{OBS}/T4.json"), "evidence-missing"),
    Tamper("manifest.sig replaced by a folder, key pinned", op.folder("manifest.sig"), "bad-signature", pinned=True,
           signed=True),
    Tamper("row of another shape (controls.C1 without ok), re-pinned", op.row(lambda r: r["controls"]["C1"].pop("ok")),
           "row-malformed"),
    Tamper("row of another shape (a cell's evidence a list), re-pinned",
           op.row(lambda r: r["cells"]["T2"].update(evidence=["x"])), "row-malformed"),
    Tamper("a file in rows/ named with an escape sequence", op.escaped_name, "row-extra"),
)


def keys(folder: Path) -> Keys:
    """A publisher's key pair and an adversary's key, made in ``folder``."""
    signing.keygen(folder / "publisher.pem")
    signing.keygen(folder / "adversary.pem")
    return Keys(signing.load_private_key(folder / "publisher.pem"),
                signing.load_public_key(folder / "publisher.pub.pem"),
                signing.load_private_key(folder / "adversary.pem"), folder / "publisher.pub.pem")


def tampered(pristine: Path, tamper: Tamper, work: Path, ks: Keys) -> Path:
    """A copy of ``pristine`` in ``work`` with ``tamper`` applied (signed first where it says)."""
    root = work / "rs"
    shutil.copytree(pristine, root, symlinks=True)
    if tamper.signed:
        op.sign(root, ks.private)
    tamper.apply(root, ks)
    return root


def outcome(root: Path, tamper: Tamper, ks: Keys) -> tuple[bool, str]:
    """Whether verify held against the tampered copy, and what it said."""
    from lab.resultset.loading import Unreadable
    try:
        result = verify(root, ks.public if tamper.pinned else None)
    except Unreadable as exc:
        return tamper.ground == UNREADABLE, f"unreadable: {exc}"[:200]
    except Exception as exc:  # noqa: BLE001 -- a crash is a class that does not hold
        return False, f"CRASH {type(exc).__name__}: {exc}"[:200]
    found = sorted({f.ground for f in result.findings})
    return tamper.ground in found, ", ".join(found) or "VERIFIED"


def main() -> int:
    """Make (or take) a set, try every class on a copy, print the table and tried / held."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from", dest="source", type=Path, default=None, help="a saved one-row set to tamper with")
    parser.add_argument("--verify-only", action="store_true", help="the tamper table alone, not the hostile classes")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memlab-tamper-") as tmp:
        tmp = Path(tmp)
        pristine = args.source or tmp / "pristine"
        if args.source is None:
            subprocess.run([sys.executable, "-m", "lab.cli", "run", "--runtime", "local", "--nonce", "tamper",
                            "--sut", ROW_NAME, "--out", str(pristine), "--no-reports"], cwd=ROOT, check=True,
                           capture_output=True)
        if not verify(pristine).ok:  # else every class would "hold" for the set's own findings
            print(f"{pristine} does not verify untouched; nothing to tamper with")
            return 2
        ks = keys(tmp / "keys")
        failed = []
        for i, tamper in enumerate(CLASSES):
            work = tmp / f"c{i}"
            work.mkdir()
            ok, said = outcome(tampered(pristine, tamper, work, ks), tamper, ks)
            failed += [] if ok else [tamper.name]
            print(f"{'held' if ok else 'NOT HELD':<9} {tamper.name:<58} want {tamper.ground:<24} got {said}")
            shutil.rmtree(work)
        totals = [("tamper classes", len(CLASSES), len(failed))]
        if not args.verify_only:
            bed = hostile.Bed(pristine, tmp / "keys" / "publisher.pem", tmp / "hostile")
            outcomes = hostile.table(bed)
            failed += [h.name for h, ok, _ in outcomes if not ok]
            totals.append(("hostile classes", len(outcomes), sum(not ok for _, ok, _ in outcomes)))
        for label, tried, not_held in totals:
            print(f"{label}: {tried} tried, {tried - not_held} held, {not_held} not held")
        tried = sum(t for _, t, _ in totals)
        print(f"all classes: {tried} tried, {tried - len(failed)} held; not held: {'; '.join(failed) or 'none'}")
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
