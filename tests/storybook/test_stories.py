"""Every story of the built Storybook in Chromium: it renders (play functions included)
without a console error, has no serious or critical axe violation, lays out at 320, 390 and
1440 px, and looks as its pictures in tests/storybook/baselines/ at phone and desktop (a
picture that differs lands under var/storybook-diffs/; STORYBOOK_SHOTS=1 keeps every picture
taken under var/storybook-shots/, not committed). `make test` builds Storybook first."""

from __future__ import annotations

import base64
import contextlib
import datetime
import functools
import http.server
import io
import json
import os
import re
import socket
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageChops
from playwright.sync_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Page,
    Request,
    Response,
    ViewportSize,
    sync_playwright,
)
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.e2e.conftest import CHROMIUM, CHROMIUM_FLAGS, DESKTOP, PHONE
from tests.e2e.flow_helpers import (
    FINISH_TRANSITIONS,
    GRIDS_SETTLED,
    OVERLAPS,
    axe_check,
    layout_check,
    overlap_check,
)

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "storybook-static"
SHOTS = ROOT / "var" / "storybook-shots"
# Every picture taken, kept to look at (a PNG written per picture: some 0.1 s each, 470 a run).
KEEP_SHOTS = os.environ.get("STORYBOOK_SHOTS") == "1"

# Storybook's channel tells when a story (and its play function) is done, or how it failed. A
# page shows one story after another (StoryPages below): the story awaited is named in
# `window.__storyId` (first the address's), and only its own `storyRendered` counts.
WATCH = """
window.__story = 'pending';
window.__storyId = new URLSearchParams(location.search).get('id');
(function attach() {
  const channel = window.__STORYBOOK_ADDONS_CHANNEL__;
  if (!channel) return setTimeout(attach, 10);
  channel.on('storyRendered', (id) => { if (window.__story === 'pending' && id === window.__storyId) window.__story = 'rendered'; });
  channel.on('storyErrored', (e) => { window.__story = 'errored: ' + (e && e.title) + ' ' + (e && e.description); });
  channel.on('storyThrewException', (e) => { window.__story = 'threw: ' + (e && e.message); });
  channel.on('playFunctionThrewException', (e) => { window.__story = 'play failed: ' + (e && e.message); });
  channel.on('storyMissing', () => { window.__story = 'missing'; });
})();
"""
# The next story on a page that shows one already: Storybook's own test-runner switches stories
# so, through the preview's channel, instead of loading the preview (some 2 MB of scripts) again.
# Storybook unmounts the story before (its React root, and with it the story's providers, its
# React Query client included), runs the next one's loaders (MSW's handlers for it) and play
# function, and scrolls to the top.
SWITCH = """(id) => {
  window.__story = 'pending';
  window.__storyId = id;
  window.__STORYBOOK_ADDONS_CHANNEL__.emit('setCurrentStory', { storyId: id, viewMode: 'story' });
}"""
# A story done is unmounted at once (Storybook's own teardown of it, which the switch would do
# later; doing it twice is harmless): a page kept for the next story runs none of its timers
# (a countdown that ends in a redirect, a chart that measures again after the viewport is reset)
# while it waits. Not while Storybook is still busy with the story: its teardown would then
# reload the page, and the page is closed instead.
TEARDOWN = """async () => {
  const render = window.__STORYBOOK_PREVIEW__ && window.__STORYBOOK_PREVIEW__.currentRender;
  if (!render || render.isPending()) return false;
  await render.teardown();
  return true;
}"""
# A kept page still holds the preview that tore its story down (no story navigated it away).
TORN_DOWN = "() => Boolean(window.__STORYBOOK_PREVIEW__?.currentRender?.torndown)"


# Storybook's accessibility addon runs axe on every story it shows, after the story is rendered
# (its panel's result): here that run only competed with the test's own axe check (axe_check,
# the same axe, serious and critical violations fail) for the two cores, 0.2-0.5 s of the page's
# CPU per story. The story's address switches it to manual (the panel's "Run" button).
A11Y_MANUAL = "a11y.manual:!true"


def story_address(storybook_url: str, story_id: str, globals_: str = "") -> str:
    """A story alone in Storybook's iframe, with the given globals (`theme:utility`) and the
    accessibility addon's own run switched off."""
    chosen = ";".join(filter(None, (globals_, A11Y_MANUAL)))
    return f"{storybook_url}/iframe.html?id={story_id}&viewMode=story&globals={chosen}"


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


class StorybookServer(http.server.ThreadingHTTPServer):
    """A page closed while its video was still loading cuts the connection (the pictures paint
    videos over, nothing waits for them): no fault, and no traceback in the test log."""

    def handle_error(self, request: socket.socket | tuple[bytes, socket.socket], client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):  # BrokenPipeError, ConnectionResetError
            super().handle_error(request, client_address)


@pytest.fixture(scope="module")
def storybook_url(live_server_port: int) -> Iterator[str]:
    if not STATIC.exists():
        pytest.fail("Storybook is not built: run `npm run build-storybook` (make test does)")
    StorybookHandler.api_port = live_server_port
    handler = functools.partial(StorybookHandler, directory=str(STATIC))
    server = StorybookServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)
        yield browser
        browser.close()


class StoryPages:
    """The stories' pages, in one browser context per viewport kept for the whole file (the
    context's HTTP and code caches keep Storybook's scripts, MSW's service worker stays
    installed). A page that showed a story, torn down when done (TEARDOWN), shows the next one
    at the same viewport and globals (SWITCH), rather than a new page loading and starting
    Storybook's preview again: about a second of a page's CPU per story. What a story could
    leave for the next is cleared or reset (cookies, local and session storage, the viewport,
    the scroll position), and every page starts at the fixed clock.

    A page is closed instead, and the next story gets a new one, where a story may have left
    more than that:
    - a story with a play function: it typed and clicked, and the page remembers how the
      visitor last acted (Chromium's `:focus-visible` for a focus set by script, and the app's
      input modality): the next story's title, focused on arrival, would show a focus ring;
      the app's module state a play function reaches (a verified mail link's key, a CSRF call)
      stays too;
    - a request still open (a loading story's answer never comes): the app's module state
      counts it (the portal's progress bar would show in the next story), and its end would be
      heard in the next story;
    - a story that failed, or Storybook still busy with it, or a page no longer on the preview
      (a story's timer navigated it away): whatever went wrong stays with it;
    - after REUSES stories: the styles each story's theme added stay in the page's head.
    """

    REUSES = 30

    def __init__(self, browser: Browser, storybook_url: str) -> None:
        self.browser = browser
        self.storybook_url = storybook_url
        self.contexts: dict[tuple[int, int], BrowserContext] = {}
        # The page ready for the next story, by viewport and globals, with the stories it showed.
        self.kept: dict[tuple[int, int, str], tuple[Page, int]] = {}
        self.shown: dict[Page, tuple[tuple[int, int, str], int]] = {}
        self.open_requests: dict[Page, set[Request]] = {}

    def open(self, viewport: ViewportSize, globals_: str = "") -> Page:
        """A page for a story at this viewport and globals: the one kept, or a new one."""
        key = (viewport["width"], viewport["height"], globals_)
        if key in self.kept:
            page, count = self.kept.pop(key)
            with contextlib.suppress(PlaywrightError):
                if page.evaluate(TORN_DOWN):
                    self.shown[page] = (key, count)
                    return page
            del self.open_requests[page]
            page.close()
        if key[:2] not in self.contexts:
            self.contexts[key[:2]] = _context(self.browser, viewport)
        page = self.contexts[key[:2]].new_page()
        page.add_init_script(WATCH)
        requests: set[Request] = set()
        page.on("request", lambda request: requests.add(request))
        page.on("requestfinished", lambda request: requests.discard(request))
        page.on("requestfailed", lambda request: requests.discard(request))
        self.open_requests[page] = requests
        self.shown[page] = (key, 0)
        return page

    def show(self, page: Page, story_id: str) -> None:
        """The story on the page: switched to on a page that showed one, else loaded."""
        key, count = self.shown[page]
        if count:
            page.evaluate(SWITCH, story_id)
        else:
            page.goto(story_address(self.storybook_url, story_id, key[2]))
        self.shown[page] = (key, count + 1)

    def leave(self, page: Page, *, reuse: bool) -> None:
        """The story is done: the page is cleaned and kept for the next one, or closed."""
        key, count = self.shown.pop(page)
        torn_down = False
        with contextlib.suppress(PlaywrightError):
            torn_down = page.evaluate(TEARDOWN) is True
        reuse = reuse and torn_down and count < self.REUSES and not self.open_requests[page]
        with contextlib.suppress(PlaywrightError):
            page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
        page.context.clear_cookies()
        if reuse:
            with contextlib.suppress(PlaywrightError):
                # Back to the context's own viewport (the story is gone): the next story renders
                # there first.
                page.set_viewport_size({"width": key[0], "height": key[1]})
                self.kept[key] = (page, count)
                return
        del self.open_requests[page]
        page.close()

    def close(self) -> None:
        for context in self.contexts.values():
            context.close()


@pytest.fixture(scope="module")
def story_pages(chromium: Browser, storybook_url: str) -> Iterator[StoryPages]:
    pages = StoryPages(chromium, storybook_url)
    yield pages
    pages.close()


def test_there_is_a_story_for_every_screen() -> None:
    names = {str(story["name"]).split(":")[0] for story in STORIES}
    for screen in ("Welcome", "TermsView", "LoginCA", "CodeValidation", "Billing", "Finish", "RecaptchaOtpFlow",
                   "ResetPassword", "SignupView", "RegistrationsView", "Impressum", "Data Privacy Info"):  # fmt: skip
        assert screen in names, screen
    assert len(STORIES) >= 55


@pytest.mark.parametrize("story", STORIES, ids=[str(s["id"]) for s in STORIES])
def test_the_story_renders_cleanly(story: dict[str, object], story_pages: StoryPages) -> None:
    page = story_pages.open(DESKTOP if _is_desktop(story) else PHONE)
    reuse = False
    errors: list[str] = []
    looks: list[str] = []

    def on_response(response: Response) -> None:
        # An error answer a story asks MSW for (wrong code, invalid link) is its state, not a
        # fault; anything else that fails to load is.
        if response.status >= 400 and "/api/" not in response.url:
            errors.append(f"{response.status} {response.url}")

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error" and not message.text.startswith("Failed to load resource"):
            errors.append(message.text)

    def on_pageerror(error: PlaywrightError) -> None:
        errors.append(str(error))

    page.on("response", on_response)
    page.on("console", on_console)
    page.on("pageerror", on_pageerror)
    try:
        story_pages.show(page, str(story["id"]))
        page.wait_for_function("() => window.__story !== 'pending'", timeout=30_000)
        state = page.evaluate("() => window.__story")
        assert state == "rendered", state
        page.evaluate(QUIET)  # what the first render started (a fetch, a measure) has settled
        # MUI X's grid measures before it renders its rows: a grid caught between the two has
        # no row yet (axe: aria-required-children). Wait for the rows it will show.
        # A story that fetches again after its first rows (a filter restored from storage) puts a
        # new grid in the old one's place, measured before its rows come: the grids are checked
        # once they have rows and have not changed for 400 ms.
        assert page.evaluate(GRIDS_SETTLED), f"{story['id']}: a grid without rows after 10 s"
        # A loading story keeps its request open: no waiting for the network to go idle.
        axe_check(page, str(story["id"]), settle=False)
        # A select's label moves out of its value's way (MUI's 200 ms transition) once the value
        # is there; a value restored from storage comes after the first render, and under CI's
        # load the label was caught on its way (partner-area applications, restored filter).
        # Up to 2 s for what moves to arrive; an overlap that stays fails as before.
        with contextlib.suppress(PlaywrightTimeout):
            page.wait_for_function(f"() => ({OVERLAPS})().length === 0", timeout=2_000)
        overlap_check(page, str(story["id"]))
        if not _is_desktop(story):
            looks.append(compare_look(page, f"{story['id']}--phone"))
        # The layout matrix on the same rendered story: the page is resized (CSS and MUI's media
        # queries follow) rather than loaded again per width, which would double the run.
        for width in _layout_widths(story):
            page.set_viewport_size(LAYOUT_WIDTHS[width])
            page.evaluate(QUIET)
            page.evaluate(FINISH_TRANSITIONS)  # a label moving to its new place is not an overlap
            layout_check(page, f"{story['id']} at {width} px")
            if width == "1440":
                # A wide desktop shows every data grid whole: no column cut off at its right edge.
                wide = page.evaluate(GRIDS_SCROLL_SIDEWAYS)
                assert wide == [], f"{story['id']} at 1440 px: a grid scrolls sideways {wide}"
            overlap_check(page, f"{story['id']} at {width} px")
            if width in PICTURE_WIDTHS:
                looks.append(compare_look(page, f"{story['id']}--{PICTURE_WIDTHS[width]}"))
        assert errors == [], errors
        reuse = "play-fn" not in (story.get("tags") or [])  # type: ignore[operator]
    finally:
        # The next story's messages are its own.
        page.remove_listener("response", on_response)
        page.remove_listener("console", on_console)
        page.remove_listener("pageerror", on_pageerror)
        story_pages.leave(page, reuse=reuse)
    changed = [look for look in looks if look]
    assert changed == [], "\n".join(changed)


# A story has settled when its page has not changed for 150 ms (no node, attribute or text
# changed: media queries answered, grids and charts measured their new width, a fetch's answer
# shown) after two frames; at most 2 s. It stood for a fixed 300 ms wait after
# each load and resize (about a third of a story's time) and waits longer where a page is still
# moving.
QUIET = """async () => {
  // Counted in ticks, not read from the clock: the story's clock stands still (STORY_TIME).
  let quiet = 0;
  const watch = new MutationObserver(() => { quiet = 0; });
  watch.observe(document.documentElement, { subtree: true, childList: true, attributes: true, characterData: true });
  const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));
  try {
    await frame();
    await frame();
    for (let tick = 0; tick < 40 && quiet < 3; tick++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      quiet += 1;
    }
    await frame();
  } finally {
    watch.disconnect();
  }
}"""


GRIDS_SCROLL_SIDEWAYS = """() => [...document.querySelectorAll('.MuiDataGrid-root')]
  .map((grid) => {
    const edge = grid.getBoundingClientRect().right;
    const cells = [...grid.querySelectorAll('[role=columnheader]')].map((cell) => cell.getBoundingClientRect().right);
    const last = Math.max(0, ...cells);
    return last > edge + 1 ? `${grid.closest('[data-testid]')?.dataset.testid}: last column ends at ${Math.round(last)} > ${Math.round(edge)}` : null;
  })
  .filter(Boolean)"""


# Every story at the narrowest phone (320 px), a common phone (390 px) and a wide desktop
# (1440 px): no sideways scroll, no text box narrower than three characters, no heading above
# the title, no text drawn over another. The story is rendered once at its own viewport (a phone
# story at 390 px, checked there by the render test) and resized to the other widths.
LAYOUT_WIDTHS: dict[str, ViewportSize] = {
    "320": {"width": 320, "height": 640},
    "390": {"width": 390, "height": 844},
    "1440": {"width": 1440, "height": 900},
}


def _is_desktop(story: dict[str, object]) -> bool:
    return "desktop" in (story.get("tags") or [])  # type: ignore[operator]


def _layout_widths(story: dict[str, object]) -> list[str]:
    return [width for width in LAYOUT_WIDTHS if width != "390" or _is_desktop(story)]


# Visual regression: every story as a phone (390 x 844) and a desktop (1440 x 900) shows it,
# compared pixel by pixel with the pictures committed under tests/storybook/baselines/
# (`<story id>--phone.png`, `--desktop.png`), taken in the render test above on the story it
# already rendered. A changed look is updated on purpose: `make storybook-baselines`
# (UPDATE_BASELINES=1) writes the pictures that changed or are missing and removes the ones
# of stories that are gone; a failing comparison leaves the new picture and a mask of the
# changed pixels under var/storybook-diffs/.
BASELINES = Path(__file__).with_name("baselines")
DIFFS = ROOT / "var" / "storybook-diffs"
PICTURE_WIDTHS = {"390": "phone", "1440": "desktop"}
UPDATE = os.environ.get("UPDATE_BASELINES") == "1"
# A pixel counts as changed when a channel moved by more than this (anti-aliasing, font
# hinting move edges by less); a picture fails when more than this share of pixels changed.
CHANNEL_TOLERANCE = 48
CHANGED_SHARE = 0.002
# The pictures must not depend on the day or the machine: the clock stands still at a fixed
# moment (a countdown shows its full time, "this year" is 2026 as the stories' data), dates are
# shown in Berlin's time, charts skip their animation (prefers-reduced-motion), one device pixel
# per CSS pixel.
STORY_TIME = datetime.datetime(2026, 3, 30, 10, 0, tzinfo=datetime.timezone(datetime.timedelta(hours=2)))


def _context(chromium: Browser, viewport: ViewportSize) -> BrowserContext:
    context = chromium.new_context(
        viewport=viewport,
        locale="de-DE",
        timezone_id="Europe/Berlin",
        device_scale_factor=1,
        reduced_motion="reduce",
    )
    context.clock.set_fixed_time(STORY_TIME)
    return context


# A screen that changes by itself a moment after it shows is taken once it has: the desktop
# upload's intro picture turns into its video after 2 s (and again after a resize remounts it).
STEADY = """() => !document.querySelector('[data-testid=upload-dropzone] [data-testid=upload-image]')"""
# What differs between runs by nature, painted over in the pictures (its box still counts): the
# desktop welcome's QR code holds the page's address, and the Storybook server's port is new
# each run; a video's frame (the upload's looping scan illustration) is whichever one the
# compositor last painted: pausing it and seeking to its start was not enough, a later frame
# (the scan line lower down) was once taken under CI's load, and requestVideoFrameCallback
# does not say reliably when a paused video's seek is painted in headless Chromium.
VARYING = "[data-testid=welcome-qr], video"
# What a changed picture's message names besides the share and where the change lies, for a
# change seen once in a while on CI (the B2B code screen, twice): a field focused on arrival
# (the code input) looks different when the focus went elsewhere or never came; the fonts
# loaded say whether a theme's font arrived after the picture was due.
FOCUS_STATE = """() => {
  const active = document.activeElement;
  const id = active?.dataset?.testid ? `[${active.dataset.testid}]` : '';
  const fonts = [...document.fonts].filter((f) => f.status === 'loaded').map((f) => f.family);
  return `focus: ${active?.tagName}${id}, page focused ${document.hasFocus()}, fonts ${[...new Set(fonts)].join('/')}`;
}"""


STEADY_SHOTS = 5


def steady_shot(page: Page) -> bytes:
    """The screen once two pictures in a row are alike, as Playwright's own toHaveScreenshot
    takes it: a change still on its way (a focus, a font, a late answer) is waited for rather
    than caught half done; after STEADY_SHOTS pictures the last one is compared as it is."""
    shot = page.screenshot(animations="disabled", caret="hide", mask=[page.locator(VARYING)])
    for _ in range(STEADY_SHOTS - 1):
        again = page.screenshot(animations="disabled", caret="hide", mask=[page.locator(VARYING)])
        if again == shot:
            break
        page.wait_for_timeout(100)
        shot = again
    return shot


def changed_share(actual: Image.Image, baseline: Path) -> tuple[float, Image.Image | None]:
    """The share of pixels where a channel moved by more than the tolerance, and their mask."""
    old = Image.open(baseline).convert("RGB")
    if actual.size != old.size:
        return 1.0, None
    red, green, blue = ImageChops.difference(actual, old).split()
    largest = ImageChops.lighter(ImageChops.lighter(red, green), blue)
    mask = largest.point(lambda value: 255 if value > CHANNEL_TOLERANCE else 0)
    return mask.histogram()[255] / (actual.size[0] * actual.size[1]), mask


# Stored with a palette of 256 colours (a quarter of the bytes of full colour: some 200 stories
# at two sizes stay a few MB) when that moves no channel by more than a third of the tolerance,
# else in full colour; both optimised.
PALETTE_ERROR = CHANNEL_TOLERANCE // 3


def save_baseline(picture: Image.Image, baseline: Path) -> None:
    BASELINES.mkdir(exist_ok=True)
    palette = picture.quantize(256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    red, green, blue = ImageChops.difference(picture, palette.convert("RGB")).split()
    largest = ImageChops.lighter(ImageChops.lighter(red, green), blue)
    faithful = largest.point(lambda value: 255 if value > PALETTE_ERROR else 0).getbbox() is None
    (palette if faithful else picture).save(baseline, optimize=True)


def compare_look(page: Page, name: str) -> str:
    """The screen as it is now against its baseline: '' when it looks the same, else why not."""
    assert page.evaluate(GRIDS_SETTLED), f"{name}: a grid without rows after 10 s"
    page.evaluate("() => document.fonts.ready")
    page.wait_for_function(STEADY, timeout=10_000)
    page.evaluate(FINISH_TRANSITIONS)
    picture = Image.open(io.BytesIO(steady_shot(page))).convert("RGB")
    if KEEP_SHOTS:
        SHOTS.mkdir(parents=True, exist_ok=True)
        picture.save(SHOTS / f"{name}.png")
    baseline = BASELINES / f"{name}.png"
    share, mask = changed_share(picture, baseline) if baseline.exists() else (1.0, None)
    if share <= CHANGED_SHARE:
        return ""
    if UPDATE:
        save_baseline(picture, baseline)
        return ""
    DIFFS.mkdir(parents=True, exist_ok=True)
    picture.save(DIFFS / f"{name}.png")
    if mask is not None:
        mask.save(DIFFS / f"{name}.diff.png")
    if not baseline.exists():
        return f"no baseline {baseline.name}: run `make storybook-baselines` (the picture: {DIFFS / baseline.name})"
    where = mask.getbbox() if mask is not None else None
    return (
        f"{baseline.name}: {share:.2%} of the pixels changed, within {where} (see {DIFFS}; a wanted"
        f" change: `make storybook-baselines`); {page.evaluate(FOCUS_STATE)}"
    )


# The flow's key screens in the other partner kinds (the stories show the standard kind; the
# portal's and the partner area's stories have their kinds already): the same story with the
# toolbar's `theme` global in the address, compared at phone and desktop as above.
KIND_VARIANTS = ("utility", "wallbox")
KIND_STORIES = (
    "registration-flow--welcome",
    "registration-flow--terms-view",
    "registration-flow--login-ca",
    "registration-flow--code-validation",
    "registration-flow--finish",
)
SCREEN_ARRIVED = """() => Boolean(document.querySelector('#storybook-root h1'))
  && !document.querySelector('#storybook-root [role=progressbar]')"""


@pytest.mark.parametrize("kind", KIND_VARIANTS)
@pytest.mark.parametrize("story_id", KIND_STORIES)
def test_the_story_looks_like_its_baseline_in_another_kind(
    story_id: str, kind: str, story_pages: StoryPages
) -> None:
    page = story_pages.open(PHONE, f"theme:{kind}")
    looks: list[str] = []
    reuse = False
    try:
        story_pages.show(page, story_id)
        page.wait_for_function("() => window.__story !== 'pending'", timeout=30_000)
        assert page.evaluate("() => window.__story") == "rendered"
        # a lazy screen may still be arriving (its spinner): every key screen has its title.
        # Inside the story's root: Storybook's own page has an h1 (its error display) always.
        page.wait_for_function(SCREEN_ARRIVED, timeout=30_000)
        page.evaluate(QUIET)
        looks.append(compare_look(page, f"{kind}--{story_id}--phone"))
        page.set_viewport_size(LAYOUT_WIDTHS["1440"])
        page.evaluate(QUIET)
        looks.append(compare_look(page, f"{kind}--{story_id}--desktop"))
        reuse = True
    finally:
        story_pages.leave(page, reuse=reuse)
    changed = [look for look in looks if look]
    assert changed == [], "\n".join(changed)


def test_every_baseline_belongs_to_a_story() -> None:
    """A picture of a story that is gone (renamed, removed) goes too: `make storybook-baselines`
    removes it."""
    wanted = {f"{story['id']}--{size}.png" for story in STORIES for size in PICTURE_WIDTHS.values()}
    wanted |= {f"{kind}--{story}--{size}.png" for kind in KIND_VARIANTS for story in KIND_STORIES
               for size in PICTURE_WIDTHS.values()}  # fmt: skip
    stale = sorted(path.name for path in BASELINES.glob("*.png") if path.name not in wanted)
    if UPDATE:
        for name in stale:
            (BASELINES / name).unlink()
        return
    assert stale == [], f"baselines of no story: {stale} (`make storybook-baselines` removes them)"


def test_no_screen_sets_a_typography_size_by_hand() -> None:
    """Text sizes are the theme's typography variants (h1-h6, body, caption ...), styled per
    partner kind by the theme compiler: a size in a Typography's sx or style escapes it."""
    hand_set = re.compile(r"<Typography\b[^>]*?\b(fontSize|font-size)\b")
    found = [
        f"{path.relative_to(ROOT)}: {match.group(0)[:80]}"
        for path in sorted((ROOT / "web" / "src").rglob("*.tsx"))
        for match in hand_set.finditer(path.read_text(encoding="utf-8"))
    ]
    assert found == [], found


def test_the_designer_preview_compiles_a_new_partner_and_shows_its_errors(
    storybook_url: str, chromium: Browser
) -> None:
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
    # terms pasted with hard line breaks are shown reflowed, as they will be stored (issue 51)
    terms = "Bedingungen\n\nWir vermarkten die Quote für das gewählte\nQuotenjahr."
    encoded = base64.b64encode(terms.encode()).decode()
    editor.fill(json.dumps({"pages": {"termsdetails": {"text": encoded}}}))
    page.get_by_label("Bildschirm").click()
    page.get_by_role("option", name="/termsdetails", exact=True).click()
    page.get_by_test_id("preview-compile").click()
    shown = screen.get_by_test_id("terms-text")
    shown.wait_for()
    assert shown.locator("p").count() == 2
    assert "für das gewählte Quotenjahr." in shown.inner_text()
    context.close()
