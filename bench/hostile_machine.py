"""A hostile store, machine or signal against memlab run and the commands that write: a store file
linked out of its volume, a fifo in it, a full disk, a read-only file system, a folder one may not
write or read, a file where a folder goes, a name too long, SIGTERM mid-run. Each holds when memlab
exits as documented with the path and the fix, never a traceback, and what it leaves verifies or
says PARTIAL (a full or read-only disk is a tmpfs in a mount namespace of its own: tests/machine.py)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

from hostile_base import ROOT, Bed, Hostile, clean, memlab, refused, said
from machine import as_nobody, memlab_line, on_tmpfs

ROW = "reference-naive"
HOSTILE_DRIVER = ROOT / "tests" / "fixtures" / "hostile"
FAULTY = ROOT / "tests" / "fixtures" / "faulty"


def _store(kind: str) -> Callable[[Bed], tuple[bool, str]]:
    def attempt(bed: Bed) -> tuple[bool, str]:
        folder, outside, out = bed.work / "profiles", bed.work / "outside.jsonl", bed.work / "out"
        folder.mkdir()
        profile = (ROOT / "sut_profiles" / "reference-naive-jsonl.yaml").read_text().replace(
            "row: reference-naive-jsonl", f"row: hostile-{kind}").replace("driver: reference", f"driver: {HOSTILE_DRIVER}")
        (folder / f"hostile-{kind}.yaml").write_text(profile.replace(
            "  seal: none\n", f"  seal: none\n  hostile: {{kind: {kind}, outside: {outside}}}\n"))
        done = memlab(bed, "run", "--runtime", "local", "--profiles", folder, "--sut", f"hostile-{kind}", "--out", out,
                      "--no-reports", timeout=300)
        ok, what = refused(done, 2, "the generic editor refuses the store")
        if not ok:
            return False, what
        verified = memlab(bed, "verify", out)
        if verified.returncode != 0:
            return False, f"its set does not verify: {said(verified)}"
        if kind == "link-out" and any(outside.read_text().count(f"[m{c}{i}-") != 1 for c in "AB" for i in range(5)):
            return False, "the file outside the volume was edited"
        return True, "every edit cell a harness error naming it; the set verifies"
    return attempt


def _full_disk_run(bed: Bed) -> tuple[bool, str]:
    disk, copy = bed.work / "disk", bed.work / "copy"
    disk.mkdir()
    out = disk / "rs"
    script = (f"{memlab_line('run', '--runtime', 'local', '--sut', ROW, '--nonce', 'disk', '--out', out, '--no-reports')}"
              f" 2> {bed.work / 'err'}; echo run=$?; {memlab_line('verify', out)} > /dev/null; echo verify=$?; "
              f"find {out} -name '*.tmp' -o -name harness-error.txt; cp -a {out} {copy}")
    done = on_tmpfs(disk, "size=100k", script, bed.env())
    err = (bed.work / "err").read_text() if (bed.work / "err").exists() else done.stderr
    if "run=2" not in done.stdout or "verify=3" not in done.stdout or ".tmp" in done.stdout or "Traceback" in err:
        return False, f"{done.stdout.split()} {err.strip().splitlines()[-1:]} {done.stderr[-200:]}"
    if "no space left on the device" not in err or "--resume" not in err:
        return False, f"said: {err.strip()[-200:]}"
    resumed = memlab(bed, "run", "--resume", copy, "--no-reports")
    ok, what = refused(resumed, 0, "result set")
    return (ok and memlab(bed, "verify", copy).returncode == 0), f"exit 2, PARTIAL; resumed after: {what}"


def _commands_on_disk(options: str, words: str) -> Callable[[Bed], tuple[bool, str]]:
    def attempt(bed: Bed) -> tuple[bool, str]:
        disk = bed.work / "disk"
        disk.mkdir()
        lines = {"run": memlab_line("run", "--runtime", "local", "--sut", ROW, "--out", disk / "rs"),
                 "report": memlab_line("report", bed.pristine, "--format", "html", "--out", disk / "r.html"),
                 "site": memlab_line("site", bed.pristine, "--out", disk / "site", *bed.no_sweeps()),
                 "analyze": memlab_line("analyze", bed.pristine, "--out", disk / "an"),
                 "keygen": memlab_line("keygen", disk / "k.pem")}
        script = "; ".join(f"{line}; echo {name}=$?" for name, line in lines.items())
        done = on_tmpfs(disk, options, script, bed.env())
        bad = [name for name in lines if f"{name}=2" not in done.stdout]
        if bad or done.stderr.count(words) != len(lines) or "Traceback" in done.stderr:
            return False, f"not exit 2 with '{words}': {bad or done.stderr[-200:]}"
        return True, f"run, report, site, analyze, keygen: exit 2, {words}"
    return attempt


def _sign_on_full_disk(bed: Bed) -> tuple[bool, str]:
    disk = bed.work / "disk"
    disk.mkdir()
    script = (f"cp -a {bed.pristine} {disk / 'set'} && head -c 8M /dev/zero > {disk / 'fill'}; "
              f"{memlab_line('sign', disk / 'set', '--key', bed.key)}; echo sign=$?; "
              f"{memlab_line('verify', disk / 'set')} > /dev/null; echo verify=$?; ls -a {disk / 'set'}")
    done = on_tmpfs(disk, "size=4m", script, bed.env())
    ok = "sign=2" in done.stdout and "verify=0" in done.stdout and "no space left" in done.stderr
    ok = ok and ".tmp" not in done.stdout and "Traceback" not in done.stderr
    line = next((l for l in done.stderr.splitlines() if l.startswith("memlab:")), done.stderr.strip()[-120:])
    return ok, f"exit 2 ({line}); the set still verifies, no temporary file left"


def _not_writable(bed: Bed) -> tuple[bool, str]:
    readable = Path(tempfile.mkdtemp(prefix="memlab-hostile-"))
    try:
        import shutil
        root = Path(shutil.copytree(bed.pristine, readable / "rs"))
        for path in [readable, *readable.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        done = as_nobody("report", root, "--format", "markdown", "--out", "/memlab-hostile.md",
                         env={"MEMLAB_CACHE": str(readable / "cache")})
        ok, what = refused(done, 2, "/memlab-hostile.md: permission denied", "fix:")
        return ok and not Path("/memlab-hostile.md").exists(), what
    finally:
        shutil.rmtree(readable)


def _not_readable(bed: Bed) -> tuple[bool, str]:
    bed.work.chmod(0o700)
    root = bed.copy()
    ok, what = refused(as_nobody("report", root), 2, "permission denied", "fix:")
    if not ok:
        return False, f"report: {what}"
    done = as_nobody("verify", root, "--json")
    try:
        answer = json.loads(done.stdout)
    except ValueError:
        return False, f"verify --json printed no JSON: {said(done)}"
    return done.returncode == 2 and "permission denied" in answer.get("error", ""), "report exit 2; verify --json JSON"


def _file_where_folder(bed: Bed) -> tuple[bool, str]:
    (bed.work / "file").write_text("x")
    for args, words in ((("site", bed.pristine, "--out", bed.work / "file"), "is a file"),
                        (("run", "--runtime", "local", "--sut", ROW, "--out", bed.work / "file" / "sub"),
                         "a file stands where memlab needs a folder"),
                        (("report", bed.pristine, "--out", bed.work / ("n" * 300)), "too long")):
        ok, what = refused(memlab(bed, *args), 2, words, *(("fix:",) if args[0] != "site" else ()))
        if not ok:
            return False, f"{args[0]}: {what}"
    return True, "site --out FILE, run --out FILE/sub, report --out NAME_TOO_LONG: exit 2 saying so"


def _signature_folder(bed: Bed) -> tuple[bool, str]:
    root = bed.copy()
    (root / "manifest.sig").mkdir()
    return refused(memlab(bed, "sign", root, "--key", bed.key), 2, "manifest.sig", "folder")


def _sigterm(bed: Bed) -> tuple[bool, str]:
    out = bed.work / "out"
    proc = subprocess.Popen([sys.executable, "-m", "lab.cli", "run", "--profiles", str(FAULTY), "--sut", "faulty-slow",
                             "--out", str(out), "--runtime", "local", "--no-reports", "--records", "6"],
                            cwd=ROOT, env=bed.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not (out / "observations" / "faulty-slow" / "C1.json").exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            return False, f"the slow run did not get past C1: {proc.communicate()[1][-200:]}"
        time.sleep(0.1)
    time.sleep(0.5)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    run = json.loads((out / "run.json").read_text())
    if proc.returncode != 143 or run.get("status") != "interrupted" or "Traceback" in err:
        return False, f"exit {proc.returncode}, status {run.get('status')}: {err.strip().splitlines()[-1:]}"
    if memlab(bed, "verify", out).returncode != 3:
        return False, "not PARTIAL after SIGTERM"
    ok, what = refused(memlab(bed, "run", "--resume", out, "--profiles", FAULTY, "--no-reports"), 0, "result set")
    records = json.loads((out / "run.json").read_text())["options"]["records"]
    return (ok and records == 6 and memlab(bed, "verify", out).returncode == 0), \
        f"exit 143, interrupted, PARTIAL; --resume with no option: {what}"


MACHINE = (
    Hostile("a SUT's store file a symlink out of its volume", "store", _store("link-out")),
    Hostile("a fifo in a SUT's store volume", "store", _store("fifo")),
    Hostile("run on a full disk (ENOSPC), then --resume once freed", "machine", _full_disk_run),
    Hostile("run, report, site, analyze, keygen on a full disk (ENOSPC)", "machine",
            _commands_on_disk("size=8k", "no space left on the device")),
    Hostile("run, report, site, analyze, keygen on a read-only file system (EROFS)", "machine",
            _commands_on_disk("ro", "the file system is read-only")),
    Hostile("sign a set on a full disk (ENOSPC)", "machine", _sign_on_full_disk),
    Hostile("report --out in a folder one may not write (EACCES)", "machine", _not_writable),
    Hostile("report and verify --json of a set one may not read (EACCES)", "machine", _not_readable),
    Hostile("a file where a folder goes (--out FILE, ENOTDIR), a name too long (ENAMETOOLONG)", "machine",
            _file_where_folder),
    Hostile("sign: manifest.sig a folder (EISDIR)", "machine", _signature_folder),
    Hostile("SIGTERM mid-run, then --resume with no option", "signal", _sigterm),
)
