"""What the registration-flow browser tests share: mails, documents, config patches, steps."""

from __future__ import annotations

import email
import os
import re
import time
import uuid
from email.message import Message
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from playwright.sync_api import Page, Route, expect

from tests.conftest import ROOT
from tests.fixtures.zlb.generate import photo, zlb_document

MAIL_DIR = ROOT / "var" / "test-mail"
DOCUMENTS = ROOT / "var" / "e2e-documents"


def new_address() -> str:
    return f"e2e-{uuid.uuid4().hex[:10]}@example.org"


def _text(message: Message) -> str:
    for part in message.walk():
        if part.get_content_type() == "text/plain":
            payload = part.get_payload(decode=True)
            assert isinstance(payload, bytes)
            return payload.decode(part.get_content_charset() or "utf-8")
    return ""


def mail_to(address: str, *, after: float, timeout: float = 15, matching: str | None = None) -> str:
    """The text of the newest mail to an address written after a moment (the server's outbox).

    With `matching`, only a mail whose text has that pattern: a mail asked for just before
    (within the second `after` leaves as slack) is not taken for the one awaited.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if MAIL_DIR.exists():
            for path in sorted(MAIL_DIR.glob("*.eml"), key=lambda p: p.stat().st_mtime, reverse=True):
                if path.stat().st_mtime < after:
                    break
                message = email.message_from_bytes(path.read_bytes())
                if address in str(message["To"]):
                    text = _text(message)
                    if matching is None or re.search(matching, text):
                        return text
        time.sleep(0.2)
    raise AssertionError(f"no mail to {address}")


def code_from(text: str) -> str:
    match = re.search(r"\b(\d{6})\b", text)
    assert match, text
    return match.group(1)


def link_from(text: str) -> str:
    match = re.search(r"https?://\S+verify-email\S*", text)
    assert match, text
    return match.group(0)


def document(name: str, **options: Any) -> Path:
    """A generated ZLB (or, with kind='photo', a holiday photo) as a file to upload."""
    DOCUMENTS.mkdir(parents=True, exist_ok=True)
    path = DOCUMENTS / name
    if not path.exists():
        if options.pop("kind", "zlb") == "photo":
            data = photo(7)
        else:
            data, _ = zlb_document(options.pop("seed", 3), **options)
        # Written whole, then renamed: a second test worker never reads half a file.
        partial = path.with_name(f"{path.name}.{os.getpid()}.part")
        partial.write_bytes(data)
        partial.replace(path)
    return path


def patch_config(page: Page, **changes: Any) -> None:
    """The partner's real configuration with some flags changed, as the web app loads it."""

    def handle(route: Route) -> None:
        # Playwright's own fetch cannot resolve *.localhost: ask 127.0.0.1 with the Host header.
        url = urlsplit(route.request.url)
        direct = urlunsplit((url.scheme, f"127.0.0.1:{url.port}", url.path, url.query, ""))
        response = route.fetch(url=direct, headers={**route.request.headers, "host": url.netloc})
        body = response.json()
        for key, value in changes.items():
            if isinstance(value, dict) and isinstance(body.get(key), dict):
                body[key] = {**body[key], **value}
            else:
                body[key] = value
        if "authentication_flow" in changes:
            body["theme"]["flags"]["authenticationFlow"] = changes["authentication_flow"]
        route.fulfill(response=response, json=body)

    page.route("**/api/configs/**", handle)


def accept_terms(page: Page) -> None:
    expect(page).to_have_url(re.compile(r"/terms"))
    page.get_by_test_id("check-currentYear").check()
    page.get_by_test_id("check-terms").check()
    page.get_by_test_id("terms-submit").click()


def log_in(page: Page, address: str, flow: str, *, b2b: bool = False) -> None:
    expect(page).to_have_url(re.compile(r"/b2b/login" if b2b else r"/login"))
    page.get_by_test_id("login-email").fill(address)
    sent = time.time() - 1
    page.get_by_test_id("login-submit").click()
    text = mail_to(address, after=sent)
    if flow == "otp":
        expect(page).to_have_url(re.compile(r"codevalidation"))
        # key by key, as a phone's keyboard types it: keys that write into a field are no
        # keyboard navigation, and the next screen's title shows no ring for them (issue 51)
        page.get_by_test_id("code-input").press_sequentially(code_from(text))
    else:
        expect(page.get_by_test_id("confirm-text")).to_contain_text(address)
        page.goto(link_from(text))
    expect(page).to_have_url(re.compile(r"/upload"))
    # the upload screen (the phone's tutorial step 1), arrived at from the code typed or the
    # mail's link, no key that moves around the page pressed: its title has the focus for
    # screen readers, and no ring
    page.wait_for_function(TITLE_FOCUSED)
    assert page.evaluate(FOCUS_RING) is None, (
        f"arrived at the upload: the title shows {page.evaluate(FOCUS_RING)}"
    )


TITLE_FOCUSED = "() => document.activeElement !== null && document.activeElement.tagName === 'H1'"
# The focused element's outline as drawn ('solid 2px'), or null for none.
FOCUS_RING = """() => {
  const style = getComputedStyle(document.activeElement);
  return style.outlineStyle === 'none' || parseFloat(style.outlineWidth) === 0 ? null : `${style.outlineStyle} ${style.outlineWidth}`;
}"""


def upload(page: Page, path: Path) -> None:
    """The phone's tutorial and camera input, or the desktop's file input."""
    page.locator("[data-testid=tutorial-next], [data-testid=upload-choose]").first.wait_for()
    if page.get_by_test_id("tutorial-next").count():
        for _ in range(3):
            page.get_by_test_id("tutorial-next").click()
        page.get_by_test_id("scan-input").set_input_files(path)
    else:
        page.get_by_test_id("upload-input").set_input_files(path)


def pick(page: Page, field: str, option: str) -> None:
    page.get_by_test_id(f"select-{field}").click()
    page.get_by_role("option", name=option, exact=True).click()


def fill_person(page: Page, *, gender: str | None = "Frau") -> None:
    page.get_by_test_id("billing-first_name").wait_for()
    if gender and page.get_by_test_id("select-gender").count():
        pick(page, "gender", gender)
    for name, value in {
        "first_name": "Anna",
        "last_name": "Muster",
        "street_name": "Hauptstraße",
        "street_number": "12a",
        "postal_code": "10115",
        "city": "Berlin",
    }.items():
        page.get_by_test_id(f"billing-{name}").fill(value)


AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"


FINISH_TRANSITIONS = """async () => {
  if (!document.getElementById('e2e-no-transitions')) {
    const style = document.createElement('style');
    style.id = 'e2e-no-transitions';
    style.textContent = '*, *::before, *::after { transition: none !important; animation-duration: 0s !important; animation-delay: 0s !important; }';
    document.head.appendChild(style);
  }
  await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
}"""


def axe_check(page: Page, screen: str, *, settle: bool = True) -> None:
    """No serious or critical accessibility violation on the screen as it is now (after the
    network is idle, unless the screen waits for an answer on purpose: settle=False)."""
    if settle:
        page.wait_for_load_state("networkidle")
    # Colours are checked as they end, not halfway through a button's 250 ms colour transition
    # (a button turning enabled as the form fills): transitions and animations finish at once.
    page.evaluate(FINISH_TRANSITIONS)
    if not page.evaluate("() => Boolean(window.axe)"):
        # Evaluated through the DevTools protocol: the site's CSP forbids inline scripts,
        # which is what a script tag with this content would be.
        page.evaluate(AXE.read_text())
    try:
        # Storybook's accessibility panel runs the same axe on a story: one run at a time, so a
        # run that finds axe busy waits for it and asks again.
        violations = page.evaluate(AXE_RUN)
        # MUI X puts a grid in place before it has measured and rendered its rows (a list that
        # fetched again, its columns changed): caught in between, axe finds a grid without rows.
        # What counts is the grid once its rows are there: a few more looks, each after the grids
        # have settled again.
        for _ in range(3):
            if not violations or not all(v.startswith("aria-required-children") for v in violations):
                break
            if not page.evaluate(GRIDS_SETTLED):
                break  # a grid that stays without rows: the violation stands
            violations = page.evaluate(AXE_RUN)
        assert violations == [], f"{screen}: {violations}"
        layout_check(page, screen)
    finally:
        # The screen goes on as users see it, transitions included.
        page.evaluate("() => document.getElementById('e2e-no-transitions')?.remove()")


# Every grid on the page with rows, and none of them changed for 400 ms (up to 10 s): MUI X puts a
# grid in place before it has measured and rendered its rows. Time is counted in 100 ms ticks of
# the timers: a story's clock stands still (set_fixed_time), its timers keep running.
GRIDS_SETTLED = """async () => {
  const grids = () => [...document.querySelectorAll('[role=grid]')];
  const rendered = () => grids().every((grid) => grid.querySelector('[role=row]'));
  if (grids().length === 0) return true;
  let quiet = 0;
  const watch = new MutationObserver((records) => {
    if (records.some((r) => r.target instanceof Element && (r.target.closest('[role=grid]') ||
        [...r.addedNodes, ...r.removedNodes].some((n) => n instanceof Element &&
          (n.matches('[role=grid]') || n.querySelector('[role=grid]')))))) quiet = 0;
  });
  watch.observe(document.body, { subtree: true, childList: true });
  try {
    for (let tick = 0; tick < 100; tick++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      quiet += 1;
      if (rendered() && quiet >= 4) return true;
    }
    return rendered();
  } finally {
    watch.disconnect();
  }
}"""
AXE_RUN = """async () => {
                for (let tries = 0; ; tries++) {
                    try {
                        return (await window.axe.run(document, {resultTypes: ['violations']})).violations
                            .filter(v => v.impact === 'serious' || v.impact === 'critical')
                            .map(v => `${v.id} (${v.impact}): ${v.nodes.map(n => n.target.join(' ')).join(', ')}`);
                    } catch (error) {
                        if (tries >= 20 || !String(error).includes('already running')) throw error;
                        await new Promise((resolve) => setTimeout(resolve, 250));
                    }
                }
            }"""


# What a person sees that axe does not: the page scrolling sideways, a text squeezed into a box
# narrower than its first three characters, a heading larger than the screen's title, a logo
# whose text is too small to read, an advertisement louder than the title or too small to read,
# a focus ring around a title focused on arrival, a title dot alone.
LAYOUT_PROBLEMS = """() => {
  const problems = [];
  const root = document.documentElement;
  if (root.scrollWidth > root.clientWidth + 1) problems.push(`scrolls sideways: ${root.scrollWidth} > ${root.clientWidth} px`);
  const shown = (el) => {
    const rect = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    return rect.width > 1 && rect.height > 1 && style.visibility !== 'hidden' && style.clip !== 'rect(0px, 0px, 0px, 0px)';
  };
  const name = (el) => `${el.tagName.toLowerCase()}${el.dataset.testid ? '[' + el.dataset.testid + ']' : ''} "${el.textContent.trim().slice(0, 30)}"`;
  const title = [...document.querySelectorAll('h1')].find(shown);
  const titleSize = title ? parseFloat(getComputedStyle(title).fontSize) : Infinity;
  for (const el of document.querySelectorAll('h2, h3, h4, h5, h6, legend')) {
    if (!shown(el)) continue;
    const size = parseFloat(getComputedStyle(el).fontSize);
    if (size > titleSize + 0.5) problems.push(`${name(el)} is ${size} px, the title ${titleSize} px`);
  }
  // The partner's logo: its smallest text (its share of the logo's height, from the theme
  // compiler) at least 12 px high on a phone, 14 px from 600 px on (issue 51).
  const phone = window.innerWidth < 600;
  for (const logo of document.querySelectorAll('img[data-testid=partner-logo][data-text-share]')) {
    const share = parseFloat(logo.dataset.textShare);
    if (!shown(logo) || !(share > 0)) continue;
    const text = logo.getBoundingClientRect().height * share;
    const least = phone ? 12 : 14;
    if (text + 0.05 < least) problems.push(`the logo's text is ${text.toFixed(1)} px high, at least ${least} px wanted`);
  }
  // An advertisement image: its largest text no more than 1.25 times the title's size, its
  // smallest at least 12 px (where it would be smaller, a phone shows the text advertisement).
  for (const ad of document.querySelectorAll('img[data-testid=advertisement-image][data-text-share]')) {
    if (!shown(ad)) continue;
    const height = ad.getBoundingClientRect().height;
    const text = height * parseFloat(ad.dataset.textShare);
    if (title && text > titleSize * 1.25 + 0.5) problems.push(`the advertisement's text is ${text.toFixed(1)} px, the title ${titleSize} px`);
    const smallest = height * parseFloat(ad.dataset.smallestShare || 'NaN');
    if (smallest + 0.05 < 12) problems.push(`the advertisement's smallest text is ${smallest.toFixed(1)} px, at least 12 px wanted`);
  }
  // A title the screen announcer focused for screen readers shows no ring unless the visitor
  // came by keyboard (it sets data-focus-ring then): arriving by a click, a mail link or a
  // redirect draws nothing around the title's letters.
  const active = document.activeElement;
  if (active && active.tagName === 'H1' && !active.hasAttribute('data-focus-ring')) {
    const style = getComputedStyle(active);
    if (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0) problems.push(`the focused title ${name(active)} shows a focus ring (${style.outlineStyle} ${style.outlineWidth})`);
  }
  // The title's dot on the line of the title's last letters, never alone on a line.
  for (const dot of document.querySelectorAll('[data-testid=title-dot]')) {
    const end = dot.closest('[data-testid=title-end]');
    const letters = end && [...end.childNodes].find((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim());
    if (!letters || !shown(dot)) continue;
    const range = document.createRange();
    range.selectNodeContents(letters);
    const lines = [...range.getClientRects()];
    const last = lines[lines.length - 1];
    const box = dot.getBoundingClientRect();
    if (!last || box.top >= last.bottom || box.bottom <= last.top) problems.push(`the title's dot is on a line of its own`);
  }
  const measure = document.createElement('canvas').getContext('2d');
  for (const el of document.body.querySelectorAll('*')) {
    const text = [...el.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent.trim()).join('');
    if (text.length < 3 || !shown(el) || getComputedStyle(el).display === 'inline') continue;
    // The layout width, not the drawn one: a shrunk floating label is scaled by a transform.
    const width = el instanceof HTMLElement ? el.offsetWidth : el.getBoundingClientRect().width;
    measure.font = getComputedStyle(el).font;
    const needed = measure.measureText(text.slice(0, 3)).width;
    if (width + 0.5 < needed) problems.push(`${name(el)} is ${Math.round(width)} px wide, three characters need ${Math.round(needed)}`);
  }
  return problems;
}"""


def layout_check(page: Page, screen: str) -> None:
    problems = page.evaluate(LAYOUT_PROBLEMS)
    assert problems == [], f"{screen}: {problems}"


# Two texts drawn over each other: each element's own text lines, cut to the boxes that clip
# them (an ellipsis, a grid's scrolled-away columns), against every other element's that is
# neither its ancestor nor its descendant. Not compared: what is hidden, transparent, visually
# hidden or behind a modal (aria-hidden, inert), and a fixed or sticky layer (app bar, toast,
# dialog) against the page beneath it: covering the page is what such a layer is for. Within
# one layer its texts are compared with each other.
OVERLAPS = """() => {
  const problems = [];
  const name = (el) => `${el.tagName.toLowerCase()}${el.dataset && el.dataset.testid ? '[' + el.dataset.testid + ']' : ''} "${el.textContent.trim().slice(0, 30)}"`;
  const seen = (el) => {
    for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
      const style = getComputedStyle(node);
      if (style.visibility === 'hidden' || style.display === 'none' || parseFloat(style.opacity) === 0) return false;
      if (style.clip === 'rect(0px, 0px, 0px, 0px)' || style.clipPath === 'inset(50%)') return false;
    }
    return true;
  };
  const layer = (el) => {
    for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
      const position = getComputedStyle(node).position;
      if (position === 'fixed' || position === 'sticky') return node;
    }
    return null;
  };
  // What of a text is drawn: its line boxes cut to every box on the way up that clips its
  // overflow (an ellipsis, a grid's scrolled-away columns).
  const clipOf = (el) => {
    let clip = { left: -Infinity, top: -Infinity, right: Infinity, bottom: Infinity };
    for (let node = el; node && node.nodeType === 1 && node !== document.documentElement; node = node.parentElement) {
      const style = getComputedStyle(node);
      if (style.overflowX === 'visible' && style.overflowY === 'visible') continue;
      const r = node.getBoundingClientRect();
      clip = { left: Math.max(clip.left, r.left), top: Math.max(clip.top, r.top), right: Math.min(clip.right, r.right), bottom: Math.min(clip.bottom, r.bottom) };
    }
    return clip;
  };
  const boxes = [];
  for (const el of document.body.querySelectorAll('*')) {
    if (el.closest('[aria-hidden="true"], [inert]')) continue;
    const rects = [];
    let clip = null;
    for (const node of el.childNodes) {
      if (node.nodeType !== Node.TEXT_NODE || !node.textContent.trim()) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      clip = clip || clipOf(el);
      for (const r of range.getClientRects()) {
        const cut = { left: Math.max(r.left, clip.left), top: Math.max(r.top, clip.top), right: Math.min(r.right, clip.right), bottom: Math.min(r.bottom, clip.bottom) };
        if (cut.right - cut.left > 1 && cut.bottom - cut.top > 1) rects.push(cut);
      }
    }
    if (rects.length && seen(el)) boxes.push({ el, rects, layer: layer(el) });
  }
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i], b = boxes[j];
      if (a.layer !== b.layer || a.el.contains(b.el) || b.el.contains(a.el)) continue;
      const hit = a.rects.some((ra) => b.rects.some((rb) =>
        Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left) > 2 && Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top) > 2));
      if (hit) problems.push(`${name(a.el)} overlaps ${name(b.el)}`);
    }
  }
  return problems;
}"""


def overlap_check(page: Page, screen: str) -> None:
    problems = page.evaluate(OVERLAPS)
    assert problems == [], f"{screen}: {problems}"


IBAN = "DE89 3704 0044 0532 0130 00"


def billing(page: Page, subdomain: str) -> None:
    expect(page).to_have_url(re.compile(r"/billing"))
    fill_person(page)
    if subdomain == "stadtwerk":  # BANKORCHARGECARD
        pick(page, "payment_method", "Bankkonto")
    if subdomain != "wallbox":  # the wallbox demo pays no money out (NONE)
        page.get_by_test_id("billing-account_name").fill("Anna Muster")
        page.get_by_test_id("billing-account_iban").fill(IBAN)
    page.get_by_test_id("billing-review").click()
    expect(page.get_by_test_id("billing-summary")).to_be_visible()
    axe_check(page, "billing summary")
    page.get_by_test_id("billing-submit").click()
