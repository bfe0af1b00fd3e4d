"""Starts a thread that outlives its import: a fork server that preloads this module must refuse."""

import threading
import time

threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()
