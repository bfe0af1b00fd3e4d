"""A driver's requirements.txt may pin pip: the environment is then built by that pip on both runtimes
(the one a venv bundles may be too old to resolve the set)."""

import re

from lab.profile import IMAGES_DIR
from lab.runtime.local import pinned_pip


def test_the_pinned_pip_is_found_and_nothing_else_counts_as_one():
    assert pinned_pip("# pins\nletta==0.16.8\npip==26.3\nsetuptools==84.2.1\n") == "pip==26.3"
    assert pinned_pip("pip-tools==7.4.1\n# pip==26.3\npipx==1.7.1\npip>=24\n") is None
    assert pinned_pip("pip==26.3; echo owned\n") is None  # only a plain version pin is taken


def test_the_image_recipe_takes_the_same_pins_as_the_local_runtime():
    recipe = (IMAGES_DIR / "sut.Dockerfile").read_text()
    pattern = re.search(r"grep -xE '([^']+)' /opt/memlab/requirements.txt", recipe).group(1)
    for line in ("pip==26.3", "pip-tools==7.4.1", "pip>=24", "pip==26.3; echo owned", "# pip==26.3"):
        assert bool(re.fullmatch(pattern, line)) == (pinned_pip(line) is not None), line
