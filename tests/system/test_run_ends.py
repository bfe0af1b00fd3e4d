"""However ``memlab run`` ends, its set verifies or says PARTIAL, and what it prints is the fix:
SIGTERM as Ctrl-C (exit 143, the set says interrupted, ``--resume`` completes it with the killed
run's own options), a full disk and a read-only ``--out`` (exit 2 with the path and the fix, nothing
left in the set that verify would count), a folder one may not write or read (the same), and a fault
of the lab itself (its traceback kept outside the set)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from machine import as_nobody, memlab_line, on_tmpfs
from resultsets import memlab

from lab.cli import main
from lab.resultset.verify import verify

ROOT = Path(__file__).resolve().parents[2]
FAULTY = ROOT / "tests" / "fixtures" / "faulty"


def _slow_run(out: Path, cache: Path, *options: str) -> subprocess.Popen:
    """``memlab run`` of the slow faulty row, once it has saved C1 (a SUT is running then)."""
    argv = [sys.executable, "-m", "lab.cli", "run", "--profiles", str(FAULTY), "--sut", "faulty-slow", "--out",
            str(out), "--runtime", "local", "--no-reports", *options]
    proc = subprocess.Popen(argv, cwd=ROOT, env={**os.environ, "MEMLAB_CACHE": str(cache)},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not (out / "observations" / "faulty-slow" / "C1.json").exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the slow run did not get past C1"
        time.sleep(0.1)
    time.sleep(0.5)
    return proc


def _no_stray_files(out: Path) -> list[str]:
    """Files in a set that no writer of memlab leaves: temporary files, a harness-error.txt."""
    return sorted(str(p.relative_to(out)) for p in out.rglob("*")
                  if p.name.endswith(".tmp") or p.name == "harness-error.txt")


def test_sigterm_is_ctrl_c_and_resume_takes_the_killed_runs_options(tmp_path, cache):
    out = tmp_path / "out"
    proc = _slow_run(out, cache, "--nonce", "term", "--records", "6")
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 143, err
    assert "interrupted (SIGTERM)" in err and f"memlab run --resume {out}" in err and "Traceback" not in err
    run = json.loads((out / "run.json").read_text())
    assert (run["status"], run["signal"]) == ("interrupted", "SIGTERM") and run["finished"]
    done = memlab("verify", out, cache=cache)
    assert done.returncode == 3 and "PARTIAL" in done.stdout, done.stdout
    assert _no_stray_files(out) == []

    refused = memlab("run", "--resume", out, "--profiles", FAULTY, "--records", "7", cache=cache)
    assert refused.returncode == 2 and "option records 6, now 7: give --records 6" in refused.stderr, refused.stderr
    resumed = memlab("run", "--resume", out, "--profiles", FAULTY, "--no-reports", cache=cache)  # no option repeated
    assert resumed.returncode == 0, resumed.stderr
    assert verify(out).ok, verify(out).findings
    run = json.loads((out / "run.json").read_text())
    assert run["status"] == "completed" and "signal" not in run
    assert run["options"]["nonce"] == "term" and run["options"]["records"] == 6
    seed = json.loads((out / "observations" / "faulty-slow" / "seed.json").read_text())
    assert seed["status"] == "measured", seed.get("error")  # the SUT SIGTERM killed left no error behind


def test_a_full_disk_is_exit_2_with_the_path_and_leaves_a_partial_set_that_resumes(tmp_path, cache):
    full, copy = tmp_path / "full", tmp_path / "copy"
    full.mkdir()
    script = (f"{memlab_line('run', '--runtime', 'local', '--sut', 'reference-naive', '--nonce', 'disk', '--out', full / 'rs', '--no-reports')}"
              f" > {tmp_path / 'run.out'} 2> {tmp_path / 'run.err'}; echo $? > {tmp_path / 'run.code'}; "
              f"{memlab_line('verify', full / 'rs')} > {tmp_path / 'verify.out'}; echo $? > {tmp_path / 'verify.code'}; "
              f"cp -a {full / 'rs'} {copy}")
    done = on_tmpfs(full, "size=100k", script, {"MEMLAB_CACHE": str(cache)})
    assert done.returncode == 0, done.stderr
    err = (tmp_path / "run.err").read_text()
    assert (tmp_path / "run.code").read_text().strip() == "2", err
    assert "no space left on the device" in err and f"{full}/rs/" in err and "fix: free space" in err, err
    assert f"memlab run --resume {full / 'rs'}" in err and "Traceback" not in err
    verified = (tmp_path / "verify.out").read_text()
    assert (tmp_path / "verify.code").read_text().strip() == "3" and "PARTIAL" in verified, verified
    assert _no_stray_files(copy) == []
    resumed = memlab("run", "--resume", copy, "--no-reports", cache=cache)  # space freed: the copy completes
    assert resumed.returncode == 0, resumed.stderr
    assert verify(copy).ok, verify(copy).findings


def test_a_read_only_out_is_exit_2_with_the_path(tmp_path, cache):
    ro = tmp_path / "ro"
    ro.mkdir()
    script = (f"{memlab_line('run', '--runtime', 'local', '--sut', 'reference-naive', '--out', ro / 'rs')}; "
              f"echo code=$?")
    done = on_tmpfs(ro, "ro", script, {"MEMLAB_CACHE": str(cache)})
    assert "code=2" in done.stdout, done.stdout + done.stderr
    assert f"{ro / 'rs'}: the file system is read-only" in done.stderr and "fix:" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_reports_site_and_sign_on_a_full_or_read_only_disk_are_exit_2(tmp_path, cache):
    rs = tmp_path / "rs"
    assert memlab("run", "--runtime", "local", "--sut", "reference-naive", "--nonce", "w", "--out", rs,
                  cache=cache).returncode == 0
    assert memlab("keygen", tmp_path / "k.pem", cache=cache).returncode == 0
    disk = tmp_path / "disk"
    disk.mkdir()
    lines = {"report": memlab_line("report", rs, "--format", "html", "--out", disk / "r.html"),
             "site": memlab_line("site", rs, "--out", disk / "site", "--sweeps", tmp_path),
             "analyze": memlab_line("analyze", rs, "--out", disk / "an"),
             "keygen": memlab_line("keygen", disk / "k.pem")}
    for options, said in (("size=8k", "no space left on the device"), ("ro", "the file system is read-only")):
        script = "; ".join(f"{line}; echo {name}=$?" for name, line in lines.items())
        done = on_tmpfs(disk, options, script, {"MEMLAB_CACHE": str(cache)})
        for name in lines:
            assert f"{name}=2" in done.stdout, (options, name, done.stdout, done.stderr)
        assert done.stderr.count(said) == len(lines) and "Traceback" not in done.stderr, done.stderr


def test_sign_on_a_full_or_read_only_disk_is_exit_2_and_the_set_still_verifies(tmp_path, cache):
    rs = tmp_path / "rs"
    assert memlab("run", "--runtime", "local", "--sut", "reference-naive", "--nonce", "s", "--out", rs,
                  "--no-reports", cache=cache).returncode == 0
    assert memlab("keygen", tmp_path / "k.pem", cache=cache).returncode == 0
    disk = tmp_path / "disk"
    disk.mkdir()
    for spoil, said in ((f"head -c 4M /dev/zero > {disk / 'fill'}", "no space left on the device"),
                        (f"mount -o remount,ro {disk}", "the file system is read-only")):
        script = (f"cp -a {rs} {disk / 'set'} && {spoil}; "
                  f"{memlab_line('sign', disk / 'set', '--key', tmp_path / 'k.pem')}; echo sign=$?; "
                  f"{memlab_line('verify', disk / 'set')}; echo verify=$?; ls -a {disk / 'set'}")
        done = on_tmpfs(disk, "size=2m", script, {"MEMLAB_CACHE": str(cache)})
        assert "sign=2" in done.stdout and "verify=0" in done.stdout, (said, done.stdout, done.stderr)
        assert f"{disk / 'set' / 'manifest.sig'}: {said}" in done.stderr and "Traceback" not in done.stderr
        assert ".tmp" not in done.stdout and "manifest.sig" not in done.stdout.split("verify=0", 1)[1]


def test_a_folder_one_may_not_write_or_read_is_exit_2_with_the_path(tmp_path, cache):
    readable = Path(tempfile.mkdtemp(prefix="memlab-eacces-"))
    try:
        rs = readable / "rs"
        assert memlab("run", "--runtime", "local", "--sut", "reference-naive", "--nonce", "a", "--out", rs,
                      "--no-reports", cache=cache).returncode == 0
        for path in [readable, *readable.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        env = {"MEMLAB_CACHE": str(readable / "cache")}
        for args, path in ((("report", rs, "--format", "markdown", "--out", "/memlab-eacces.md"), "/memlab-eacces.md"),
                           (("run", "--runtime", "local", "--sut", "reference-naive", "--out", "/memlab-eacces"),
                            "/memlab-eacces"),
                           (("verify", tmp_path), str(tmp_path)), (("report", tmp_path), str(tmp_path))):
            tmp_path.chmod(0o700)  # pytest's folders are its owner's alone: nobody may not read them
            done = as_nobody(*args, env=env)
            assert done.returncode == 2, (args, done.stdout, done.stderr)
            assert f"{path}: permission denied" in done.stderr and "Traceback" not in done.stderr, done.stderr
        assert not Path("/memlab-eacces.md").exists() and not Path("/memlab-eacces").exists()
    finally:
        shutil.rmtree(readable)


def test_a_fault_of_the_lab_keeps_its_traceback_outside_the_set(tmp_path, monkeypatch):
    import lab.method.engine as engine

    def broken(profiles, runtime, out, **kwargs):
        Path(out).mkdir(parents=True)
        (Path(out) / "run.json").write_text('{"status": "running"}\n')
        raise RuntimeError("a bug of the lab [/x]")

    monkeypatch.setattr(engine, "run_matrix", broken)
    monkeypatch.setenv("MEMLAB_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["run", "--runtime", "local", "--sut", "reference-naive", "--out", str(out)])
    assert result.exit_code == 2, result.output
    assert "harness failure: RuntimeError: a bug of the lab [/x]" in result.output
    kept = list((tmp_path / "cache" / "harness-errors").glob("*.txt"))
    assert len(kept) == 1 and "RuntimeError" in kept[0].read_text() and str(kept[0]) in result.output
    assert sorted(p.name for p in out.iterdir()) == ["run.json"]  # no harness-error.txt in the set
