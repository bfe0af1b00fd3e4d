"""The profile fuzz table (issue 14): every class of malformed profile the issue names, and the
ones found beside them, each a small edit of one valid profile. Each case must be a ProfileError
naming the field (at the edited line, where the edit has one) and a fix, and ``memlab run --sut``
on it (local runtime, ``--out`` under tmp_path) must exit 2 with nothing written outside ``--out``.
``bench/profile_fuzz.py`` runs the same table as a user would and prints tried / rejected;
tests/adversarial/test_profile_hostile.py has the cases that are not one edit of one file.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner
from profile_text import REFERENCE_STORE

from lab.cli import main
from lab.profile import ProfileError, load_profile

BASE = textwrap.dedent("""\
    row: fuzz
    title: Fuzz base, a valid reference row
    status: runnable
    sut: {package: memlab-reference, version: 0.1.0, commit: null}
    driver: reference
    volumes:
      store: {adversary: true}
    store:
      backend: sqlite
      volume: store
    """) + textwrap.indent(REFERENCE_STORE, "  ") + textwrap.dedent("""\
      metadata: {role: role, source: source, timestamp: created_at}
    capabilities: {erasure: record, order: true, metadata: true, snapshot: true}
    configuration:
      storage: sqlite
      seal: none
      head: none
      head_location: no head
      adversary_holds: [store]
    detection_points: [read]
    signals: [{channel: log, level: WARNING, pattern: integrity}]
    dut_boundary: refmem and its driver; the store files in volume store
    timeouts: {start: 30, op: 30}
    notes: a valid profile that the fuzz cases edit
    """)
DEEP = "[" * 100_000 + "]" * 100_000
BOMB = "".join(f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]\n" for i in range(1, 10))


@dataclass(frozen=True)
class Case:
    """One malformed profile: ``old`` in BASE replaced by ``new`` (``old=None``: ``new`` is the whole
    file), the field the error must name, and whether the error's line is the edit's (``at_edit``)."""

    id: str
    old: str | None
    new: str | bytes
    field: str
    at_edit: bool = True

    def text(self) -> str | bytes:
        if self.old is None:
            return self.new
        assert BASE.count(self.old) == 1, self.old
        return BASE.replace(self.old, self.new)

    def edit_line(self) -> int:
        """The line where the edited text first differs from BASE."""
        text = self.text()
        at = next(i for i, (a, b) in enumerate(zip(BASE + "\0", text + "\1")) if a != b)
        return text[:at].count("\n") + 1


def c(id, old, new, field, at_edit=True):
    return Case(id, old, new, field, at_edit)


CASES = [
    # wrong meaning once YAML has read it (the "silently accepted")
    c("version-float", "version: 0.1.0", "version: 0.10", "sut.version"),
    c("version-int", "version: 0.1.0", "version: 2", "sut.version"),
    c("version-date", "version: 0.1.0", "version: 2024-01-01", "sut.version"),
    c("commit-int", "commit: null", "commit: 1234567", "sut.commit"),
    c("commit-float", "commit: null", "commit: 12.50", "sut.commit"),
    c("config-version-float", "  storage: sqlite\n", "  storage: sqlite\n  schema_version: 1.10\n",
      "configuration.schema_version"),
    c("signal-bad-regex", "pattern: integrity", "pattern: 'integ(rity'", "signals[0].pattern"),
    c("signal-bad-regex-bracket", "pattern: integrity", "pattern: '[a-'", "signals[0].pattern"),
    c("signal-level-loud", "level: WARNING", "level: LOUD", "signals[0].level"),
    c("signal-level-lowercase", "level: WARNING", "level: warning", "signals[0].level"),
    c("signal-level-number", "level: WARNING", "level: 30", "signals[0].level"),
    c("signal-channel", "channel: log", "channel: email", "signals[0].channel"),
    c("signal-unknown-key", "pattern: integrity", "regex: integrity", "signals[0].regex"),
    c("signal-pattern-bool", "pattern: integrity", "pattern: yes", "signals[0].pattern"),
    c("signals-mapping", "signals: [{channel: log, level: WARNING, pattern: integrity}]",
      "signals: {channel: log}", "signals"),
    c("timeout-bool", "start: 30", "start: true", "timeouts.start"),
    c("timeout-tiny", "op: 30", "op: 0.0001", "timeouts.op"),
    c("timeout-inf", "op: 30", "op: .inf", "timeouts.op"),
    c("timeout-nan", "op: 30", "op: .nan", "timeouts.op"),
    c("timeout-negative", "start: 30", "start: -5", "timeouts.start"),
    c("timeout-zero", "start: 30", "start: 0", "timeouts.start"),
    c("timeout-huge", "op: 30", "op: 86400", "timeouts.op"),
    c("timeout-exponent-text", "op: 30", "op: 1e3", "timeouts.op"),
    c("timeout-string", "op: 30", "op: '30'", "timeouts.op"),
    c("timeout-unknown", "op: 30", "op: 30, read: 5", "timeouts.read"),
    c("duplicate-top-key", "title: Fuzz", "row: other\ntitle: Fuzz", "row"),
    c("duplicate-store-key", "  table: records\n", "  table: records\n  table: other\n", "store.table"),
    c("duplicate-flow-key", "{adversary: true}", "{adversary: true, adversary: false}", "volumes.store.adversary"),
    # row names that become folders and file names of the result set
    c("row-slash", "row: fuzz", "row: fuzz/a", "row"),
    c("row-climbs", "row: fuzz", "row: ../../escape", "row"),
    c("row-dotdot", "row: fuzz", "row: '..'", "row"),
    c("row-dot-start", "row: fuzz", "row: .hidden", "row"),
    c("row-absolute", "row: fuzz", "row: /tmp/fuzz", "row"),
    c("row-newline", "row: fuzz", 'row: "fuzz\\nINJECTED"', "row"),
    c("row-ansi", "row: fuzz", 'row: "\\e[31mfuzz"', "row"),
    c("row-nul", "row: fuzz", 'row: "fuzz\\0"', "row"),
    c("row-space", "row: fuzz", "row: fuzz row", "row"),
    c("row-empty", "row: fuzz", "row: ''", "row"),
    c("row-bool", "row: fuzz", "row: yes", "row"),
    c("row-int", "row: fuzz", "row: 123", "row"),
    c("row-long", "row: fuzz", "row: " + "f" * 200, "row"),
    c("row-missing", "row: fuzz\n", "", "row", at_edit=False),
    c("title-ansi", "title: Fuzz base, a valid reference row", 'title: "\\e[2J\\e[Hcleared"', "title"),
    c("title-newline", "title: Fuzz base, a valid reference row", 'title: "one\\ntwo"', "title"),
    c("notes-ansi", "notes: a valid profile that the fuzz cases edit", 'notes: "\\e[31ma valid"', "notes"),
    c("config-ansi", "  seal: none\n", '  seal: none\n  label: "\\e]0;owned\\a"\n', "configuration.label"),
    # paths: volumes, the store's file and tables, the driver
    c("volume-climbs", "  store: {adversary: true}\n", "  ../up: {adversary: true}\n  store: {adversary: true}\n",
      "volumes"),
    c("volume-absolute", "  store: {adversary: true}\n", "  /tmp/vol: {adversary: true}\n  store: {adversary: true}\n",
      "volumes"),
    c("volume-int-name", "  store: {adversary: true}\n", "  1: {adversary: true}\n  store: {adversary: true}\n",
      "volumes"),
    c("volume-adversary-string", "{adversary: true}", "{adversary: maybe}", "volumes.store"),
    c("volume-adversary-int", "{adversary: true}", "{adversary: 1}", "volumes.store"),
    c("volumes-empty", "volumes:\n  store: {adversary: true}\n", "volumes: {}\n", "volumes"),
    c("store-volume-undeclared", "  volume: store", "  volume: other", "store.volume"),
    c("store-volume-not-held", "{adversary: true}", "{adversary: false}", "store.volume", at_edit=False),
    c("store-file-absolute", "file: memory.db", "file: /etc/memlab-outside.db", "store.file"),
    c("store-file-climbs", "file: memory.db", "file: ../../outside.db", "store.file"),
    c("store-file-climbs-inside", "file: memory.db", "file: sub/../../outside.db", "store.file"),
    c("store-file-backslash", "file: memory.db", "file: '..\\outside.db'", "store.file"),
    c("store-file-drive", "file: memory.db", "file: 'C:/outside.db'", "store.file"),
    c("store-file-empty", "file: memory.db", "file: ''", "store.file"),
    c("store-file-nul", "file: memory.db", 'file: "memory.db\\0"', "store.file"),
    c("store-table-injection", "table: records", "table: 'records; DROP TABLE records'", "store.table"),
    c("store-table-quote", "table: records", "table: 'rec\"ords'", "store.table"),
    c("store-unknown-field", "  table: records\n", "  table: records\n  tabel: records\n", "store.tabel"),
    c("store-backend", "backend: sqlite", "backend: oracle", "store.backend"),
    c("store-identity-string", "identity: [id]", "identity: id", "store.identity"),
    c("sealed-mismatch", "snapshot: true}", "snapshot: true, sealed: true}", "capabilities.sealed"),
    c("driver-climbs", "driver: reference", "driver: ../../tmp", "driver"),
    c("driver-dot-climbs", "driver: reference", "driver: ./../../tmp", "driver"),
    c("driver-missing", "driver: reference", "driver: nowhere", "driver"),
    c("driver-int", "driver: reference", "driver: 5", "driver"),
    c("services-name-climbs", "timeouts:", "services: {../db: {kind: postgres, volume: store}}\ntimeouts:", "services"),
    c("services-kind", "timeouts:", "services: {db: {kind: mysql, volume: store}}\ntimeouts:", "services.db.kind"),
    c("services-volume", "timeouts:", "services: {db: {kind: postgres, volume: nowhere}}\ntimeouts:",
      "services.db.volume"),
    # enums, lists and unknown fields
    c("status", "status: runnable", "status: maybe", "status"),
    c("unavailable-no-reason", "status: runnable", "status: unavailable", "unavailable_reason", at_edit=False),
    c("position", "timeouts:", "position: moving\ntimeouts:", "position"),
    c("observation-class", "timeouts:", "observation_class: b\ntimeouts:", "observation_class"),
    c("erasure", "erasure: record", "erasure: sometimes", "capabilities.erasure"),
    c("capability-string-bool", "order: true", "order: 'yes'", "capabilities.order"),
    c("capability-unknown", "snapshot: true}", "snapshot: true, encrypted: true}", "capabilities.encrypted"),
    c("detection-repeated", "detection_points: [read]", "detection_points: [read, read]", "detection_points"),
    c("detection-empty", "detection_points: [read]", "detection_points: []", "detection_points"),
    c("detection-unknown", "detection_points: [read]", "detection_points: [write]", "detection_points"),
    c("measurements-repeated", "timeouts:", "measurements: [at_rest, at_rest]\ntimeouts:", "measurements"),
    c("lifecycle-not-measured", "timeouts:", "lifecycle: {capabilities: [ttl]}\ntimeouts:", "lifecycle"),
    c("unknown-top-field", "title: Fuzz", "colour: blue\ntitle: Fuzz", "colour"),
    c("sut-unknown-field", "commit: null}", "commit: null, versoin: 1}", "sut.versoin"),
    c("sut-no-version", "version: 0.1.0, ", "", "sut.version", at_edit=False),
    c("fork-server-enabled", "timeouts:", "fork_server: {enabled: 'yes'}\ntimeouts:", "fork_server.enabled"),
    c("fork-server-preload", "timeouts:", "fork_server: {preload: ['os; rm -rf /']}\ntimeouts:",
      "fork_server.preload[0]"),
    c("fork-server-unknown", "timeouts:", "fork_server: {enable: true}\ntimeouts:", "fork_server.enable"),
    # the file itself: YAML that costs too much or is not one mapping
    c("deep-nesting", None, BASE + f"deep: {DEEP}\n", "(yaml)", at_edit=False),
    c("alias-bomb", None, BASE + BOMB.replace("*l0", "lol"), "(yaml)", at_edit=False),
    c("alias-recursive", None, BASE + "loop: &loop [*loop]\n", "(yaml)", at_edit=False),
    c("two-documents", None, BASE + "---\nrow: second\n", "(yaml)", at_edit=False),
    c("syntax-error", None, BASE + "notes: [unclosed\n", "(yaml)", at_edit=False),
    c("tab-indent", "  volume: store", "\tvolume: store", "(yaml)", at_edit=False),
    c("python-tag", "title: Fuzz base, a valid reference row", "title: !!python/object/apply:os.system [id]",
      "(yaml)", at_edit=False),
    c("complex-key", "title: Fuzz", "? [a, b]\n: c\ntitle: Fuzz", "(top)", at_edit=False),
    c("top-list", None, "- row: fuzz\n", "(top)", at_edit=False),
    c("empty-file", None, "", "(top)", at_edit=False),
    c("not-utf8", None, BASE.encode() + b"notes2: \xff\xfe\n", "(file)", at_edit=False),
    c("too-large", None, BASE + "# " + "x" * 1_100_000 + "\n", "(file)", at_edit=False),
    # text a terminal or a canonical encoding would choke on, in a value the error quotes (issue 28)
    c("surrogate-title", "title: Fuzz base, a valid reference row", 'title: "Fuzz \\ud800 base"', "(yaml)"),
    c("markup-row", "row: fuzz", 'row: "[/x]fuzz"', "row"),
    c("markup-volume", "  store: {adversary: true}", '  "[bold]store[/x]": {adversary: true}', "volumes"),
    c("markup-signal-pattern", "pattern: integrity", 'pattern: "[/x"', "signals[0].pattern"),
]


def write(folder: Path, case: Case) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "fuzz.yaml"
    text = case.text()
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


def test_the_base_profile_is_valid(tmp_path):
    prof = load_profile(write(tmp_path, Case("base", "row: fuzz", "row: fuzz", "")))
    assert prof.row == "fuzz" and prof.store.file == "memory.db" and prof.timeouts == {"start": 30.0, "op": 30.0}


def test_case_ids_are_unique():
    assert len({case.id for case in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_malformed_profile_is_rejected_with_field_and_fix(tmp_path, case):
    path = write(tmp_path, case)
    with pytest.raises(ProfileError) as info:
        load_profile(path)
    err = info.value
    assert err.field == case.field, str(err)
    assert err.fix and "fix:" in str(err) and str(path) in str(err)
    if case.at_edit:
        assert err.line == case.edit_line(), str(err)
    assert "\x1b" not in str(err) and "\x00" not in str(err)


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_memlab_run_on_it_exits_2_and_writes_only_under_out(tmp_path, case, cache):
    write(tmp_path / "p", case)
    result = CliRunner().invoke(main, ["run", "--sut", "fuzz", "--runtime", "local", "--no-reports",
                                       "--profiles", str(tmp_path / "p"), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "p"]
    assert [p.name for p in (tmp_path / "out" / "rows").iterdir()] == ["fuzz@read.json"]
    assert "invalid profile" in result.output and case.field in result.output
