from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect, sync_playwright

ROOT = Path(__file__).resolve().parents[2]
# Playwright drives Debian's chromium-headless-shell where it is installed: the same Blink and
# Skia as the full Chromium (the Storybook pictures came out the same), without the full
# browser's window and its own UI renderer, about half the CPU per page load (a story's load:
# 0.3-0.7 s of the page's main thread against 0.7-1.4 s). Lighthouse keeps the full Chromium
# (CHROMIUM_PATH, tests/lighthouse.py). PLAYWRIGHT_CHROMIUM_PATH chooses another.
HEADLESS_SHELL = "/usr/bin/chromium-headless-shell"
CHROMIUM = os.environ.get("PLAYWRIGHT_CHROMIUM_PATH") or (
    HEADLESS_SHELL if os.path.exists(HEADLESS_SHELL) else os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
)
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-quic"]

PHONE: ViewportSize = {"width": 390, "height": 844}
DESKTOP: ViewportSize = {"width": 1366, "height": 900}

# The server's document check of an upload: up to the OCR pool's wait (40 s, then UPLOAD002)
# plus the read itself; on a busy machine a read alone can take 20 s.
SCAN_CHECK_MS = 60_000
# Playwright's 5 s for every other expectation is short on a loaded 2-core machine; a passing
# check does not wait longer for it.
expect.set_options(timeout=10_000)


@pytest.fixture(scope="package")
def browser(live_server_port: int) -> Iterator[Browser]:
    """Chromium for the e2e package only: Playwright's event loop runs while it is open, and
    Django refuses database calls then, so the database is set up before and left alone."""
    if not (ROOT / "web" / "dist" / "index.html").exists():
        pytest.fail("the web app is not built: run `npm run build:web` (make test does)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def phone(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, locale="de-DE")
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture
def desktop(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport=DESKTOP, locale="de-DE")
    page = context.new_page()
    yield page
    context.close()
