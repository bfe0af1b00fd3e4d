"""One conformance suite for the editors, addressed by operation: every operation of the Editor
protocol (edits.ops, as ``edit_stores.by_op`` shapes them) on every hand-made store of every
registered backend (conformance_stores, conformance_lists, conformance_maps), the service stores
on the servers conftest.py starts. Each edit is checked twice: on the records the editor reads back
(``edit_stores.check``: the sequence, identities, metadata) and on the store read by a second reader
that is no editor's (the store's own library or format), against the same postcondition. A store
declares the operations it has; any other must be refused, the store untouched."""

import pytest
from conformance_lists import LIST_STORES
from conformance_maps import MAP_STORES
from conformance_stores import RECORD_STORES, Store
from edit_stores import OPERATIONS, by_op, check, expected

from edits import registry
from edits.model import EditError
from edits.ops import OPS

STORES = [*RECORD_STORES, *LIST_STORES, *MAP_STORES]


def _where(store: Store, request, tmp_path):
    return request.getfixturevalue(store.service) if store.service else tmp_path


def _raw_expected(spec, raw):
    """What the second reader must see after ``spec``: ``raw`` (its reading before) with the operation applied."""
    ctx, t = next((c, i) for c, seq in raw.items() for i, (p, _) in enumerate(seq) if spec.target in p)
    seq, (payload, meta) = raw[ctx], raw[ctx][t]
    second = next((i for i, (p, _) in enumerate(seq) if spec.second and spec.second in p), None)
    new = {"replace": (payload.replace(spec.find or "", spec.replace or ""), meta),
           "forge": (payload.replace(spec.find or "", spec.replace or ""), meta),
           "transplant": spec.donor and next((p, m) for s in raw.values() for p, m in s if spec.donor in p)}
    return ctx, t, {**raw, ctx: expected(spec, seq, t, second, new.get(spec.op))}


@pytest.mark.parametrize("op", list(OPERATIONS))
@pytest.mark.parametrize("store", STORES, ids=[s.name for s in STORES])
def test_each_operation_changes_exactly_its_records(store, op, request, tmp_path):
    where = _where(store, request, tmp_path)
    layout, versions = store.open(where)
    assert layout.backend == store.backend
    assert store.kind == ("list_editor" if layout.records is not None else "map_editor" if layout.map is not None
                          else "editor"), "the store is not for the editor it says"
    spec, raw = store.spec(layout, op), store.read(where)
    before = store.editor(layout, where, versions).records()
    if op not in store.ops:
        with pytest.raises(EditError):
            store.editor(layout, where, versions).apply(spec)
        assert store.read(where) == raw, "a refused operation changed the store"
        return
    applied = store.editor(layout, where, versions).apply(spec)
    check(layout, spec, before, store.editor(layout, where, versions).records())
    ctx, t, want = _raw_expected(spec, raw)
    got = store.read(where)
    if spec.op == "set_meta":  # the payloads stay; the target's raw value of the field changes, no other's
        assert got[ctx][t][1] != raw[ctx][t][1]
        got = {**got, ctx: [*got[ctx][:t], raw[ctx][t], *got[ctx][t + 1:]]}
    assert got == want, "the second reader disagrees with the postcondition"
    assert applied.case == spec.case and applied.backend == layout.backend
    assert applied.statements and applied.touched
    assert applied.bytes_changed > 0 or store.service
    if store.framing:
        assert (applied.statements[0], applied.statements[-1]) == store.framing


def test_the_suite_names_every_operation_of_the_protocol():
    assert {spec.op for spec in by_op().values()} == set(OPS)


def test_every_editor_of_every_registered_backend_has_a_store_in_the_suite():
    declared = {(b.name, kind) for b in registry.backends() for kind in ("editor", "list_editor", "map_editor")
                if getattr(b, kind) is not None}
    declared.discard(("json-files", "editor"))  # it refuses a layout without records:
    assert declared - {(s.backend, s.kind) for s in STORES} == set()
