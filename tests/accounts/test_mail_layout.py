"""The e-mails as an owner receives them (issue 15): sent in the partner's name, the
partner's imprint in the footer, and every template rendered in Chromium at 320, 375, 600 and
800 px without sideways scrolling (screenshots under var/mail-shots/, not committed; for each
mail the 375 px phone next to the 800 px desktop in one picture, `*-375-800.png`, to look at)."""

from __future__ import annotations

import email
import email.policy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.core import mail
from django.template.loader import render_to_string
from playwright.sync_api import sync_playwright

from accounts.mails import mail_context
from tenants.models import Partner
from tests.e2e.conftest import CHROMIUM, CHROMIUM_FLAGS

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "var" / "mail-shots"
TEMPLATES = sorted(
    path.stem for path in ROOT.glob("platform/*/templates/accounts/mail/*.html") if path.stem != "base"
)
# A long link without a break opportunity is what pushed the card wider than a phone.
LINK = "https://autohaus.localhost/verify-email?token=" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z" * 4
CONTEXT = {
    "code": "482913",
    "link": LINK,
    "hours": 24,
    "valid_hours": 24,
    "name": "Erika Mustermann-Lüdenscheidt",
    "inviter": "Max Mustermann",
    "role_label": "Administrator",
    # the owner's status mails (quota.owner_mails): the longest kind's text
    "title": "Ihre THG-Quote wurde nicht bescheinigt",
    "body": "Für Ihr Fahrzeug B-EV 2026 wurde die THG-Quote für das Quotenjahr 2026 bereits beantragt. Eine "
    "Quote kann je Fahrzeug und Jahr nur einmal bescheinigt werden. Beim Umweltbundesamt können Sie erfragen, "
    "über welchen Anbieter die Quote für dieses Fahrzeug beantragt wurde.",
    "button_label": "Details ansehen",
}


def send_code(api: Callable[..., Any]) -> Any:
    return api(
        "/api/auth/registration/otp/",
        {"email": "erika@example.de", "partner": "autohaus", "verify_email_url": ""},
    )


def test_a_mail_goes_out_in_the_partners_name_with_its_imprint(
    api: Callable[..., Any], django_capture_on_commit_callbacks: Any, settings: Any
) -> None:
    settings.MAIL_REPLY_TO = "service@thg-quote.example"
    with django_capture_on_commit_callbacks(execute=True):
        assert send_code(api).status_code == 200

    message = mail.outbox[-1]
    assert message.from_email == "Autohaus Sonnenschein <no-reply@localhost>"
    assert message.reply_to == ["service@thg-quote.example"]
    html = str(message.alternatives[0][0])  # type: ignore[union-attr]
    imprint = Partner.objects.get(subdomain="autohaus").config["impressum_details"]
    assert imprint and imprint in html
    assert "Musterstraße 1\n10115 Berlin" in str(message.body)


def test_the_sender_name_is_quoted_when_it_needs_to_be(
    api: Callable[..., Any], django_capture_on_commit_callbacks: Any, settings: Any
) -> None:
    settings.MAIL_FROM_ADDRESS = "noreply@mail.thg-quote.example"
    Partner.objects.filter(subdomain="autohaus").update(name="Müller, Söhne & Co.")
    with django_capture_on_commit_callbacks(execute=True):
        assert send_code(api).status_code == 200
    # As a mail program reads it: the comma and the umlauts are quoted and encoded.
    raw = mail.outbox[-1].message().as_bytes()
    sender = email.message_from_bytes(raw, policy=email.policy.default)["From"].addresses[0]
    assert (sender.display_name, sender.addr_spec) == (
        "Müller, Söhne & Co.",
        "noreply@mail.thg-quote.example",
    )


OVERFLOW = """() => {
  const root = document.documentElement;
  const wide = [...document.body.querySelectorAll('*')]
    .filter((el) => el.getBoundingClientRect().right > root.clientWidth + 1)
    .map((el) => el.tagName.toLowerCase() + ' ' + Math.round(el.getBoundingClientRect().right));
  return {scroll: root.scrollWidth, client: root.clientWidth, wide: wide.slice(0, 5)};
}"""


def test_every_mail_fits_a_phone_and_a_desktop() -> None:
    assert len(TEMPLATES) >= 8, TEMPLATES
    # Rendered first: Django refuses database calls while Playwright's event loop runs.
    pages = {
        (partner.subdomain, template): render_to_string(
            f"accounts/mail/{template}.html", mail_context(partner, CONTEXT)
        )
        for partner in Partner.objects.filter(subdomain__in=["autohaus", "stadtwerk", "wallbox"])
        for template in TEMPLATES
    }
    assert len(pages) == 3 * len(TEMPLATES)
    SHOTS.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)
        for width in WIDTHS:
            page = browser.new_page(viewport={"width": width, "height": 800})
            for (subdomain, template), html in pages.items():
                page.set_content(html)
                layout = page.evaluate(OVERFLOW)
                if layout["scroll"] > layout["client"] or layout["wide"]:
                    problems.append(f"{subdomain} {template} at {width} px: {layout}")
                page.screenshot(path=str(SHOTS / f"{subdomain}-{template}-{width}.png"), full_page=True)
            page.close()
        browser.close()
    for subdomain, template in pages:
        side_by_side(SHOTS / f"{subdomain}-{template}", 375, 800)
    assert problems == []


WIDTHS = (320, 375, 600, 800)


def side_by_side(stem: Path, *widths: int) -> None:
    """The phone's and the desktop's picture of one mail in one image, top-aligned."""
    from PIL import Image

    shots = [Image.open(f"{stem}-{width}.png").convert("RGB") for width in widths]
    gap = 24
    sheet = Image.new(
        "RGB",
        (sum(shot.width for shot in shots) + gap * (len(shots) - 1), max(shot.height for shot in shots)),
        "#9e9e9e",
    )
    left = 0
    for shot in shots:
        sheet.paste(shot, (left, 0))
        left += shot.width + gap
    sheet.save(f"{stem}-{'-'.join(map(str, widths))}.png")
