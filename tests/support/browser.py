"""Headless Chromium for the browser tests: Debian's /usr/bin/chromium driven by Playwright.

Never downloads a browser. Without Chromium or Playwright the browser tests are
skipped on a developer's machine, and fail where ``JANTAKU_REQUIRE_BROWSER=1``
(CI sets it), so CI can never pass them silently.
"""

from __future__ import annotations

import os
import shutil
from contextlib import contextmanager

import pytest

from tests.support.web_server import ROOT

CHROMIUM = "/usr/bin/chromium"
SHOTS = ROOT / "test-artifacts" / "screenshots"
# Without the background-networking flags Chromium keeps dialling out of this closed network.
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PORTRAIT = {"width": 800, "height": 1280}
LANDSCAPE = {"width": 1280, "height": 800}


def _required() -> bool:
    return os.environ.get("JANTAKU_REQUIRE_BROWSER") == "1"


def chromium_path() -> str:
    return CHROMIUM if os.path.exists(CHROMIUM) else (shutil.which("chromium") or CHROMIUM)


def playwright_or_skip():
    """Playwright's ``sync_playwright``, or skip (fail under JANTAKU_REQUIRE_BROWSER=1)."""
    if not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
        if _required():
            pytest.fail(f"Chromium is required (JANTAKU_REQUIRE_BROWSER=1) "
                        f"but {CHROMIUM} is missing")
        pytest.skip(f"{CHROMIUM} is not installed")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        if _required():
            raise
        pytest.skip("playwright is not installed")
    return sync_playwright


@contextmanager
def chromium():
    """A launched headless Chromium, closed afterwards."""
    sync_playwright = playwright_or_skip()
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path(), args=ARGS, headless=True)
        try:
            yield b
        finally:
            b.close()


def shot(page, name: str) -> None:
    """Save a screenshot of what the page shows now under test-artifacts/screenshots/."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=False)


def expect(locator):
    """Playwright's ``expect`` for a locator: its waits need no script evaluated from a
    string, which the pages' Content-Security-Policy forbids (imported here, like the
    browser itself, only when a browser test runs)."""
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(locator)


@contextmanager
def persistent_context(browser, user_data_dir: str, **options):
    """A headless Chromium context on a profile folder that outlives it (from the same
    Playwright as ``browser``): closing and opening it again is a tablet restarted, with
    its cookies, IndexedDB and service workers kept."""
    ctx = browser.browser_type.launch_persistent_context(
        user_data_dir, executable_path=chromium_path(), args=ARGS, headless=True, **options)
    try:
        yield ctx
    finally:
        ctx.close()
