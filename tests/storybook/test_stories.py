"""Every story of the built Storybook in Chromium: it renders (play functions included)
without a console error, has no serious or critical axe violation, and leaves a screenshot
under var/storybook-shots/ (not committed). `make test` builds Storybook first."""

from __future__ import annotations

import functools
import http.server
import json
import threading
import urllib.error
import urllib.request
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


class StorybookHandler(http.server.SimpleHTTPRequestHandler):
    """The built Storybook, with /api/ passed on to the test server, as `npm run storybook`
    passes it to `make run` (the designer preview compiles there)."""

    api_port = 0

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        pass

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        if not self.path.startswith("/api/"):
            self.send_error(405)
            return
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.api_port}{self.path}",
            data=body,
            method="POST",
            headers={"Content-Type": self.headers.get("Content-Type", ""), "Host": "localhost"},
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:  # noqa: S310 - our own test server
                status, payload = answer.status, answer.read()
        except urllib.error.HTTPError as error:
            status, payload = error.code, error.read()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


@pytest.fixture(scope="module")
def storybook_url(live_server_port: int) -> Iterator[str]:
    if not STATIC.exists():
        pytest.fail("Storybook is not built: run `npm run build-storybook` (make test does)")
    StorybookHandler.api_port = live_server_port
    handler = functools.partial(StorybookHandler, directory=str(STATIC))
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


def test_the_designer_preview_compiles_a_new_partner_and_shows_its_errors(storybook_url: str, chromium: Browser) -> None:
    context = chromium.new_context(viewport=DESKTOP, locale="de-DE")
    page = context.new_page()
    page.goto(f"{storybook_url}/iframe.html?id=designer-preview--any-configuration&viewMode=story")
    screen = page.get_by_test_id("preview-screen")
    # the starter configuration (the standard demo's) compiles and shows its screen
    screen.get_by_test_id("partner-logo").wait_for(timeout=20_000)
    page.get_by_label("Bildschirm").click()
    page.get_by_role("option", name="/terms", exact=True).click()
    editor = page.get_by_label("Konfiguration (JSON)")
    editor.fill('{"colors": {"button": "rot"}, "font_family": "Comic Sans"}')
    page.get_by_test_id("preview-compile").click()
    errors = page.get_by_test_id("preview-errors")
    errors.wait_for()
    assert "colors.button" in errors.inner_text() and "font_family" in errors.inner_text()
    editor.fill('{"colors": {"button": "#aa0000"}, "page_title": "Solar GmbH"}')
    page.get_by_test_id("preview-compile").click()
    button = screen.get_by_test_id("terms-submit")
    button.wait_for()
    assert button.evaluate("(node) => getComputedStyle(node).backgroundColor") == "rgb(170, 0, 0)"
    context.close()

