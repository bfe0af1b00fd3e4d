"""Run in a row's environment: a driver's starts forked from a preload under the fork server's
placeholder, or one plain start, each opening its own trial folder; writes one JSON file (the kit
keeps stdout for the protocol).

    python fork_placeholder_probe.py DRIVER SERVER_FOLDER TRIALS_FOLDER PRELOAD_JSON forked|plain OUT

PRELOAD_JSON: ``{"modules": [the profile's], "optional": [what a first start loaded]}``. Forked: the
server's preload as ``memlab_driver.fork_server`` runs it (``fork_preload.preload``, its own HOME,
XDG_CONFIG_HOME and TMPDIR in SERVER_FOLDER), then two starts, each a forked child given its
trial's environment (``fork_child``'s fresh state) that runs the driver's top level and ``open`` on the
trial's volume ``store``. Plain: one start in this process, nothing preloaded, and the modules it
loaded (as a first start records them for the next server). Per start: every string a
live object holds under the sealed placeholder (``fork_leaks.reachable_paths``), the trial's files
(outside the store's ``memory`` database) and CrewAI's secret key, when there is one.
"""

import json
import os
import runpy
import sys
import tempfile
from pathlib import Path

DRIVER, SERVER, TRIALS, PRELOAD, MODE, OUT = sys.argv[1:7]
sys.path.insert(0, str(Path(DRIVER).resolve().parent.parent / "driverkit"))

from memlab_driver import Driver, fork_child, fork_leaks, fork_placeholder, fork_preload  # noqa: E402

KEY = Path("home/.local/share/crewai/credentials/secret.key")


def start(trial: Path) -> dict:
    """The driver opened on ``trial`` (this process is the start): what it left, and where."""
    for sub in ("home", "config", "tmp", "store"):
        (trial / sub).mkdir()
    os.environ.clear()
    os.environ.update(PATH="/usr/bin:/bin", LANG="C.UTF-8", HOME=str(trial / "home"),
                      XDG_CONFIG_HOME=str(trial / "config"), TMPDIR=str(trial / "tmp"))
    os.chdir(trial)
    fork_child._fresh_state()
    namespace = runpy.run_path(DRIVER, run_name="__memlab_probe__")
    [cls] = [v for v in namespace.values() if isinstance(v, type) and issubclass(v, Driver) and v is not Driver]
    driver = cls()
    driver.open({"store": trial / "store"}, {})
    root = str(fork_placeholder.ROOT) + os.sep if fork_placeholder.ROOT else None
    held = fork_leaks.reachable_paths(root) if root else []
    files = sorted(str(p.relative_to(trial)) for p in trial.rglob("*") if "memory" not in p.relative_to(trial).parts)
    key = (trial / KEY).read_text() if (trial / KEY).is_file() else None
    loaded = [n for n in sys.modules if "__main__" not in n and not n.startswith("__memlab")]
    driver.close()
    return {"held": held, "files": files, "key": key, "pending": fork_placeholder.pending(), "modules": loaded}


def forked(n: int) -> dict:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            out = start(Path(tempfile.mkdtemp(prefix=f"start{n}-", dir=TRIALS)))
        except BaseException as exc:  # noqa: BLE001  (the parent reports it)
            out = {"error": f"{type(exc).__name__}: {exc}"}
        os.write(write, json.dumps(out).encode())
        os._exit(0)
    os.close(write)
    data = b""
    while chunk := os.read(read, 1 << 20):
        data += chunk
    os.waitpid(pid, 0)
    return json.loads(data)


def main() -> None:
    if MODE == "plain":
        Path(OUT).write_text(json.dumps({"starts": [start(Path(tempfile.mkdtemp(prefix="plain-", dir=TRIALS)))]}))
        return
    server = Path(SERVER)
    for sub in ("home", "config", "tmp", "placeholder"):
        (server / sub).mkdir(parents=True)
    os.environ.update(HOME=str(server / "home"), XDG_CONFIG_HOME=str(server / "config"), TMPDIR=str(server / "tmp"))
    os.chdir(Path(DRIVER).parent)
    preload = json.loads(PRELOAD)
    status = fork_preload.preload(DRIVER, preload["modules"], preload["optional"], [], str(server))
    starts = [forked(n) for n in range(2)] if status.get("ready") else []
    sealed = {p.name: p.is_file() and p.stat().st_size == 0 for p in (server / "placeholder").iterdir()}
    own = [str(p) for sub in ("home", "config", "tmp") for p in (server / sub).rglob("*")]
    Path(OUT).write_text(json.dumps({"status": status, "held_by_server": [f"{m}.{g}" for m, g in fork_placeholder.HELD],
                                     "starts": starts, "sealed": sealed, "server_files": own}))


if __name__ == "__main__":
    main()
    os._exit(0)  # as the kit's processes leave: LanceDB's runtime may not survive the interpreter's teardown
