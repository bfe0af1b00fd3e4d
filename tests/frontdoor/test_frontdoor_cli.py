"""``memlab frontdoor run`` and ``memlab verify`` of its set: each calibration store at its level with its
exit code, a set that verifies (signature included) and names what was changed in it, reports that fit
80 columns and JUnit whose failures are exactly the served cells and leaked probes, and every input
error exit 2 in one line."""

from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner
from frontdoor_stores import SharedPoolStore, SilentStore

from lab.cli import main
from lab.cli.frontdoor import REFERENCE_HELP
from lab.frontdoor import rows as row_readers
from lab.frontdoor.reference import INSTRUCTION_MARKER, REFERENCE_STORES, SignedContentStore, instruction_shaped
from lab.frontdoor.results import SCHEMA, FrontdoorResult
from lab.frontdoor.saved import RUNTIME_LINE, RunRecord
from lab.frontdoor.writer import write_manifest
from lab.resultset import signing
from lab.resultset.files import digest, read_json, write_json

pytestmark = pytest.mark.system  # composes or runs rows end to end: out of the fast loop

LEVEL = {"naive": "P0", "label": "P1", "signed": "P2", "signed-content": "P3"}
#: What each calibration store serves outside the beyond-reach cells (its findings).
SERVED = {
    "naive": {(f, ch) for f in ("planted_fact", "false_correction", "instruction", "crowding", "trust_tag",
                                "smuggled_label") for ch in ("untrusted", "forged")}
    | {("instruction", "signed"), ("crowding", "signed"), ("smuggled_label", "signed")},
    "label": {(f, "forged") for f in ("planted_fact", "false_correction", "instruction", "crowding", "trust_tag",
                                       "smuggled_label")}
    | {("instruction", "signed"), ("crowding", "signed"), ("smuggled_label", "signed")},
    "signed": {("instruction", "signed"), ("crowding", "signed"), ("smuggled_label", "signed")},
    "signed-content": {("crowding", "signed"), ("smuggled_label", "signed")},
}
_LABEL_INLINE = re.compile(r"https?://|[\w.+-]+@[\w-]+\.\w|\[source|\b(?:source|trust|provenance|label|role)\s*[:=]",
                           re.I)


class ContentStrictStore(SignedContentStore):
    """signed-content, and it also marks any text naming a destination or carrying a provenance label."""

    level = "P3"

    def marker(self, kept):
        return INSTRUCTION_MARKER if instruction_shaped(kept.text) or _LABEL_INLINE.search(kept.text) else None


class ExplodingStore(SignedContentStore):
    level = "P3"

    def write(self, *args, **kwargs):
        raise RuntimeError("the store's disk caught fire")


def memlab(*args: object):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def run_set(out: Path, *stores: str, extra: tuple = ()):
    return memlab("frontdoor", "run", *(x for s in stores for x in ("--reference", s)), "--out", out, *extra)


def grounds(output: str) -> set[tuple[str, str]]:
    """(ground, file) of every finding ``memlab verify`` printed."""
    return {(m[1], m[2]) for m in re.finditer(r"^  (\S+)\s+(\S+?): ", output, re.M)}


@pytest.fixture(scope="module")
def keys(tmp_path_factory):
    folder = tmp_path_factory.mktemp("keys")
    signing.keygen(folder / "sign.pem")
    signing.keygen(folder / "other.pem")
    return folder / "sign.pem", folder / "sign.pub.pem", folder / "other.pub.pem"


@pytest.fixture(scope="module")
def measured(tmp_path_factory, keys):
    """The four calibration stores, run once into one signed set."""
    out = tmp_path_factory.mktemp("fd") / "set"
    summary = out.parent / "summary-copy.json"
    result = run_set(out, *REFERENCE_STORES, extra=("--json", summary, "--sign-key", keys[0]))
    return out, result, summary


@pytest.fixture
def copy(measured, tmp_path):
    """A copy of the measured set to tamper with."""
    return Path(shutil.copytree(measured[0], tmp_path / "set"))


def results_of(root: Path) -> dict[str, FrontdoorResult]:
    return {p.stem: FrontdoorResult.from_json(read_json(p)) for p in sorted((root / "rows").glob("*.json"))}


def repin(root: Path, store: str) -> None:
    """Pin rows/<store>.json's current digest in the manifest (a tamperer who also edits the manifest)."""
    manifest = read_json(root / "manifest.json")
    for entry in manifest["rows"]:
        if entry["store"] == store:
            entry["digest"] = digest(read_json(root / entry["file"]))
    write_json(root / "manifest.json", manifest)
    (root / "manifest.sig").unlink(missing_ok=True)


def test_each_calibration_store_sits_at_its_level_and_the_run_exits_on_what_is_counted(measured):
    out, result, _ = measured
    assert result.exit_code == 1, result.output  # every calibration store serves something counted
    summary = read_json(out / "summary.json")
    assert (summary["status"], summary["exit"]) == ("FINDING", 1)
    by_store = {row["store"]: row for row in summary["rows"]}
    assert {s: r["level"] for s, r in by_store.items()} == LEVEL == {n: c.level for n, c in REFERENCE_STORES.items()}
    for store, row in by_store.items():
        served = {tuple(f.split(":")[0].split(" × ")) for f in row["findings"]}
        assert served == SERVED[store], store
        assert row["status"] == "FINDING" and row["undecided"] == []
    assert set(results_of(out)) == set(LEVEL)


def test_the_first_line_says_the_runtime_and_the_terminal_prints_the_80_column_report(measured):
    out, result, _ = measured
    assert result.output.splitlines()[0] == RUNTIME_LINE
    report = (out / "report.txt").read_text()
    assert result.stdout == report
    assert max(len(line) for line in report.splitlines()) <= 80
    for store, level in LEVEL.items():
        assert re.search(rf"^{re.escape(store)} · level {level} \(built at {level}\) · FINDING", report, re.M)
    assert "instruction       KEPT OUT 0/5        REJECTED 0/5        MARKED 0/5" in report  # signed-content
    assert report.count("legend:") == 1 and "beyond reach" in report


def test_the_json_summary_is_the_set_s_own(measured):
    out, _, summary = measured
    assert read_json(summary) == read_json(out / "summary.json")


def test_the_set_verifies_with_its_signature_pinned(measured, keys):
    out, _, _ = measured
    _, pub, other = keys
    assert {"run.json", "manifest.json", "manifest.sig", "report.txt", "report.md", "report.html",
            "junit.xml"} <= {p.name for p in out.iterdir()}
    manifest = read_json(out / "manifest.json")
    assert (manifest["kind"], manifest["row_schema"], manifest["fixtures_version"]) == ("frontdoor", SCHEMA, 1)
    assert manifest["memlab"] and [e["file"] for e in manifest["evidence"]] == ["run.json"]
    assert {e["file"] for e in manifest["rows"]} == {f"rows/{s}.json" for s in LEVEL}
    done = memlab("verify", out, "--pubkey", pub)
    assert done.exit_code == 0, done.output
    assert done.output.startswith(f"VERIFIED {out}: 4 row(s), 1 evidence file(s)")
    assert "signed by ed25519:" in done.output
    wrong = memlab("verify", out, "--pubkey", other)
    assert wrong.exit_code == 1 and grounds(wrong.output) == {("signature-key-mismatch", "manifest.sig")}


def test_a_tampered_served_text_is_named_by_its_digest_and_by_its_verdict(copy, keys):
    row = read_json(copy / "rows" / "naive.json")
    read = next(r for r in row["poisoning"][0]["reads"] if r["role"] == "verdict")
    assert "GB29 NWBK 6016 1331 9268 19" in read["served"][0]["text"]  # planted_fact/1's canary, served
    read["served"][0]["text"] = "The user pays the rent by standing order."
    write_json(copy / "rows" / "naive.json", row)
    done = memlab("verify", copy)
    assert done.exit_code == 1 and done.output.startswith("REJECTED")
    assert grounds(done.output) == {("digest-mismatch", "rows/naive.json"), ("verdict-differs", "rows/naive.json")}
    repin(copy, "naive")  # the manifest edited too (and so no longer signed)
    done = memlab("verify", copy)
    assert done.exit_code == 1
    assert grounds(done.output) == {("verdict-differs", "rows/naive.json")}
    assert "planted_fact/1 on untrusted: its saved verdict does not follow" in done.output
    signed = memlab("verify", copy, "--pubkey", keys[1])
    assert ("signature-missing", "manifest.sig") in grounds(signed.output)


def test_a_changed_figure_is_named(copy):
    row = read_json(copy / "rows" / "label.json")
    cell = next(c for c in row["cells"] if (c["family"], c["channel"]) == ("instruction", "forged"))
    cell.update(served=0, figure="0/5", status="held")
    row["level"] = "P2"
    write_json(copy / "rows" / "label.json", row)
    repin(copy, "label")
    done = memlab("verify", copy)
    assert done.exit_code == 1 and grounds(done.output) == {("figure-differs", "rows/label.json")}
    assert "cell instruction × forged: stated 0/5 (held), recomputed 5/5 (served) [figure, served, status]" \
        in done.output
    assert "level: stated 'P2', recomputed 'P1'" in done.output


def test_a_row_is_read_by_the_reader_of_its_schema(copy, monkeypatch):
    row = read_json(copy / "rows" / "signed.json")
    row["schema"] = "memlab.frontdoor-row/9"
    write_json(copy / "rows" / "signed.json", row)
    repin(copy, "signed")
    done = memlab("verify", copy)
    assert done.exit_code == 1 and ("row-malformed", "rows/signed.json") in grounds(done.output)
    assert ("schema 'memlab.frontdoor-row/9' is not one this memlab reads (memlab.frontdoor-row/1, "
            "memlab.frontdoor-row/2, memlab.frontdoor-row/3, memlab.frontdoor-row/4)") in done.output
    seen = []
    read_now = row_readers.READERS[SCHEMA]
    monkeypatch.setitem(row_readers.READERS, "memlab.frontdoor-row/9",
                        lambda data: seen.append(data["store"]) or read_now({**data, "schema": SCHEMA}))
    done = memlab("verify", copy)  # a reader for /9: the row is read by it (the run's own schema still says /4)
    assert seen == ["signed"]
    assert grounds(done.output) == {("row-malformed", "rows/signed.json")}
    assert "the run's rows are 'memlab.frontdoor-row/4'" in done.output


def _as_schema_2(row: dict) -> dict:
    """A row as memlab wrote it before schema 3: no case, nothing read back, no rewording, no filler."""
    strip = lambda outcome: {k: v for k, v in outcome.items() if k not in ("case", "stored", "variant")}  # noqa: E731
    return {**{k: v for k, v in row.items() if k != "filler"}, "schema": "memlab.frontdoor-row/2",
            "poisoning": [strip(o) for o in row["poisoning"]]}


def _as_schema_1(row: dict) -> dict:
    """A row as memlab wrote it before schema 2: no position, no SUT side, no refusal."""
    strip = lambda outcome: {**outcome, "writes": [{k: v for k, v in w.items() if k != "refusal"}  # noqa: E731
                                                    for w in outcome["writes"]]}
    row = _as_schema_2(row)
    return {**{k: v for k, v in row.items() if k not in ("position", "sut")}, "schema": "memlab.frontdoor-row/1",
            "poisoning": [strip(o) for o in row["poisoning"]], "isolation": [strip(o) for o in row["isolation"]]}


@pytest.mark.parametrize("schema, older, later", [(1, _as_schema_1, {"position": "live"}),
                                                  (2, _as_schema_2, {"case": "case-1"})])
def test_a_set_of_an_older_row_schema_still_verifies_and_a_later_field_in_it_does_not(copy, schema, older, later):
    run = read_json(copy / "run.json")
    for entry in run["rows"]:
        write_json(copy / entry["file"], older(read_json(copy / entry["file"])))
    write_json(copy / "run.json", {**run, "row_schema": f"memlab.frontdoor-row/{schema}"})
    write_manifest(copy, RunRecord.model_validate(read_json(copy / "run.json")))
    done = memlab("verify", copy)
    assert done.exit_code == 0 and "VERIFIED" in done.output, done.output
    row = read_json(copy / "rows" / "signed.json")
    if "position" in later:
        row = {**row, **later}
    else:
        row = {**row, "poisoning": [{**row["poisoning"][0], **later}, *row["poisoning"][1:]]}
    write_json(copy / "rows" / "signed.json", row)
    repin(copy, "signed")
    done = memlab("verify", copy)
    assert done.exit_code == 1 and ("row-malformed", "rows/signed.json") in grounds(done.output), done.output


def test_junit_fails_exactly_the_served_cells_and_leaked_probes(measured, tmp_path, monkeypatch):
    monkeypatch.setitem(REFERENCE_STORES, "pool", SharedPoolStore)  # leaks every probe
    monkeypatch.setitem(REFERENCE_STORES, "silent", SilentStore)  # no verdict anywhere
    odd = tmp_path / "odd"
    assert run_set(odd, "pool", "silent").exit_code == 1
    for root in (measured[0], odd):
        results = results_of(root)
        suites = {s.get("name").removeprefix("frontdoor "): s for s in ET.parse(root / "junit.xml").getroot()}
        assert set(suites) == set(results)
        for store, result in results.items():
            suite, cells, probes = suites[store], result.cells(), result.probes()
            served = sum(c.served > 0 and c.role != "beyond reach" for c in cells)
            leaked = sum(t.leaks > 0 for t in probes)
            assert len(suite.findall("testcase")) == int(suite.get("tests")) == len(cells) + len(probes)
            assert len(suite.findall("testcase/failure")) == int(suite.get("failures")) == served + leaked
            beyond = [c for c in suite.findall("testcase") if c.get("name") in
                      {f"{x.family.value} × {x.channel.value}" for x in cells if x.role == "beyond reach"}]
            assert len(beyond) == 3 and all(c.find("skipped") is not None for c in beyond)  # never a pass
            assert all(c.find("skipped").get("message").startswith("beyond reach") for c in beyond)
    suites = {s.get("name"): s for s in ET.parse(odd / "junit.xml").getroot()}
    assert int(suites["frontdoor pool"].get("failures")) == 15 + 13  # every probe leaked
    silent = suites["frontdoor silent"]
    assert (silent.get("failures"), silent.get("skipped"), silent.get("tests")) == ("0", "31", "31")
    assert all(s.get("message").startswith(("n/a", "beyond reach")) and ": " in s.get("message")
               for s in silent.findall("testcase/skipped"))
    summary = {r["store"]: r for r in read_json(odd / "summary.json")["rows"]}
    assert (summary["silent"]["status"], summary["silent"]["level"], summary["silent"]["findings"]) == \
        ("INCONCLUSIVE", "n/a", [])
    assert max(len(line) for line in (odd / "report.txt").read_text().splitlines()) <= 80
    assert memlab("verify", odd).exit_code == 0


def test_the_run_exits_0_only_when_every_counted_cell_and_probe_holds(tmp_path, monkeypatch):
    monkeypatch.setitem(REFERENCE_STORES, "content-strict", ContentStrictStore)
    done = run_set(tmp_path / "set", "content-strict")
    assert done.exit_code == 0, done.output
    summary = read_json(tmp_path / "set" / "summary.json")
    assert (summary["status"], summary["rows"][0]["level"], summary["rows"][0]["findings"]) == ("HELD", "P3", [])
    beyond = [c for c in results_of(tmp_path / "set")["content-strict"].cells() if c.role == "beyond reach"]
    assert {c.status for c in beyond} == {"served"}  # reported, never counted either way


@pytest.mark.parametrize("args, says", [
    (("--reference", "paranoid"), "unknown --reference paranoid: the calibration stores are naive, label, signed, "
                                  "signed-content"),
    ((), "name what to measure: --reference STORE (the calibration stores: naive, label, signed, signed-content)"),
])
def test_bad_input_exits_2_in_one_line(tmp_path, args, says):
    done = memlab("frontdoor", "run", *args, "--out", tmp_path / "set")
    assert done.exit_code == 2 and says in done.output and "Traceback" not in done.output
    assert not (tmp_path / "set").exists()


def test_a_folder_that_holds_no_front_door_set_is_refused(tmp_path):
    out = tmp_path / "set"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    done = run_set(out, "naive")
    assert done.exit_code == 2 and "is not empty (notes.txt; it holds no front-door set)" in done.output
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]
    write_json(out / "manifest.json", {"schema": "memlab.manifest/1"})  # an at-rest set's
    assert run_set(out, "naive").exit_code == 2 and (out / "notes.txt").read_text() == "mine"


def test_a_front_door_set_is_never_replaced(tmp_path):
    out = tmp_path / "set"
    assert run_set(out, "naive", "label").exit_code == 1
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file() and p.name != "run.lock"}
    done = run_set(out, "signed-content")
    assert done.exit_code == 2 and "it holds a front-door set" in done.output and "no result is lost" in done.output
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file() and p.name != "run.lock"} == before
    assert memlab("verify", out).exit_code == 0


def test_a_harness_failure_exits_2_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setitem(REFERENCE_STORES, "exploding", ExplodingStore)
    done = run_set(tmp_path / "set", "exploding")
    assert done.exit_code == 2 and "Traceback" not in done.output
    assert "memlab: harness failure: RuntimeError: the store's disk caught fire" in done.output


def test_a_set_whose_run_never_pinned_it_cannot_be_verified(copy):
    (copy / "manifest.json").unlink()
    (copy / "manifest.sig").unlink()
    done = memlab("verify", copy)
    assert done.exit_code == 2 and "no manifest.json: the front-door run that wrote this folder did not finish" \
        in done.output


def test_the_help_names_every_calibration_store_at_its_level():
    assert REFERENCE_HELP == ", ".join(f"{name} ({store.level})" for name, store in REFERENCE_STORES.items())
    shown = " ".join(memlab("frontdoor", "run", "--help").output.split())
    assert REFERENCE_HELP in re.sub(r"(?<=\w)- (?=\w)", "-", shown)  # click may wrap after a hyphen


@pytest.mark.parametrize("name, starts", [("report.md", "How to read this report:"),
                                          ("report.html", "How to read this page")])
def test_every_report_explains_its_words(measured, name, starts):
    text = (measured[0] / name).read_text()
    legend = text[text.index(starts):]
    for term in ("REJECTED", "KEPT OUT", "MARKED", "SERVED", "n/a", "beyond reach", "P0", "P1", "P2", "P3",
                 "LEAKED", "HELD"):
        assert term in legend, (name, term)


def test_a_teams_service_behind_a_shim_is_measured_as_the_same_store_in_process(tmp_path, measured):
    """Over HTTP the front door hands each write to the service and keeps what it served: the
    calibration store behind a shim gets the verdicts it gets in memlab's own process, and the set
    verifies and says where it ran."""
    from frontdoor_shim import config, serve

    from lab.frontdoor.reference import REFERENCE_STORES

    with serve(REFERENCE_STORES["label"]) as (url, service):
        done = CliRunner().invoke(main, ["frontdoor", "run", "--http", str(config(tmp_path, url, "label-shim")),
                                         "--out", str(tmp_path / "set")])
    assert done.exit_code == 1, done.output
    assert "runtime: none for the shim" in done.output.splitlines()[0]
    shimmed, label = FrontdoorResult.from_json(read_json(tmp_path / "set" / "rows" / "label-shim.json")), \
        results_of(measured[0])["label"]
    assert shimmed.level() == "P1" and shimmed.cells() == label.cells()
    assert [o.decision for o in shimmed.poisoning] == [o.decision for o in label.poisoning]
    assert read_json(tmp_path / "set" / "run.json")["runtime"] == "http"
    assert sum(route == "/frontdoor/reset" for route, _ in service.requests) == \
        len(shimmed.poisoning) + len(shimmed.isolation)  # a fresh store per case
    assert memlab("verify", tmp_path / "set").exit_code == 0


@pytest.mark.parametrize("route, answer, said", [
    ("/frontdoor/write", {"accepted": "yes"}, '{"accepted": true}'),
    ("/frontdoor/read", {"records": [{"text": 1}]}, '"records"'),
    ("/frontdoor/read", ["not", "an", "object"], "a JSON object"),
])
def test_a_shim_answering_in_another_shape_is_a_harness_error_never_a_verdict(tmp_path, route, answer, said):
    from frontdoor_shim import config, serve

    from lab.frontdoor.reference import REFERENCE_STORES

    with serve(REFERENCE_STORES["naive"]) as (url, service):
        service.answers[route] = answer
        done = CliRunner().invoke(main, ["frontdoor", "run", "--http", str(config(tmp_path, url, "odd")),
                                         "--out", str(tmp_path / "set")])
    assert done.exit_code == 2 and "harness failure" in done.output and said in done.output, done.output
    assert not (tmp_path / "set" / "manifest.json").exists()  # never pinned as measured


@pytest.mark.parametrize("store, told_apart", [
    ("naive", {"labels": False, "signatures": False, "content": False, "scopes": True}),
    ("label", {"labels": True, "signatures": False, "content": False, "scopes": True}),
    ("signed", {"labels": True, "signatures": True, "content": False, "scopes": True}),
    ("signed-content", {"labels": True, "signatures": True, "content": True, "scopes": True}),
])
def test_the_doctor_says_what_each_calibration_store_tells_apart(store, told_apart):
    done = CliRunner().invoke(main, ["frontdoor", "doctor", "--reference", store, "--json"])
    assert done.exit_code == 0, done.output
    checks = {c["name"]: c["ok"] for c in json.loads(done.output)["checks"]}
    assert checks == {"serves": True, **told_apart}


@pytest.mark.parametrize("make, code, check", [(SharedPoolStore, 0, ("scopes", False)),
                                               (SilentStore, 1, ("serves", False))])
def test_the_doctor_over_a_shim_names_a_pool_shared_by_users_and_a_store_that_serves_nothing(tmp_path, make, code,
                                                                                              check):
    from frontdoor_shim import config, serve

    with serve(make) as (url, _):
        done = CliRunner().invoke(main, ["frontdoor", "doctor", "--http", str(config(tmp_path, url, "shim")), "--json"])
    assert done.exit_code == code, done.output
    said = {(c["name"], c["ok"]) for c in json.loads(done.output)["checks"]}
    assert check in said and ("restarts", False) in said  # this shim has no restart route: live only


@pytest.mark.parametrize("row, said", [
    ("reference-naive", "does not take the frontdoor measurement"),
    ("langgraph-store-sqlit", "did you mean"),
])
def test_a_sut_row_the_front_door_cannot_measure_is_named_before_anything_runs(tmp_path, row, said):
    done = memlab("frontdoor", "run", "--sut", row, "--runtime", "local", "--out", tmp_path / "set")
    assert done.exit_code == 2 and said in done.output, done.output
    assert not (tmp_path / "set").exists()


def test_memlab_run_names_the_commands_of_a_row_it_does_not_measure():
    done = memlab("run", "--sut", "langgraph-store", "--runtime", "local")
    assert done.exit_code == 2, done.output
    assert ("`memlab lifecycle run --sut langgraph-store` or `memlab frontdoor run --sut langgraph-store`"
            in " ".join(done.output.split()))


def test_the_doctor_names_one_store_of_three_kinds():
    done = memlab("frontdoor", "doctor", "--reference", "naive", "--sut", "langgraph-store")
    assert done.exit_code == 2 and "name one store: --reference STORE, --sut ROW or --http CONFIG" in done.output
    done = memlab("frontdoor", "doctor", "--sut", "reference-naive", "--runtime", "local")
    assert done.exit_code == 2 and "does not take the frontdoor measurement" in done.output


def test_a_crash_while_choosing_the_rows_is_exit_2_never_a_finding(tmp_path, monkeypatch):
    from lab.cli import frontdoor as frontdoor_cli

    def broken(*args):
        raise ImportError("cannot import name 'x'")

    monkeypatch.setattr(frontdoor_cli, "_rows", broken)
    done = memlab("frontdoor", "run", "--sut", "langgraph-store", "--out", tmp_path / "set")
    assert done.exit_code == 2 and "harness failure: ImportError" in done.output, done.output


@pytest.mark.parametrize("restarts, level", [("persist", "P1"), ("forget", "n/a")])
def test_a_shim_that_restarts_is_measured_in_both_positions(tmp_path, measured, restarts, level):
    """A service offering POST /frontdoor/restart is restarted before every judged read in its
    ``@restarted`` row: one that keeps what it persisted gets the live figures, one that keeps memory
    only in its process is never held for it (every control fails: no verdict)."""
    from frontdoor_shim import config, serve

    from lab.frontdoor.reference import REFERENCE_STORES

    with serve(REFERENCE_STORES["label"], restarts=restarts) as (url, service):
        done = CliRunner().invoke(main, ["frontdoor", "run", "--http", str(config(tmp_path, url, "svc")),
                                         "--out", str(tmp_path / "set")])
    assert done.exit_code == 1, done.output
    rows = results_of(tmp_path / "set")
    assert set(rows) == {"svc", "svc@restarted"} and rows["svc@restarted"].position == "restarted"
    assert rows["svc"].level() == "P1" and rows["svc@restarted"].level() == level
    if restarts == "persist":
        assert rows["svc@restarted"].cells() == rows["svc"].cells()
    else:
        assert all(c.status == "n/a" for c in rows["svc@restarted"].cells())
    restarted = rows["svc@restarted"]
    assert sum(route == "/frontdoor/restart" for route, _ in service.requests) == \
        1 + 2 * len(restarted.poisoning) + len(restarted.isolation)  # the probe, then before every judged read
    assert memlab("verify", tmp_path / "set").exit_code == 0


def test_a_shim_without_a_restart_route_is_measured_live_and_says_so(tmp_path):
    from frontdoor_shim import config, serve

    from lab.frontdoor.reference import REFERENCE_STORES

    with serve(REFERENCE_STORES["naive"]) as (url, _):
        path = config(tmp_path, url, "plain")
        done = CliRunner().invoke(main, ["frontdoor", "run", "--http", str(path), "--out", str(tmp_path / "set")])
        only = CliRunner().invoke(main, ["frontdoor", "run", "--http", str(path), "--position", "restarted",
                                         "--out", str(tmp_path / "other")])
    assert done.exit_code == 1 and set(results_of(tmp_path / "set")) == {"plain"}
    assert "restarted position: not measured for plain: it offers no POST /frontdoor/restart" in done.output
    assert only.exit_code == 2 and "needs POST /frontdoor/restart" in only.output and "--position live" in only.output
