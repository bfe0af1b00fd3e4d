"""``memlab merge SHARD... --out DIR``: the result sets of one sharded run as one result set.

Each shard (``memlab run --shard K/N --run-id ID``, :mod:`lab.resultset.shards`) measured whole
rows, so merging is a union: every shard is verified first (``memlab verify``: its evidence is
what its manifest pins, and its run completed), the shards must be of one run (the same run
id, lab release and commit, method revision, runtime, selection, shard count and options),
every shard 1..N given once, each having measured exactly the rows the partition gives it, no
row twice. Then the shards' observations and logs are copied byte for byte, run.json says the
run as a whole (first start, last end) and which shard sets it was merged from (with their
manifests' digests), and the rows are derived again from the observations, as ``memlab
analyze`` does: the merged set's rows and verdicts are those of the run on one machine, and
``memlab verify`` accepts it. Anything else is refused before a file is written, naming the
shard's file and the fix.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lab import safewrite
from lab.resultset.loading import Unreadable, load_manifest, load_run
from lab.resultset.manifest import Manifest
from lab.resultset.pins import EVIDENCE_DIRS
from lab.resultset.results import ResultSet, write_json
from lab.resultset.run_record import RunRecord, run_json
from lab.resultset.shards import partition
from lab.resultset.verify import verify

#: run.json fields every shard of one run states alike.
SAME_RUN = ("run_id", "lab", "method_revision", "runtime", "records_per_context")
#: ``shard`` fields every shard of one run states alike.
SAME_SHARD = ("count", "selection", "options")


class MergeRefused(Unreadable):
    """The shards cannot be merged into one set (the CLI exits 2 with the message)."""


def merge(sources: list[Path], out: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Merge the shard sets ``sources`` into a new set at ``out``; its run record and rows."""
    shards = [_shard(Path(p)) for p in sources]
    _same_run(shards)
    by_index = _complete(shards)
    results = ResultSet(out)  # this merge alone writes ``out`` (lab.resultset.lock)
    ordered = [by_index[k] for k in sorted(by_index)]
    for shard in ordered:
        for folder in EVIDENCE_DIRS:
            for row in shard.rows:
                if (shard.root / folder / row).is_dir():
                    safewrite.copy_tree(shard.root / folder / row, out / folder / row)
    first = ordered[0].run
    run = {**{k: getattr(first, k) for k in SAME_RUN if k in first.model_fields_set},
           "started": min(s.run.started or "" for s in ordered),
           "finished": max(s.run.finished or "" for s in ordered), "status": "completed",
           "rows": [name for name in ordered[0].info["selection"] if any(name in s.rows for s in ordered)],
           "merged": {"shards": len(ordered), "from": [s.summary() for s in ordered]}}
    write_json(out / "run.json", run_json(run))
    rows = [r for name in run["rows"] for r in results.write_rows(name, run)]
    results.write_manifest(run)
    return run, rows


class _Shard:
    """One shard's set as read for the merge: where it is, its run.json and the rows it holds."""

    def __init__(self, root: Path, run: RunRecord, manifest: Manifest):
        self.root, self.run, self.manifest = root, run, manifest
        self.info: dict[str, Any] = run.shard or {}
        self.rows = sorted({e["row"] for e in manifest.rows if isinstance(e, dict)})

    @property
    def name(self) -> str:
        """How a refusal names the shard: its folder and its index."""
        return f"{self.root} (shard {self.info.get('index')}/{self.info.get('count')})"

    def summary(self) -> dict[str, Any]:
        """What the merged run.json says of this shard set."""
        return {"index": self.info["index"], "path": str(self.root), "started": self.run.started,
                "finished": self.run.finished,
                "manifest_digest": self.manifest.sha256()}


def _shard(root: Path) -> _Shard:
    """A shard set, verified and read; refused when it does not verify or is not a shard."""
    result = verify(root)
    if not result.ok:
        lines = "; ".join(f"{f.ground} {f.file}: {f.detail}" for f in result.findings[:3])
        raise MergeRefused(f"{root}: does not verify ({len(result.findings)} finding(s): {lines}); only verified "
                           "shard sets are merged: `memlab verify` lists every finding, run the shard again")
    run = load_run(root)
    info = run.shard
    if not isinstance(info, dict) or not isinstance(info.get("index"), int) or not isinstance(info.get("count"), int) \
            or not isinstance(info.get("selection"), list) or not isinstance(info.get("assigned"), list):
        raise MergeRefused(f"{root}/run.json: not a shard of a sharded run (no shard block); measure each shard "
                           "with `memlab run --shard K/N --run-id ID` and merge those sets")
    return _Shard(root, run, load_manifest(root))


def _same_run(shards: list[_Shard]) -> None:
    """Every shard states the run's fields alike, else refuse naming the first that differs."""
    first = shards[0]
    checks = ((SAME_RUN, lambda s, key: getattr(s.run, key), "",
               "the shards are not of one run; merge the shards measured with the same --run-id, lab commit, runtime "
               "and options"),
              (SAME_SHARD, lambda s, key: s.info.get(key), "shard ",
               "the shards were not cut from one selection with the same options; run every shard with the same "
               "--sut, --shard K/N count, --nonce, --records and fork server"))
    for shard in shards[1:]:
        for keys, part, prefix, fix in checks:
            for key in keys:
                mine, theirs = part(shard, key), part(first, key)
                if mine != theirs:
                    raise MergeRefused(f"{shard.root}/run.json: {prefix}{key} {mine!r}, but {first.root}/run.json "
                                       f"says {theirs!r}: {fix}")


def _complete(shards: list[_Shard]) -> dict[int, _Shard]:
    """Every shard 1..N once, each with exactly the rows the partition gives it; by index."""
    count, selection = shards[0].info["count"], shards[0].info["selection"]
    by_index: dict[int, _Shard] = {}
    for shard in shards:
        index = shard.info["index"]
        if index in by_index:
            raise MergeRefused(f"{shard.root}/run.json and {by_index[index].root}/run.json are both shard "
                               f"{index}/{count}: overlapping work; give each shard's set once")
        by_index[index] = shard
    beyond = sorted(set(by_index) - set(range(1, count + 1)))
    if beyond:
        raise MergeRefused(f"{by_index[beyond[0]].root}/run.json: shard {beyond[0]} of {count} does not exist; "
                           "merge only the sets `memlab run --shard K/N` wrote")
    missing = [k for k in range(1, count + 1) if k not in by_index]
    if missing:
        raise MergeRefused(f"shard(s) {', '.join(f'{k}/{count}' for k in missing)} missing (given: "
                           f"{', '.join(s.name for s in shards)}): pass every shard's set, or measure the missing "
                           f"ones with `memlab run --shard K/{count} --run-id {shards[0].run.run_id}`")
    for index, shard in by_index.items():
        due = partition(selection, index, count)
        if shard.info["assigned"] != due:
            raise MergeRefused(f"{shard.root}/run.json: shard {index}/{count} states rows {shard.info['assigned']}, "
                               f"the partition of its selection gives {due}; measure the shard again")
        extra, absent = sorted(set(shard.rows) - set(due)), [r for r in due if r not in shard.rows]
        if extra:
            raise MergeRefused(f"{shard.root}/manifest.json: rows {', '.join(extra)} are not shard {index}/{count}'s "
                               "(overlapping work); measure the shard again")
        if absent:
            why = shard.info.get("skipped") or {}
            said = "; ".join(f"{r}: {why.get(r, 'not in the set')}" for r in absent)
            raise MergeRefused(f"{shard.root}: shard {index}/{count} did not measure {said}; missing work: make "
                               f"the row runnable on that machine and measure shard {index} again, or leave the "
                               "row out of every shard's --sut")
    return by_index
