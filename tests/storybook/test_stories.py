"""Every story of the built Storybook in Chromium: it renders (play functions included)
without a console error, has no serious or critical axe violation, and leaves a screenshot
under var/storybook-shots/ (not committed). `make test` builds Storybook first."""

from __future__ import annotations

import functools
import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, Response, sync_playwright

from tests.e2e.conftest import CHROMIUM, CHROMIUM_FLAGS, DESKTOP, PHONE
from tests.e2e.flow_helpers import axe_check

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "storybook-static"
SHOTS = ROOT / "var" / "storybook-shots"

# Storybook's channel tells when a story (and its play function) is done, or how it failed.
WATCH = """
window.__story = 'pending';
(function attach() {
  const channel = window.__STORYBOOK_ADDONS_CHANNEL__;
  if (!channel) return setTimeout(attach, 10);
  channel.on('storyRendered', () => { if (window.__story === 'pending') window.__story = 'rendered'; });
  channel.on('storyErrored', (e) => { window.__story = 'errored: ' + (e && e.title) + ' ' + (e && e.description); });
  channel.on('storyThrewException', (e) => { window.__story = 'threw: ' + (e && e.message); });
  channel.on('playFunctionThrewException', (e) => { window.__story = 'play failed: ' + (e && e.message); });
  channel.on('storyMissing', () => { window.__story = 'missing'; });
})();
"""


def _stories() -> list[dict[str, object]]:
    index = STATIC / "index.json"
    if not index.exists():
        return []
    entries = json.loads(index.read_text())["entries"].values()
    return sorted((e for e in entries if e.get("type") == "story"), key=lambda e: str(e["id"]))


STORIES = _stories()


@pytest.fixture(scope="module")
def storybook_url() -> Iterator[str]:
    if not STATIC.exists():
        pytest.fail("Storybook is not built: run `npm run build-storybook` (make test does)")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(STATIC))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)
        yield browser
        browser.close()


def test_there_is_a_story_for_every_screen() -> None:
    names = {str(story["name"]).split(":")[0] for story in STORIES}
    for screen in ("Welcome", "TermsView", "LoginCA", "CodeValidation", "Billing", "Finish", "RecaptchaOtpFlow",
                   "ResetPassword", "SignupView", "RegistrationsView", "Impressum", "Data Privacy Info"):  # fmt: skip
        assert screen in names, screen
    assert len(STORIES) >= 55


@pytest.mark.parametrize("story", STORIES, ids=[str(s["id"]) for s in STORIES])
def test_the_story_renders_cleanly(story: dict[str, object], storybook_url: str, chromium: Browser) -> None:
    desktop = "desktop" in (story.get("tags") or [])  # type: ignore[operator]
    context = chromium.new_context(viewport=DESKTOP if desktop else PHONE, locale="de-DE")
    page: Page = context.new_page()
    errors: list[str] = []

    def on_response(response: Response) -> None:
        # An error answer a story asks MSW for (wrong code, invalid link) is its state, not a
        # fault; anything else that fails to load is.
        if response.status >= 400 and "/api/" not in response.url:
            errors.append(f"{response.status} {response.url}")

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error" and not message.text.startswith("Failed to load resource"):
            errors.append(message.text)

    page.on("response", on_response)
    page.on("console", on_console)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.add_init_script(WATCH)
    try:
        page.goto(f"{storybook_url}/iframe.html?id={story['id']}&viewMode=story")
        page.wait_for_function("() => window.__story !== 'pending'", timeout=30_000)
        state = page.evaluate("() => window.__story")
        assert state == "rendered", state
        page.wait_for_timeout(300)  # transitions settle before the picture
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"{story['id']}.png"), full_page=True)
        # A loading story keeps its request open: no waiting for the network to go idle.
        axe_check(page, str(story["id"]), settle=False)
        assert errors == [], errors
    finally:
        context.close()
