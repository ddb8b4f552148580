"""The partner's page in the console (issue 49): the logo as a thumbnail, the site and preview
links as links above the form (not under the floating buttons), the draft's site framed beside
the form, its changes named by their German labels; a preview page may be framed by the
console's host, the live site by nobody."""

import html
import io
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from PIL import Image

from accounts.models import User
from tenants.models import Partner
from tenants.services import partner_provision
from tests.staff_login import client_staff_login

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(client: Client) -> Client:
    User.objects.create_superuser("onboarding", "onboarding@example.com", "S3cure-Passw0rd!")
    client_staff_login(client, host="localhost", username="onboarding", password="S3cure-Passw0rd!")
    return client


@pytest.fixture
def partner() -> Partner:
    return partner_provision(subdomain="seite", name="Seite GmbH", frontend_active=False)


def png(size: tuple[int, int]) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, "#1d4ed8").save(out, "PNG")
    return out.getvalue()


def test_the_logo_is_shown_and_the_draft_framed_beside_the_form(staff: Client, partner: Partner) -> None:
    upload = SimpleUploadedFile("logo.png", png((300, 100)), content_type="image/png")
    staff.post(f"/admin/tenants/partner/{partner.pk}/brand/", {"logo": upload}, HTTP_HOST="localhost")

    response = staff.get(f"/admin/tenants/partner/{partner.pk}/change/", HTTP_HOST="localhost")
    page = html.unescape(response.content.decode())

    # the thumbnail, through the console's own address, marked as the draft's
    thumb = re.search(
        r'<figure data-kind="logo"><img src="([^"]+)" alt="Logo"><figcaption>Logo \(Entwurf\)', page
    )
    assert thumb, page[page.find("brand-assets") : page.find("brand-assets") + 2000]
    image = staff.get(thumb.group(1), HTTP_HOST="localhost")
    assert image.status_code == 200 and image["Content-Type"] == "image/png"
    assert Image.open(io.BytesIO(b"".join(image))).size[0] > 0  # type: ignore[arg-type]
    # the links are links, and come after the floating buttons in the page
    assert (
        page.index('class="object-tools"')
        < page.index('id="console-blocks"')
        < page.index('id="draft-preview-link"')
    )
    draft_link = re.search(r'<a class="button" id="draft-preview-link" href="([^"]+)"', page)
    assert draft_link and draft_link.group(1).startswith("http://seite.localhost/?thg_preview=")
    # the draft's site beside the form, allowed by the console page's policy
    frame = re.search(r'<iframe id="live-preview-frame" title="Vorschau der Website" src="([^"]+)"', page)
    assert frame and frame.group(1).startswith("http://seite.localhost/?thg_preview=")
    assert "frame-src http://seite.localhost " in response["Content-Security-Policy"]
    assert "has-live-preview" in page
    # the draft's changes by their German names, never their keys
    diff = page[page.index('id="config-draft"') :]
    assert "Marke › Logo (URL)" in diff
    assert "<code>logo</code>" not in diff


def test_only_a_preview_page_may_be_framed_and_only_by_the_console_host(
    partner: Partner, staff: Client
) -> None:
    page = staff.get(f"/admin/tenants/partner/{partner.pk}/change/", HTTP_HOST="localhost").content.decode()
    link = html.unescape(re.search(r'id="preview-link" href="([^"]+)"', page).group(1))  # type: ignore[union-attr]
    token = link.split("thg_preview=", 1)[1]

    preview = Client().get(f"/?thg_preview={token}", HTTP_HOST="seite.localhost")
    live = Client().get("/", HTTP_HOST="autohaus.localhost")

    assert preview.status_code == 200
    assert "frame-ancestors localhost:* 127.0.0.1:*" in preview["Content-Security-Policy"]
    assert "X-Frame-Options" not in preview
    assert "frame-ancestors 'none'" in live["Content-Security-Policy"]
    assert live["X-Frame-Options"] == "DENY"


def test_a_configuration_version_reads_in_german(staff: Client) -> None:
    # given: a partner whose published configuration has prices, a choice and HTML
    partner = partner_provision(
        subdomain="fassung",
        name="Fassung GmbH",
        frontend_active=False,
        config={
            "item_alignment": "left",
            "impressum_details": "<p>Fassung GmbH</p><p>Hauptstraße 1</p>",
            "fees": [{"legislation_year": 2026, "vehicle_class": "M1", "client_fee": "85.5"}],
        },
    )

    # when: the operator opens the versions' list and the first version
    listing = staff.get(
        f"/admin/tenants/configversion/?partner__id__exact={partner.pk}", HTTP_HOST="localhost"
    )
    version = partner.config_versions.get(number=1)
    page = staff.get(f"/admin/tenants/configversion/{version.pk}/change/", HTTP_HOST="localhost")

    # then: German names, the configuration per section by the form's titles, values in words
    listed = html.unescape(listing.content.decode())
    assert listing.status_code == 200
    assert "Konfigurationsversion" in listed and "config version" not in listed
    for column in ("Nummer", "Stand", "Veröffentlicht am", "Autor", "Notiz"):
        assert f">{column}<" in listed or f">{column}</a>" in listed, column
    shown = html.unescape(page.content.decode())
    summary = shown[shown.index('id="config-summary"') :]
    summary = summary[: summary.index("</table>")]
    for label in ("Veröffentlicht am", "Angelegt am", "Kopie von Version", "Notiz", "Konfiguration"):
        assert label in shown, label
    for english in ("Published at", "Created at", "Copied from", "Number:", "Note:"):
        assert english not in shown, english
    assert re.search(r">Marke</h3>.*>Ausrichtung der Überschriften</th><td>Links<", summary, re.S)
    assert ">Impressum</th><td>Fassung GmbH Hauptstraße 1<" in summary
    assert ">Preise › Nr. 1 › Prämie je Fahrzeug (€, netto)</th><td>85,50<" in summary
    assert ">Punkt hinter Überschriften</th><td>nein<" in summary
    # no configuration key and no JSON
    assert not re.findall(r"\b[a-z]+_[a-z_]+\b", re.sub(r"<[^>]+>", " ", summary))
    assert '"item_alignment"' not in shown


def test_the_partner_page_shows_no_internal_schema_name(staff: Client, partner: Partner) -> None:
    page = html.unescape(
        staff.get(f"/admin/tenants/partner/{partner.pk}/change/", HTTP_HOST="localhost").content.decode()
    )

    assert partner.schema_name == "p_seite"
    assert "p_seite" not in page and "Datenbankschema" not in page
    # the configuration widget's "Select..." is put into German by the console's script
    assert "console/jsonform-de.js" in page
