"""Headless Chromium for the HTML tests: Debian's chromium driven by playwright (never
`playwright install`); missing in CI is a failure, elsewhere a skip."""

from __future__ import annotations

import os
import shutil

import pytest

CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def missing(what: str) -> None:
    """Fail in CI (nothing silently skipped there), skip elsewhere."""
    if os.environ.get("CI"):
        pytest.fail(f"{what} is not installed; the HTML pages are tested in headless Chromium in CI")
    pytest.skip(f"{what} is not installed")


def browser():
    """``(sync_playwright, chromium executable)``."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing("playwright (pip install playwright; never `playwright install`)")
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        missing("chromium (apt-get install -y chromium)")
    return sync_playwright, path
