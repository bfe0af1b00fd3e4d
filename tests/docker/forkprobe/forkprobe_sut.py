"""The probe's "SUT": records the pid that imported it (the fork server's, when preloaded)."""

import os

LOADED_IN = os.getpid()
