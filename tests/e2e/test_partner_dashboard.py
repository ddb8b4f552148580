"""The partner dashboard at 390 and 1440 px (issue 49), in Chromium against the running server,
over a partner of its own with two months of generated applications, a paid and a new payout
batch: the key figure tiles (new, in review, submitted, certified, paid, payout sum) with their
change against the previous period, every chart with labelled axes, the status legend, one
colour per status in the tiles, the donut, its legend and the payout bars, and at 390 px
nothing wider than the screen nor cut off (each element's box measured against the viewport,
each chart's marks and tick labels against its drawing). The pictures are saved under var/ for
a person to look at."""

from __future__ import annotations

import datetime
import json
import re
import secrets
from collections.abc import Callable

import pytest
from django.utils import timezone
from playwright.sync_api import Browser, expect

from tests.conftest import ROOT
from tests.e2e.test_german_everywhere import SETUP, partner_login
from tests.e2e.test_portal import django
from themes.perceptual import colour_distance

PartnerUrl = Callable[..., str]
TILES = {
    "new": "Neu eingegangen",
    "in_review": "In Prüfung genommen",
    "submitted": "An das UBA übermittelt",
    "certified": "Vom UBA bestätigt",
    "paid": "Ausgezahlt",
    "payout_sum": "Auszahlungssumme",
}
# The status a tile counts (operations/dashboard.py TILE_STEPS): its colour is the status's.
TILE_STATUS = {
    "in_review": "qa_picked_up",
    "submitted": "qa_sent_to_uba",
    "certified": "qa_accepted",
    "paid": "qa_paid",
}
GERMAN_COUNT = re.compile(r"^\d{1,3}(\.\d{3})*$")
GERMAN_EUROS = re.compile(r"^\d{1,3}(\.\d{3})*,\d{2}\s€$")
# "+8 (+22 %) ggü. Vorperiode"; from an empty previous period without the percentage
CHANGE = re.compile(r"^[+−±]\d[\d.]*(,\d{2}\s€)?( \([+−±]\d[\d.]* %\))? ggü\. Vorperiode$")

# Everything drawn on the page that lies outside the viewport, or is cut off by its box: the
# elements of main (visually hidden ones and those inside a horizontal scroller excepted), the
# charts' marks and tick labels against their SVG, and texts wider than their box.
OVERFLOW = """() => {
  const width = window.innerWidth;
  const out = [];
  const name = (el) => (el.getAttribute("data-testid") || el.className?.baseVal || el.className || el.tagName)
    .toString().slice(0, 60) + " «" + (el.textContent || "").trim().slice(0, 40) + "»";
  const hidden = (el) => {
    for (let node = el; node && node !== document.body; node = node.parentElement) {
      const style = getComputedStyle(node);
      if (style.clip && style.clip !== "auto") return true;
      if (style.display === "none" || style.visibility === "hidden") return true;
      if (node !== el && /(auto|scroll)/.test(style.overflowX) && node.scrollWidth > node.clientWidth) return true;
    }
    return false;
  };
  if (document.documentElement.scrollWidth > width) out.push("page scrolls sideways: " + document.documentElement.scrollWidth);
  for (const el of document.querySelectorAll("main *")) {
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.height === 0 || hidden(el)) continue;
    if (box.left < -1 || box.right > width + 1) out.push("outside the screen: " + name(el) + " " + Math.round(box.left) + ".." + Math.round(box.right));
    const style = getComputedStyle(el);
    if (!(el instanceof SVGElement) && style.overflowX !== "visible" && !/(auto|scroll)/.test(style.overflowX)
        && el.scrollWidth > el.clientWidth + 1) {
      const edge = el.getBoundingClientRect().right;
      const past = [...el.querySelectorAll("*")].filter(
        (child) => child.getBoundingClientRect().right > edge + 1 && !hidden(child));
      if (past.length) out.push("cut off: " + name(el) + " by " + past.slice(-3).map(name).join(", "));
    }
  }
  for (const svg of document.querySelectorAll("main svg.MuiChartsSvgLayer-root")) {
    const frame = svg.getBoundingClientRect();
    for (const mark of svg.querySelectorAll(".MuiPieChart-arc, .MuiBarChart-element, .MuiChartsAxis-tickLabel, .MuiChartsAxis-label")) {
      const box = mark.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue;
      if (box.left < frame.left - 1 || box.right > frame.right + 1 || box.top < frame.top - 1 || box.bottom > frame.bottom + 1)
        out.push("cut off by its chart: " + name(mark));
    }
  }
  return out;
}"""

CHART_FACTS = """() => [...document.querySelectorAll("main section[aria-label]")]
  .filter((card) => card.querySelector("svg.MuiChartsSvgLayer-root"))
  .map((card) => ({
    title: card.getAttribute("aria-label"),
    axisLabels: [...card.querySelectorAll(".MuiChartsAxis-label")].map((t) => t.textContent.trim()).filter(Boolean),
    arcs: [...card.querySelectorAll(".MuiPieChart-arc")].map((p) => getComputedStyle(p).fill),
    bars: [...card.querySelectorAll(".MuiBarChart-element")].map((b) => getComputedStyle(b).fill),
  }))"""

LEGEND = """() => [...document.querySelectorAll("[data-testid=status-legend] li")].map((li) => ({
  status: li.getAttribute("data-status"),
  colour: getComputedStyle(li.querySelector("[data-colour]")).backgroundColor,
  text: li.textContent.trim(),
}))"""


def hex_of(css: str) -> str:
    red, green, blue = (int(float(v)) for v in re.findall(r"[\d.]+", css)[:3])
    return f"#{red:02x}{green:02x}{blue:02x}"


@pytest.mark.parametrize("width", [390, 1440])
def test_the_dashboard_at_390_and_1440_px(browser: Browser, partner_url: PartnerUrl, width: int) -> None:
    subdomain = f"kennzahlen-{width}-" + secrets.token_hex(2)
    operator = "operator-" + secrets.token_hex(3)
    staff = json.loads(
        django(SETUP.replace("SUBDOMAIN", subdomain).replace("OPERATOR", operator).replace("PASSWORD", "x"))
        .strip()
        .splitlines()[-1]
    )
    phone = width < 600
    context = browser.new_context(
        viewport={"width": width, "height": 844 if phone else 900},
        is_mobile=phone,
        has_touch=phone,
        locale="de-DE",
    )
    page = context.new_page()
    partner_login(page, partner_url, subdomain, staff)

    # the last 30 days against the 30 before (the applications span 60 days)
    today = timezone.localdate()  # the server's day (Europe/Berlin)
    start = today - datetime.timedelta(days=29)
    page.goto(
        partner_url(
            subdomain, f"/partner/dashboard?created_from={start.isoformat()}&created_to={today.isoformat()}"
        )
    )
    expect(page.get_by_test_id("stats-charts")).to_be_visible(timeout=20_000)
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(800)  # the charts' entry animation
    shot = ROOT / "var" / f"e2e-dashboard-{width}.png"
    shot.parent.mkdir(exist_ok=True)
    page.screenshot(path=str(shot), full_page=True)
    shot.with_suffix(".html").write_text(page.content())

    # the tiles: their German names, German figures, the change against the previous period
    changes = 0
    for key, label in TILES.items():
        tile = page.get_by_test_id(f"tile-{key}")
        expect(tile).to_be_visible()
        expect(tile.get_by_role("heading")).to_have_text(label)
        value = page.get_by_test_id(f"tile-{key}-value").inner_text().strip()
        assert (GERMAN_EUROS if key == "payout_sum" else GERMAN_COUNT).match(value), (key, value)
        change = page.get_by_test_id(f"tile-{key}-change")
        if change.count():
            assert CHANGE.match(change.inner_text().strip()), (key, change.inner_text())
            changes += 1
    assert changes == len(TILES), "every tile compares with the previous period"
    assert page.get_by_test_id("tile-payout_sum-value").inner_text().strip() != "0,00 €"
    previous_end = start - datetime.timedelta(days=1)
    expect(page.get_by_test_id("stats-period")).to_have_text(
        f"Verglichen mit dem Zeitraum davor gleicher Länge ({previous_end - datetime.timedelta(days=29):%d.%m.%Y}"
        f" – {previous_end:%d.%m.%Y})."
    )

    # every chart says what its axes measure; the status chart has its legend
    charts = page.evaluate(CHART_FACTS)
    assert len(charts) == 5, [chart["title"] for chart in charts]
    for chart in charts:
        if not chart["arcs"]:
            assert chart["axisLabels"], f"{chart['title']}: no axis label"
    legend = page.evaluate(LEGEND)
    assert legend and all(item["status"] for item in legend), legend
    assert all(not re.search(r"\bqa_", item["text"]) for item in legend), legend

    # one colour per status: the legend's colours are apart, the donut draws them, the tiles
    # and the payout bars use the same colour for the same status
    colours = {item["status"]: hex_of(item["colour"]) for item in legend}
    assert len(set(colours.values())) == len(colours), colours
    closest = min(
        (colour_distance(a, b), sa, sb) for sa, a in colours.items() for sb, b in colours.items() if sa < sb
    )
    assert closest[0] >= 5, f"two statuses look alike: {closest}"
    donut = next(chart for chart in charts if chart["arcs"])
    assert {hex_of(fill) for fill in donut["arcs"]} <= set(colours.values()), (donut["arcs"], colours)
    for key, status in TILE_STATUS.items():
        border = hex_of(
            page.get_by_test_id(f"tile-{key}").evaluate("(el) => getComputedStyle(el).borderLeftColor")
        )
        if status in colours:
            assert border == colours[status], (key, border, colours[status])
    payouts = next(chart for chart in charts if chart["title"] == "Auszahlungen (brutto)")
    if "qa_paid" in colours and len(payouts["bars"]) == 2:
        assert hex_of(payouts["bars"][1]) == colours["qa_paid"], (payouts["bars"], colours)

    # nothing wider than the screen, nothing cut off
    problems = page.evaluate(OVERFLOW)
    assert not problems, "\n".join(problems)
    context.close()
