"""``memlab site`` interrupted: no index naming a page that is not there, nothing of its own left behind,
and the exit code of the signal (130 Ctrl-C, 143 SIGTERM), never 1, which CI reads as a verdict."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from lab.cli import main
from lab.cli.signals import Terminated
from lab.report import site

ROOT = Path(__file__).resolve().parents[2]
SUTS = [site.SutResults(name=f"sut-{i}", rows=[]) for i in range(4)]


def test_an_interrupted_site_leaves_the_folder_as_it_was(tmp_path, monkeypatch):
    out = tmp_path / "site"
    out.mkdir()
    (out / "index.html").write_text("the index before")
    (out / "sut-0.html").write_text("a page before")
    rendered = []

    def render(sut):
        if len(rendered) == 2:
            raise KeyboardInterrupt
        rendered.append(sut.name)
        return f"page of {sut.name}"

    monkeypatch.setattr(site, "render_sut", render)
    monkeypatch.setattr(site, "render_index", lambda suts: "the new index")
    with pytest.raises(KeyboardInterrupt):
        site.write_site(SUTS, out)
    assert sorted(p.name for p in out.iterdir()) == ["index.html", "sut-0.html"]  # no staging folder left
    assert (out / "index.html").read_text() == "the index before"
    assert (out / "sut-0.html").read_text() == "a page before"


def test_a_whole_site_is_every_page_then_the_index(tmp_path, monkeypatch):
    monkeypatch.setattr(site, "render_sut", lambda sut: f"page of {sut.name}")
    monkeypatch.setattr(site, "render_index", lambda suts: "the index")
    written = site.write_site(SUTS, tmp_path / "site")
    assert [p.name for p in written] == ["index.html", *(f"sut-{i}.html" for i in range(4))]
    assert sorted(p.name for p in (tmp_path / "site").iterdir()) == sorted(p.name for p in written)
    assert (tmp_path / "site" / "sut-3.html").read_text() == "page of sut-3"


def test_a_page_where_a_link_stands_is_refused_and_nothing_moves(tmp_path, monkeypatch):
    monkeypatch.setattr(site, "render_sut", lambda sut: f"page of {sut.name}")
    monkeypatch.setattr(site, "render_index", lambda suts: "the index")
    out = tmp_path / "site"
    out.mkdir()
    (tmp_path / "elsewhere.html").write_text("not the lab's")
    (out / "sut-2.html").symlink_to(tmp_path / "elsewhere.html")
    with pytest.raises(OSError, match="symlink"):
        site.write_site(SUTS, out)
    assert sorted(p.name for p in out.iterdir()) == ["sut-2.html"]
    assert (tmp_path / "elsewhere.html").read_text() == "not the lab's"


@pytest.mark.parametrize("interrupt, code", [(KeyboardInterrupt, 130), (Terminated, 143)])
def test_the_command_interrupted_exits_with_its_signal_s_code(tmp_path, monkeypatch, interrupt, code):
    def interrupted(suts, out):
        raise interrupt()

    monkeypatch.setattr(site, "write_site", interrupted)
    result = CliRunner().invoke(main, ["site", str(ROOT / "results" / "published" / "acrf-memory-guard"),
                                       "--out", str(tmp_path / "out"), "--no-verify"])
    assert result.exit_code == code, result.output
    assert "interrupted" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("signum, code", [(2, 130), (15, 143)])
def test_a_real_signal_mid_way_ends_with_its_code_and_no_index(tmp_path, signum, code):
    """The signal sent to a real ``memlab site`` over every published set (which takes far longer than the
    three seconds given it): the signal's code, and no index in --out."""
    import signal
    import subprocess
    import sys
    import time

    sets = sorted(str(p) for p in (ROOT / "results" / "published").iterdir() if p.is_dir())
    proc = subprocess.Popen([sys.executable, "-m", "lab.cli", "site", *sets, "--out", str(tmp_path / "out")],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(3)
    proc.send_signal(signal.Signals(signum))
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == code, stderr[-2000:]
    assert "Traceback" not in stderr and not (tmp_path / "out" / "index.html").exists()
