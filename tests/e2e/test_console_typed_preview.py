"""The console's side-by-side preview follows the typing (issue 49), in Chromium against the
running server: an operator types a new welcome title into a partner's configuration form and,
without saving, the framed preview shows it; a colour that could not be saved leaves the
preview as it was and says why; the partner's configuration stays unsaved."""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable

from playwright.sync_api import Page, expect

from tests.e2e.test_portal import django
from tests.staff_login import page_staff_login

PartnerUrl = Callable[..., str]

SETUP = """
import json
from accounts.models import User
from tenants.services import partner_provision
from tests.staff_login import staff_device
user = User.objects.create_superuser("USERNAME", "USERNAME@example.com", "PASSWORD")
staff_device(user)
partner = partner_provision(subdomain="SUBDOMAIN", name="Tipp GmbH", frontend_active=False)
print(json.dumps({"id": partner.pk}))
"""

CODE = """
from accounts.models import User
from tests.staff_login import staff_device, totp_code
print(totp_code(staff_device(User.objects.get(username="USERNAME"))))
"""

STATE = """
import json
from tenants.models import Partner
partner = Partner.objects.get(subdomain="SUBDOMAIN")
print(json.dumps({
    "title": partner.config["pages"]["welcome"]["title"],
    "drafts": partner.config_versions.filter(published_at__isnull=True).count(),
}))
"""


def test_the_preview_shows_what_is_typed_before_it_is_saved(desktop: Page, live_server_port: int) -> None:
    page = desktop
    console = f"http://localhost:{live_server_port}"
    username = "vorschau-" + secrets.token_hex(3)
    password = "S3cure-Passw0rd!" + secrets.token_hex(2)
    subdomain = "tipp-" + secrets.token_hex(3)
    setup = SETUP.replace("USERNAME", username).replace("PASSWORD", password).replace("SUBDOMAIN", subdomain)
    partner_id = json.loads(django(setup).splitlines()[-1])["id"]
    page_staff_login(
        page,
        base_url=console,
        username=username,
        password=password,
        code=lambda: django(CODE.replace("USERNAME", username)).strip().splitlines()[-1],
    )
    page.goto(f"{console}/admin/tenants/partner/{partner_id}/change/")
    preview = page.frame_locator("#live-preview-frame")
    expect(preview.get_by_test_id("preview-banner")).to_be_visible(timeout=30_000)

    # typing a new welcome title: the frame shows it shortly after, nothing saved
    title = page.locator('[name="rjf§texte§welcome§title"]')
    title.fill("")
    title.press_sequentially("Strom vom Dach, Prämie vom Hof", delay=40)
    expect(preview.get_by_role("heading", name="Strom vom Dach, Prämie vom Hof")).to_be_visible(
        timeout=20_000
    )
    expect(page.locator("#live-preview-status")).to_contain_text("ungespeicherten Stand")
    stored = json.loads(django(STATE.replace("SUBDOMAIN", subdomain)).splitlines()[-1])
    assert stored == {"title": "Jetzt THG-Prämie sichern", "drafts": 0}

    # a button colour without contrast: not previewed, the reason is shown
    button = page.locator('[name="rjf§marke§colors§button_text"]')
    button.fill("#0c6f50")
    button.dispatch_event("input")
    button.press("Tab")
    expect(page.locator("#live-preview-status")).to_contain_text(
        "Vorschau nicht aktualisiert: Marke › Farben", timeout=20_000
    )
    expect(preview.get_by_role("heading", name="Strom vom Dach, Prämie vom Hof")).to_be_visible()
