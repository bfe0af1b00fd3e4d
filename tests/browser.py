"""Headless Chromium for the HTML tests: Debian's chromium driven by playwright (never
`playwright install`; scripts/test installs both). Missing is a failure, never a skip."""

from __future__ import annotations

import shutil

import pytest

CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def missing(what: str) -> None:
    """Fail: the HTML pages are tested in headless Chromium wherever the tests run."""
    pytest.fail(f"{what} is not installed; the HTML pages are tested in headless Chromium "
                "(bash scripts/test installs it)")


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
