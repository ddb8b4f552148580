"""The onboarding team's path in Chromium against the running server (issue 18): platform
staff log in (password, authenticator code), create a partner in the console, set its brand
colours (a too-weak contrast is refused with the pair and its ratio, the suggested shade is
accepted), upload a logo, save a draft, preview it through the signed link, publish, invite
the first partner admin (the mail arrives), and the new subdomain serves the branded site."""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Page, expect

from tenants.directory import CHECK_INTERVAL
from tests.e2e.conftest import PHONE
from tests.e2e.flow_helpers import mail_to, new_address
from tests.e2e.test_portal import django
from tests.staff_login import page_staff_login

PartnerUrl = Callable[..., str]

SETUP = """
import json
from accounts.models import User
from tests.staff_login import staff_device
user = User.objects.create_superuser("USERNAME", "USERNAME@example.com", "PASSWORD")
staff_device(user)
print(json.dumps({"id": user.pk}))
"""

CODE = """
from accounts.models import User
from tests.staff_login import staff_device, totp_code
print(totp_code(staff_device(User.objects.get(username="USERNAME"))))
"""

LOGO_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="160" height="48" viewBox="0 0 160 48">'
    '<rect width="48" height="48" rx="8" fill="#5b2a86"/><text x="58" y="32" font-size="22">Neu</text></svg>'
)


def rgb(hex_color: str) -> str:
    value = hex_color.lstrip("#")
    red, green, blue = (int(value[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgb({red}, {green}, {blue})"


def test_the_onboarding_team_takes_a_partner_live(
    desktop: Page, live_server_port: int, partner_url: PartnerUrl, tmp_path: Path
) -> None:
    page = desktop
    console = f"http://localhost:{live_server_port}"
    username = "onboarding-" + secrets.token_hex(3)
    password = "S3cure-Passw0rd!" + secrets.token_hex(2)
    django(SETUP.replace("USERNAME", username).replace("PASSWORD", password))
    subdomain = "neu-" + secrets.token_hex(3)

    # log in: password, then the authenticator's code
    page_staff_login(
        page,
        base_url=console,
        username=username,
        password=password,
        code=lambda: django(CODE.replace("USERNAME", username)).strip().splitlines()[-1],
    )

    # a new partner in the form: subdomain, name, a pale button; the site stays off until ready
    page.goto(console + "/admin/tenants/partner/add/")
    page.fill("#id_subdomain", subdomain)
    page.fill("#id_name", "Neu Energie GmbH")
    page.uncheck("#id_frontend_active")
    page.fill('input[name="rjf§marke§page_title"]', "Neu Energie – THG-Prämie")
    page.fill('input[name="rjf§marke§colors§button"]', "#8fc1f0")
    page.click("input[name=_continue]")

    # refused: the pair, its ratio and the nearest passing shade are named
    errors = page.locator(".errorlist").first
    expect(errors).to_contain_text("Zu wenig Kontrast", timeout=20_000)
    message = errors.inner_text()
    assert "#ffffff auf #8fc1f0" in message, message
    assert re.search(r"hat \d+,\d+:1, nötig sind mindestens 4,50:1", message), message
    suggestion = re.search(r"Nächster passender Farbton: (#[0-9a-f]{6})", message)
    assert suggestion, message
    shade = suggestion.group(1)

    # the suggested shade is accepted: the partner is provisioned (version 1)
    page.fill('input[name="rjf§marke§colors§button"]', shade)
    page.click("input[name=_continue]")
    page.wait_for_url(re.compile(r"/admin/tenants/partner/\d+/change/"), timeout=30_000)
    change_url = page.url

    # a logo upload goes into a draft; the live configuration stays as it is
    logo_file = tmp_path / "logo.svg"
    logo_file.write_text(LOGO_SVG)
    page.set_input_files("#brand-assets input[name=logo]", logo_file)
    page.click("#brand-assets input[type=submit]")
    expect(page.locator(".messagelist")).to_contain_text("Die Bilder sind im Entwurf")
    draft = page.locator("#config-draft")
    expect(draft).to_contain_text("logo")
    logo_url = re.search(r"/brand/logo-[0-9a-f]{12}\.svg", draft.inner_text())
    assert logo_url, draft.inner_text()

    # the draft through its signed preview link: the real site, on while the site is off
    href = page.locator("#draft-preview-link").get_attribute("href") or ""
    assert "preview=" in href
    # the console runs on localhost: a local link keeps the console's port (a real host: https)
    assert href.startswith(f"http://{subdomain}.localhost:{live_server_port}/"), href
    # (on a phone: the owner's first screen; the desktop one asks to continue on a phone)
    assert page.context.browser is not None
    phone = page.context.browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, locale="de-DE")
    site = phone.new_page()
    site.goto(href)
    start = site.get_by_test_id("welcome-start")
    expect(start).to_be_visible(timeout=30_000)
    assert start.evaluate("el => getComputedStyle(el).backgroundColor") == rgb(shade)
    expect(site.get_by_test_id("partner-logo").first).to_have_attribute("src", logo_url.group(0))
    # without the link, the site is still off
    phone.clear_cookies()
    site.goto(partner_url(subdomain))
    expect(site.get_by_text("Diese Website ist nicht aktiv.")).to_be_visible(timeout=30_000)

    # publish the draft as version 2
    page.goto(change_url)
    page.locator("#config-draft input[type=submit][value=Veröffentlichen]").click()
    expect(page.locator(".messagelist")).to_contain_text("Version 2 ist veröffentlicht.")

    # the first partner admin: invited from the console, the mail arrives with its link
    address = new_address()
    page.goto(change_url)
    invite = page.locator("#partner-admin-invite")
    invite.locator("input[name=name]").fill("Erika Admin")
    invite.locator("input[name=email]").fill(address)
    sent = time.time() - 1
    invite.locator("input[type=submit]").click()
    expect(page.locator(".messagelist")).to_contain_text("ist als Partner-Admin eingeladen")
    text = mail_to(address, after=sent, timeout=30)
    assert f"{subdomain}.localhost" in text, text
    expect(page.locator("#partner-admin-invite")).to_contain_text(f"{address} (eingeladen)")

    # switch the site on: the new subdomain serves the branded first screen
    page.check("#id_frontend_active")
    page.click("input[name=_continue]")
    expect(page.locator(".messagelist")).to_contain_text("erfolgreich", timeout=30_000)
    # the other gunicorn worker learns of the change at its next check (tenants.directory):
    # a page opened before then is the deactivated one, and does not reload itself
    time.sleep(CHECK_INTERVAL + 0.2)
    site.goto(partner_url(subdomain))
    start = site.get_by_test_id("welcome-start")
    expect(start).to_be_visible(timeout=30_000)
    assert start.evaluate("el => getComputedStyle(el).backgroundColor") == rgb(shade)
    expect(site.get_by_test_id("partner-logo").first).to_have_attribute("src", logo_url.group(0))
    expect(site).to_have_title("Neu Energie – THG-Prämie")
    phone.close()

    # every step is in the console's audit log
    page.goto(console + f"/admin/tenants/consoleauditentry/?q={subdomain}")
    log = page.locator("#result_list")
    for summary in ("Partner angelegt", "Markenbilder hochgeladen", "Version 2 veröffentlicht", "eingeladen"):
        expect(log).to_contain_text(summary)
