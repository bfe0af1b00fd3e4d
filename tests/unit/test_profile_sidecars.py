"""A profile's sidecar folders (``sidecars:``): each a folder strictly inside a volume the adversary
holds; every other declaration is an error that names its line and the fix."""

import pytest
from test_profile import GOOD

from lab.profile import ProfileError, load_profile


def profile(tmp_path, sidecars, volumes="  store: {adversary: true}\n", store_file="memory.db"):
    """The demo profile with ``sidecars`` appended, its ``volumes`` and store file as given."""
    text = GOOD.replace("  store: {adversary: true}\n", volumes).replace("file: memory.db", f"file: {store_file}")
    path = tmp_path / "demo.yaml"
    path.write_text(text + sidecars)
    return path


def test_a_declared_folder_loads_as_volume_slash_folder(tmp_path):
    prof = load_profile(profile(tmp_path, "sidecars:\n  - {volume: store, path: ./trace/}\n"))
    assert prof.sidecars == ("store/trace",) and prof.to_json()["sidecars"] == ["store/trace"]
    assert "sidecars" not in load_profile(profile(tmp_path, "")).to_json()  # earlier result sets read the same


@pytest.mark.parametrize("sidecars,volumes,store_file,field,message", [
    ("  - {volume: ledger, path: trace}\n", None, None, "sidecars[0].volume", "'ledger' is not declared"),
    ("  - {volume: ledger, path: trace}\n", "  store: {adversary: true}\n  ledger: {adversary: false}\n", None,
     "sidecars[0].volume", "not one the adversary holds"),
    ("  - {volume: cache, path: trace}\n", "  store: {adversary: true}\n  cache: {adversary: true}\n"
     "services:\n  db: {kind: redis, volume: cache}\n", None, "sidecars[0].volume", "a service's data volume"),
    ("  - {volume: store, path: /trace}\n", None, None, "sidecars[0].path", "an absolute path"),
    ("  - {volume: store, path: trace/../..}\n", None, None, "sidecars[0].path", "climbs out"),
    ("  - {volume: store, path: ./}\n", None, None, "sidecars[0].path", "the volume's top"),
    ("  - {volume: store, path: data}\n", None, "data/memory.db", "sidecars[0].path", "holds the store's file"),
    ("  - {volume: store, path: trace}\n  - {volume: store, path: trace/}\n", None, None, "sidecars[1]",
     "declared twice"),
    ("  - {volume: store, path: trace, extra: 1}\n", None, None, "sidecars[0].extra", ""),
])
def test_a_bad_sidecar_folder_names_its_line_and_the_fix(tmp_path, sidecars, volumes, store_file, field, message):
    path = profile(tmp_path, "sidecars:\n" + sidecars, volumes or "  store: {adversary: true}\n",
                   store_file or "memory.db")
    with pytest.raises(ProfileError) as info:
        load_profile(path)
    err = info.value
    assert err.field == field and message in err.message and err.fix, str(err)
    assert err.line == path.read_text().splitlines().index("sidecars:") + 1 + int(field[9]) + 1
