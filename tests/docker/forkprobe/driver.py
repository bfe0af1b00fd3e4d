"""A probe SUT for the docker fork-server tests (tests/docker/test_fork_server_docker.py).

``describe`` says what a start sees (pid, environment, working folder, uid, PID 1, argv, the
kit's ``fixed_paths`` of its volume);
``write`` with text ``spawn`` starts ``sleep 300`` (a child to be killed with the driver),
``deaf`` makes the driver outlive its closed input (a thread that never ends) and answer SIGTERM
by writing ``sigterm`` into its volume. Each start writes one ``forkprobe start <pid>`` line on
stderr (its log). ``forkprobe_sut`` records the pid that imported it (the server's when it was
preloaded); ``forkprobe_threads`` starts a thread when imported (a preload the server refuses).
"""

import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import memlab_driver as kit
import forkprobe_sut


class ProbeDriver(kit.Driver):
    def open(self, volumes, config):
        [self.store] = self.need_volumes("store")
        print(f"forkprobe start {os.getpid()}", file=sys.stderr, flush=True)

    def describe(self):
        return {"sut": "forkprobe", "version": "0", "libraries": {}, "capabilities": {},
                "pid": os.getpid(), "loaded_in": forkprobe_sut.LOADED_IN, "env": dict(os.environ),
                "cwd": os.getcwd(), "tmp": tempfile.gettempdir(), "uid": os.getuid(), "argv": sys.argv,
                "pid1": Path("/proc/1/cmdline").read_bytes().split(b"\0")[0].decode(),
                "hostname": os.uname().nodename, "fixed": str(kit.fixed_paths({"store": self.store}, "probe")["store"])}

    def write(self, context, text, meta):
        if text == "spawn":
            return {"id": str(subprocess.Popen(["sleep", "300"]).pid)}
        if text == "deaf":
            signal.signal(signal.SIGTERM, self._on_sigterm)
            threading.Thread(target=time.sleep, args=(300,)).start()
            return {"id": "deaf"}
        return {"id": "0"}

    def _on_sigterm(self, signum, frame):
        Path(self.store, "sigterm").write_text(str(os.getpid()))
        os._exit(0)

    def read(self, context):
        return []


if __name__ == "__main__":
    kit.serve(ProbeDriver)
