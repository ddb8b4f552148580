"""What a visitor sees when something is off, in Chromium against gunicorn (issue 15): the
branded 404 page, the neutral page of an unknown host, the error boundary around a screen
whose file did not arrive, the one-time reload for a chunk of an old release, and the bot
check searching in a Web Worker."""

from __future__ import annotations

import re
from collections.abc import Callable

from playwright.sync_api import Page, Route, expect

from tests.e2e.flow_helpers import axe_check

PartnerUrl = Callable[..., str]
# The FAQ screen's own file (a lazy chunk): /assets/faq-HASH8.js.
FAQ_CHUNK = re.compile(r"/assets/faq-[\w-]{8}\.js$")
RELOAD_FLAG = "thg:preload-reload"
FIRST = 20_000


def test_an_unknown_path_is_a_404_in_the_partners_brand(phone: Page, partner_url: PartnerUrl) -> None:
    response = phone.goto(partner_url("stadtwerk", "/gibt-es-nicht"))
    assert response is not None and response.status == 404

    # The first answer of a fresh server on a loaded machine may take seconds: FIRST waits longer.
    expect(phone.get_by_role("heading", level=1)).to_have_text("Seite nicht gefunden", timeout=FIRST)
    expect(phone.get_by_test_id("partner-logo").first).to_be_visible()
    axe_check(phone, "404")
    phone.get_by_test_id("not-found-home").click()
    expect(phone.get_by_test_id("welcome-start")).to_be_visible()

    # In the portal: back to the portal's login.
    response = phone.goto(partner_url("stadtwerk", "/portal/gibt-es-nicht"))
    assert response is not None and response.status == 404
    expect(phone.get_by_test_id("not-found")).to_be_visible()
    phone.get_by_test_id("not-found-home").click()
    expect(phone).to_have_url(re.compile(r"/portal/auth/login$"))


def test_an_unknown_host_gets_a_neutral_page(phone: Page, partner_url: PartnerUrl) -> None:
    response = phone.goto(partner_url("gibt-es-nicht", "/terms"))
    assert response is not None and response.status == 404

    expect(phone.get_by_role("heading", level=1)).to_have_text("Seite nicht gefunden")
    expect(phone.get_by_text("Diese Adresse ist keinem Partner zugeordnet.", exact=False)).to_be_visible()
    axe_check(phone, "unknown host")


def test_a_screen_whose_file_does_not_arrive_shows_the_boundary_and_retries(
    phone: Page, partner_url: PartnerUrl
) -> None:
    blocked = {"on": True, "requests": 0}

    def chunk(route: Route) -> None:
        blocked["requests"] += 1
        if blocked["on"]:
            route.abort("connectionfailed")
        else:
            route.continue_()

    phone.route(FAQ_CHUNK, chunk)
    phone.goto(partner_url("autohaus", "/"))
    expect(phone.get_by_test_id("welcome-start")).to_be_visible(timeout=FIRST)
    # This tab has reloaded for a stale chunk before: no second reload, the boundary shows.
    phone.evaluate(f"() => sessionStorage.setItem('{RELOAD_FLAG}', '1')")
    phone.goto(partner_url("autohaus", "/faq"))

    expect(phone.get_by_test_id("screen-error")).to_be_visible(timeout=FIRST)
    expect(phone.get_by_role("heading", level=1)).to_have_text("Da ist etwas schiefgelaufen")
    axe_check(phone, "error boundary", settle=False)

    # The connection is back: "Erneut versuchen" fetches the file again and shows the screen.
    blocked["on"] = False
    before = blocked["requests"]
    phone.get_by_test_id("screen-error-retry").click()
    expect(phone.get_by_role("heading", level=1)).to_have_text("Häufige Fragen")
    assert blocked["requests"] > before


def test_a_chunk_of_an_old_release_reloads_the_page_once(phone: Page, partner_url: PartnerUrl) -> None:
    # After a deploy the old file is gone (404): the first request fails, the page reloads
    # by itself and gets the current release.
    served = {"requests": 0}

    def chunk(route: Route) -> None:
        served["requests"] += 1
        if served["requests"] == 1:
            route.fulfill(status=404, body="gone")
        else:
            route.continue_()

    phone.route(FAQ_CHUNK, chunk)
    loads: list[str] = []
    phone.on("load", lambda page: loads.append(page.url))
    phone.goto(partner_url("autohaus", "/faq"))

    expect(phone.get_by_role("heading", level=1)).to_have_text("Häufige Fragen", timeout=FIRST)
    expect(phone.get_by_test_id("screen-error")).to_have_count(0)
    assert served["requests"] >= 2
    assert len(loads) == 2, loads
    assert phone.evaluate(f"() => sessionStorage.getItem('{RELOAD_FLAG}') !== null")


def test_the_portal_login_solves_the_bot_check_in_a_worker(phone: Page, partner_url: PartnerUrl) -> None:
    workers: list[str] = []
    phone.on("worker", lambda worker: workers.append(worker.url))
    phone.goto(partner_url("autohaus", "/portal/auth/login"))
    phone.get_by_test_id("portal-username").fill("niemand@example.de")
    phone.get_by_test_id("portal-password").fill("falsch-falsch-1")
    phone.get_by_test_id("portal-login").click()

    # The solution went to the server (a wrong password, not a failed bot check).
    expect(phone.get_by_test_id("login-error")).to_contain_text(
        "Der Benutzername oder das Passwort ist falsch", timeout=20_000
    )
    assert any("bot-check" in url for url in workers), workers
