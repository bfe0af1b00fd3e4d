"""``memlab analyze`` re-derives rows from saved observations; ``keygen``/``sign`` refuse bad input."""

import pytest
from resultsets import cache, copy_set, edit_row, load, make_result_set, memlab, save  # noqa: F401 (cache: a fixture)

import lab.judge.derive
from lab.judge.observation import Verdict
from lab.resultset.analyze import analyze
from lab.resultset.loading import Unreadable, load_rows
from lab.resultset.verify import verify

NAIVE = "rows/reference-naive@read.json"


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    return make_result_set(tmp_path_factory, "reference-sealed", "reference-naive")


def test_analyze_writes_a_new_verifiable_set_with_the_same_verdicts(pristine, cache, tmp_path):
    out = tmp_path / "again"
    proc = memlab("analyze", pristine, "--out", out, cache=cache)
    assert proc.returncode == 0, proc.stderr
    assert "0 cell(s) differ from the source" in proc.stderr
    assert verify(out).ok
    before, after = load_rows(pristine), load_rows(out)
    assert [r["cells"] for r in before] == [r["cells"] for r in after]
    run = load(out / "run.json")
    assert run["analyzed_from"]["path"] == str(pristine) and run["run_id"] == load(pristine / "run.json")["run_id"]
    for name in ("observations/reference-naive/T1.json", "observations/reference-sealed/C1.json"):
        assert (out / name).read_bytes() == (pristine / name).read_bytes()
    assert (out / "report.html").exists()


def test_analyze_applies_the_classifier_of_the_day(pristine, tmp_path, monkeypatch):
    real = lab.judge.derive.judge_cell

    def stricter(obs, *args, **kw):  # a changed classifier: T1 on the naive row now counts as refused
        cell = real(obs, *args, **kw)
        if obs.case == "T1" and cell.verdict is Verdict.ACCEPTED:
            cell = cell.model_copy(update={"verdict": Verdict.REJECTED, "reason": "new classifier"})
        return cell
    monkeypatch.setattr(lab.judge.derive, "judge_cell", stricter)
    _, rows = analyze(pristine, tmp_path / "new")
    naive = next(r for r in rows if r["row"] == "reference-naive")
    assert naive["cells"]["T1"]["verdict"] == "REJECTED" and naive["metric"] == 0.1
    assert verify(tmp_path / "new").ok  # under the classifier that derived it
    monkeypatch.setattr(lab.judge.derive, "judge_cell", real)
    assert {f.ground for f in verify(tmp_path / "new").findings} == {"verdict-not-derivable"}


def test_analyze_repairs_a_set_whose_rows_no_longer_follow_from_observations(pristine, tmp_path):
    rs = copy_set(pristine, tmp_path / "rs")
    edit_row(rs, NAIVE, lambda row: row["cells"]["T4"].update(verdict="REJECTED"), rescore=True)
    assert not verify(rs).ok
    analyze(rs, tmp_path / "fixed")
    assert verify(tmp_path / "fixed").ok
    assert load(tmp_path / "fixed" / NAIVE)["cells"]["T4"]["verdict"] == "ACCEPTED"


def test_analyze_refuses_observations_changed_since_the_manifest(pristine, tmp_path, cache):
    rs = copy_set(pristine, tmp_path / "rs")
    obs = load(rs / "observations/reference-naive/T2.json")
    obs["read"]["records"] = []
    save(rs / "observations/reference-naive/T2.json", obs)
    proc = memlab("analyze", rs, "--out", tmp_path / "new", cache=cache)
    assert proc.returncode == 2 and "digest-mismatch observations/reference-naive/T2.json" in proc.stderr
    assert not (tmp_path / "new").exists()


def test_analyze_never_writes_over_a_set(pristine, tmp_path, cache):
    assert memlab("analyze", pristine, "--out", pristine, cache=cache).returncode == 2
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "x").write_text("x")
    with pytest.raises(Unreadable, match="not empty"):
        analyze(pristine, tmp_path / "busy")


def test_keygen_never_overwrites_and_bad_keys_exit_2(tmp_path, cache, pristine):
    assert memlab("keygen", tmp_path / "k.pem", cache=cache).returncode == 0
    assert (tmp_path / "k.pem").stat().st_mode & 0o777 == 0o600
    again = memlab("keygen", tmp_path / "k.pem", cache=cache)
    assert again.returncode == 2 and "never overwrites" in again.stderr
    (tmp_path / "bad.pem").write_text("not a key")
    assert memlab("sign", pristine, "--key", tmp_path / "bad.pem", cache=cache).returncode == 2
    assert memlab("verify", pristine, "--pubkey", tmp_path / "k.pem", cache=cache).returncode == 2  # private


def test_run_with_an_unusable_key_stops_before_running(tmp_path, cache):
    proc = memlab("run", "--runtime", "local", "--sut", "reference-naive", "--out", tmp_path / "rs",
                  "--sign-key", tmp_path / "missing.pem", cache=cache)
    assert proc.returncode == 2 and "cannot read key file" in proc.stderr
    assert not (tmp_path / "rs").exists()


def test_sign_refuses_a_set_that_does_not_verify(pristine, tmp_path, cache):
    rs = copy_set(pristine, tmp_path / "rs")
    memlab("keygen", tmp_path / "k.pem", cache=cache)
    (rs / NAIVE).unlink()
    proc = memlab("sign", rs, "--key", tmp_path / "k.pem", cache=cache)
    assert proc.returncode == 1 and "row-missing" in proc.stdout and not (rs / "manifest.sig").exists()
