"""``memlab list`` and ``memlab images list`` fit the terminal they are printed on: run in a pseudo-terminal
80 (and 60) columns wide, as a user's terminal shows them, no line is wider than the terminal (but a
name or word longer than a line by itself, alone on its line), and every name their ``--json`` gives
is there whole, with what it says of it. The layout (lab.cli.fit) keeps every word of any text at any
width. No Docker: ``images list`` speaks to a stand-in ``docker`` command (MEMLAB_DOCKER) answering as an
engine does, or as none does; the one test that reads the real engine is marked ``docker``.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import struct
import subprocess
import sys
import termios
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import cell_len

from lab.cli.fit import Row, lay_out, plain, table_fits

ROOT = Path(__file__).resolve().parents[2]
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")
MEMLAB = [sys.executable, "-m", "lab.cli"]


def in_terminal(args: list[str], columns: int, env: dict[str, str] | None = None) -> tuple[int, str]:
    """The exit code of ``memlab ARGS`` run on a terminal ``columns`` wide, and what its standard output
    shows there (escape sequences removed; standard error goes elsewhere)."""
    pid, master = pty.fork()
    if pid == 0:  # the child: its standard input and output are the terminal
        try:
            os.environ.update({"COLUMNS": str(columns), "TERM": "xterm-256color", **(env or {})})
            os.environ.pop("NO_COLOR", None)
            os.chdir(ROOT)
            os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
            os.execv(sys.executable, [*MEMLAB, *args])
        finally:
            os._exit(127)
    fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    chunks = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child's end is closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), ANSI.sub("", b"".join(chunks).decode()).replace("\r\n", "\n")


def as_json(args: list[str], env: dict[str, str] | None = None) -> tuple[int, list[dict], str]:
    done = subprocess.run([*MEMLAB, *args, "--json"], cwd=ROOT, env={**os.environ, **(env or {})},
                          capture_output=True, text=True, timeout=120)
    return done.returncode, json.loads(done.stdout), done.stderr


def flat(text: str) -> str:
    """``text`` with every run of white space one space: wrapping at spaces leaves it as it was."""
    return " ".join(text.split())


def check_fits(text: str, columns: int, unbreakable: set[str]) -> None:
    """No line wider than ``columns``, but one holding nothing but a name or word that is wider by itself."""
    for line in text.splitlines():
        assert cell_len(line) <= columns or (line.strip() in unbreakable and cell_len(line.strip()) > columns), line


def said_of(name: str, text: str) -> list[str]:
    """The lines that begin with ``name`` (after their indent), each with the next line (a name's facts
    may be under it)."""
    lines = text.splitlines()
    return [" ".join(lines[i:i + 2]) for i, line in enumerate(lines) if line.split()[:1] == [name]]


# ---- memlab list -----------------------------------------------------------------------

LONG_ROW = "a" * 10 + "-very-long-row-name-" + "x" * 50  # 80 characters: the longest a row name may be
URL = "https://example.invalid/" + "p" * 70  # a word longer than any line it could sit on
UNAVAILABLE = textwrap.dedent(f"""\
    row: {LONG_ROW}
    title: A row whose name is as long as one may be
    status: unavailable
    unavailable_reason: >-
      package an-extraordinarily-long-package-name-for-a-memory-layer is on no registry this host reaches
      (pip download: versions: none; npm view: E404), see {URL} and ask its authors for a wheel
    sut: {{package: an-extraordinarily-long-package-name-for-a-memory-layer, version: 10.20.30-rc.400, commit: null}}
    """)


@pytest.fixture(scope="module")
def profiles(tmp_path_factory) -> Path:
    """The shipped profiles, one row with the longest name and an unbreakable word in its reason, and
    an invalid profile."""
    folder = tmp_path_factory.mktemp("profiles")
    for path in (ROOT / "sut_profiles").glob("*.yaml"):
        (folder / path.name).write_bytes(path.read_bytes())
    (folder / "long.yaml").write_text(UNAVAILABLE)
    (folder / "broken-profile.yaml").write_text("row: broken-profile\n")
    return folder


@pytest.fixture(scope="module")
def listed(profiles) -> list[dict]:
    code, rows, err = as_json(["list", "--runtime", "local", "--profiles", str(profiles)])
    assert code == 2 and "invalid profile" in err, err  # the invalid profile still makes it exit 2
    return rows


def test_list_json_is_the_profiles(listed, profiles):
    from lab.profile import scan_profiles

    valid, errors = scan_profiles(profiles)
    assert [r["row"] for r in listed] == ["broken-profile", *(p.row for p in valid)]
    assert all(set(r) == {"row", "sut", "version", "status", "runtime", "reason", "image_missing", "profile"}
               for r in listed)
    assert listed[0]["status"] == "invalid" and listed[0]["reason"].startswith(errors[0].field)
    for entry, prof in zip(listed[1:], valid):
        assert (entry["sut"], entry["version"]) == (prof.sut["package"], str(prof.sut["version"]))
        assert entry["runtime"] == "local" and entry["image_missing"] is None  # local: no image checked
        if prof.status == "unavailable":
            assert (entry["status"], entry["reason"]) == ("unavailable", prof.unavailable_reason)
        else:
            assert entry["status"] in ("runnable", "not-runnable")
            assert (entry["reason"] is None) == (entry["status"] == "runnable")
    assert {"unavailable", "not-runnable", "runnable"} <= {r["status"] for r in listed}  # each layout case


@pytest.mark.parametrize("columns", [80, 60])
def test_list_fits_the_terminal_and_says_every_row_whole(listed, profiles, columns):
    code, text = in_terminal(["list", "--runtime", "local", "--profiles", str(profiles)], columns)
    assert code == 2
    check_fits(text, columns, {LONG_ROW, URL})
    words = {"runnable": "runnable here (local)", "not-runnable": "not runnable", "unavailable": "unavailable",
             "invalid": "invalid profile"}
    for entry in listed:
        assert any(words[entry["status"]] in said for said in said_of(entry["row"], text)), entry["row"]
        for detail in (entry["reason"], entry["image_missing"]):
            assert detail is None or flat(detail) in flat(text)
        assert entry["status"] == "invalid" or f"{entry['sut']} {entry['version']}" in flat(text)


def test_list_keeps_a_table_where_it_fits(listed, profiles):
    code, text = in_terminal(["list", "--runtime", "local", "--profiles", str(profiles)], 200)
    assert code == 2 and text.startswith("row ")
    check_fits(text, 200, set())
    by_name = {line.split()[0]: line.split() for line in text.splitlines() if not line.startswith(" ")}
    for entry in listed:
        cells = by_name[entry["row"]]
        assert entry["status"] == "invalid" or cells[1:3] == [entry["sut"], entry["version"]], cells


def test_a_closed_pipe_ends_list_json_quietly():
    proc = subprocess.Popen([*MEMLAB, "list", "--runtime", "local", "--json"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0 and err == "", err


# ---- memlab images list ----------------------------------------------------------------

IMAGES = [  # what `docker images --format ...` says, and each image's labels
    ("memlab/sut-an-own-driver-with-a-rather-long-folder-name:8f368fac702d", "d36e9f29d0f2", "22 minutes ago",
     "1.23GB", {"memlab.image": "sut-an-own-driver-with-a-rather-long-folder-name",
                "memlab.deb.base-files": "12.4+deb12u15", "memlab.deb.python3": "3.11.2-1+b1"}),
    ("memlab/lab:3eae1f623e4f", "11bb5b763a3f", "23 minutes ago", "1.15GB",
     {"memlab.image": "lab", "memlab.deb.docker.io": "20.10.24+dfsg1-1+deb12u1+b6", "memlab.deb.python3": "3.11.2-1+b1"}),
    ("memlab/lab:latest", "11bb5b763a3f", "23 minutes ago", "1.15GB",
     {"memlab.image": "lab", "memlab.deb.docker.io": "20.10.24+dfsg1-1+deb12u1+b6", "memlab.deb.python3": "3.11.2-1+b1"}),
    ("memlab/postgres-pgvector:18", "2d76c5153b9e", "24 minutes ago", "219MB",
     {"memlab.image": "postgres-pgvector", "memlab.deb.libc6": "2.36-9+deb12u14", "memlab.deb.python3": "3.11.2-1+b1",
      "memlab.deb.zlib1g": "1:1.2.13.dfsg-1+deb12u1"}),
    ("memlab/base:bookworm", "390e55edc5f0", "2 days ago", "172MB", {"memlab.image": "base"}),
]
ENGINE = """#!{python}
import json, sys
images = {images!r}
args = sys.argv[1:]
if args[:1] == ["version"]:
    print("27.5.1")
elif args[:1] == ["images"]:
    for tag, short, created, size, _ in images:
        print("\\t".join((tag, short, created, size)))
elif args[:2] == ["image", "inspect"]:
    print(json.dumps(next(labels for _, short, _, _, labels in images if short == args[-1])))
else:
    sys.exit("the stand-in engine was asked " + " ".join(args))
"""
NO_ENGINE = ("#!/bin/sh\necho 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. "
             "Is the docker daemon running?' >&2\nexit 1\n")


@pytest.fixture
def engine(tmp_path) -> dict[str, str]:
    """An environment whose ``docker`` is a stand-in engine holding IMAGES, with one build record."""
    fake = tmp_path / "docker"
    fake.write_text(ENGINE.format(python=sys.executable, images=IMAGES))
    fake.chmod(0o755)
    (tmp_path / "cache" / "images").mkdir(parents=True)
    (tmp_path / "cache" / "images" / "lab.json").write_text(json.dumps({"seconds": 29.6}))
    return {"MEMLAB_DOCKER": str(fake), "MEMLAB_CACHE": str(tmp_path / "cache")}


def test_images_json_is_the_engines(engine):
    code, images, err = as_json(["images", "list"], engine)
    assert code == 0, err
    assert images[1] == {"name": "lab", "tag": "memlab/lab:3eae1f623e4f", "id": "11bb5b763a3f",
                         "created": "23 minutes ago", "size": "1.15GB",
                         "versions": {"docker.io": "20.10.24+dfsg1-1+deb12u1+b6", "python3": "3.11.2-1+b1"},
                         "build_seconds": 30}
    assert [(i["tag"], i["id"], i["created"], i["size"]) for i in images] == [row[:4] for row in IMAGES]
    assert [i["name"] for i in images] == [row[4]["memlab.image"] for row in IMAGES]
    assert images[-1]["versions"] == {} and images[-1]["build_seconds"] is None


@pytest.mark.parametrize("columns", [80, 60, 200, 300])
def test_images_list_fits_the_terminal_and_says_every_name_and_tag_whole(engine, columns):
    _, images, _ = as_json(["images", "list"], engine)
    code, text = in_terminal(["images", "list"], columns, engine)
    assert code == 0, text
    check_fits(text, columns, {i["tag"] for i in images} | {i["name"] for i in images})
    lines = text.splitlines()
    for image in images:
        # its name begins a line, and its tag is beside it or on the next line, whole
        at = next(k for k, line in enumerate(lines) if line.split()[:1] == [image["name"]]
                  and image["tag"] in " ".join(lines[k:k + 2]).split())
        end = next((k for k in range(at + 1, len(lines)) if not lines[k].startswith(" ")), len(lines))
        said = flat(" ".join(lines[at:end]))  # its line, and the indented ones under it
        for word in (image["id"], image["created"], image["size"], *(f"{k}={v}" for k, v in image["versions"].items())):
            assert word in said, (image["tag"], word)
        assert image["build_seconds"] is None or str(image["build_seconds"]) in said.split()
    if columns >= 200:  # the tag beside its name; at 300, a table: one line per image
        assert all(any({i["name"], i["tag"]} <= set(line.split()) for line in lines) for i in images)
    assert (len(lines) == 1 + len(images)) == (columns == 300)


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_images_list_without_an_engine_says_so_and_prints_nothing(tmp_path, json_flag):
    fake = tmp_path / "docker"
    fake.write_text(NO_ENGINE)
    fake.chmod(0o755)
    done = subprocess.run([*MEMLAB, "images", "list", *json_flag], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "MEMLAB_DOCKER": str(fake)}, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert "Cannot connect to the Docker daemon" in done.stderr and "fix: start an engine" in done.stderr


@pytest.mark.docker
def test_images_list_of_the_real_engine_fits_80_columns():
    code, images, err = as_json(["images", "list"])
    assert code == 0, err
    code, text = in_terminal(["images", "list"], 80)
    assert code == 0, text
    check_fits(text, 80, {i["tag"] for i in images})
    for image in images:
        assert image["tag"] in text.split() and image["name"] in text.split()


# ---- the layout, for any text at any width ---------------------------------------------

printable = st.characters(blacklist_categories=("C", "Z"))  # as lab.report.inert leaves text, less its spaces
cell = st.text(printable, min_size=1, max_size=90)  # a name or fact: one piece, never broken
prose = st.lists(cell, max_size=12).map(" ".join)  # a detail: words, some longer than a line


@st.composite
def listings(draw):
    count = draw(st.integers(0, 3))
    rows = [Row((draw(cell), "bold"), tuple((draw(st.one_of(cell, st.just(""))), "") for _ in range(count)),
                tuple(((draw(prose), "dim"),) for _ in range(draw(st.integers(0, 2)))),
                ((draw(prose), ""),) if draw(st.booleans()) else ())
            for _ in range(draw(st.integers(1, 6)))]
    return rows, draw(st.integers(40, 200)), draw(st.sampled_from([0, 2]))


@settings(max_examples=300, deadline=None)
@given(listings())
def test_any_listing_fits_any_width_and_keeps_every_word(listing):
    rows, width, indent = listing
    lines = [plain(line) for line in lay_out(rows, width, indent)]
    pieces = {r.name[0] for r in rows} | {f[0] for r in rows for f in r.facts}
    pieces |= {w for r in rows for text in (*r.details, r.heading) for piece, _ in text for w in piece.split(" ")}
    for line in lines:
        assert cell_len(line) <= width or (line.strip() in pieces and cell_len(line.strip()) > width), (width, line)
        assert line == line.rstrip() and line.strip()
    said = []  # every name, fact and word, in order, whole
    for row in rows:
        said += [w for piece, _ in row.heading for w in piece.split(" ") if w]
        said += [row.name[0]] + [f[0] for f in row.facts if f[0]]
        said += [w for text in row.details for piece, _ in text for w in piece.split(" ") if w]
    assert "".join(said) == "".join("".join(lines).split(" "))
    for row in rows:  # each name begins a line at the indent (less if that is what it takes to fit); in a
        facts = [f[0] for f in row.facts if f[0]]  # table, its facts beside it
        beside = [line.lstrip(" ").split(" ") for line in lines if len(line) - len(line.lstrip(" ")) <= indent]
        assert any(b[0] == row.name[0] and (not table_fits(rows, width, indent) or set(facts) <= set(b))
                   for b in beside)
