"""The docker runtime gives the local runtime's verdicts, cell for cell, on the reference rows."""

import json
import re

import pytest

from lab.cases import CASE_IDS

from docker_helpers import ROOT, containers
from sharding import baseline, on_docker

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    """The reference matrix on each runtime, with the same seed plan (the session's sets, measured
    once: the docker fork-server test and the sharding tests read them too)."""
    out = {"docker": on_docker(tmp_path_factory), "local": baseline(tmp_path_factory)}
    seconds = {name: (path.parent / "seconds").read_text() if (path.parent / "seconds").is_file() else "?"
               for name, path in out.items()}
    print(f"\nreference matrix: docker {seconds['docker']} s, local {seconds['local']} s")
    rows = {name: {p.stem: json.loads(p.read_text()) for p in (out[name] / "rows").glob("*.json")} for name in out}
    return out, rows


def _cells(row):
    return {c: (row["cells"][c]["verdict"], row["cells"][c].get("detection_point"),
                row["cells"][c].get("observation_class")) for c in CASE_IDS}


def test_same_verdicts_cell_for_cell(both):
    _, rows = both
    assert sorted(rows["docker"]) == sorted(rows["local"]) and len(rows["docker"]) >= 6
    for name, local in rows["local"].items():
        ours = rows["docker"][name]
        assert _cells(ours) == _cells(local), name
        assert {c: ours["controls"][c]["ok"] for c in ("C1", "C2", "C3")} == \
               {c: local["controls"][c]["ok"] for c in ("C1", "C2", "C3")}, name
        assert (ours["metric"], ours["level"], ours["evaluable"]) == (local["metric"], local["level"], True), name
    assert {r["row"]: r["metric"] for r in rows["docker"].values()}["reference-sealed"] == 1.0


def test_docker_cells_carry_raw_volume_c3_evidence(both):
    out, rows = both
    for row in rows["docker"].values():
        for cid in CASE_IDS:
            obs = json.loads((out["docker"] / "observations" / row["row"] / f"{cid}.json").read_text())
            assert obs["c3"]["ok"], (row["row"], cid)
            if cid in ("T9", "T10"):
                assert obs["c3"]["evidence"]["restored_equal"], (row["row"], cid)
            else:
                files = obs["c3"]["files"]
                assert files["added"] + files["changed"] + files["removed"], (row["row"], cid)


def test_rows_record_the_image_and_the_package_list_read_from_it(both):
    _, rows = both
    runtime = rows["docker"]["reference-sealed@read"]["runtime"]
    assert runtime["runtime"] == "docker" and runtime["python"].startswith("3.11")
    detail = runtime["detail"]
    assert detail["image_id"].startswith("sha256:") and detail["image"].startswith("memlab/sut-reference:")
    assert detail["network"] == "none" and detail["user"] and detail["limits"]["pids"] > 0
    assert detail["debian"]["memlab.deb.python3"]
    pins = [ln.split("==") for ln in (ROOT / "images" / "reference" / "requirements.txt").read_text().splitlines()
            if "==" in ln and not ln.startswith("#")]
    pinned = {re.sub(r"\[.*\]", "", name).strip(): version.strip() for name, version in pins}
    local = rows["local"]["reference-sealed@read"]["runtime"]["packages"]
    assert pinned and {k: runtime["packages"].get(k) for k in pinned} == pinned == {k: local.get(k) for k in pinned}


def test_container_logs_are_saved(both):
    out, _ = both
    log = (out["docker"] / "logs" / "reference-sealed" / "T1-0.log").read_text()
    assert "integrity check failed" in log and "/opt/memlab/images/driver" in log


def test_no_container_outlives_the_run(both):
    out, _ = both
    run_id = json.loads((out["docker"] / "run.json").read_text())["run_id"]
    assert containers(run_id) == []
