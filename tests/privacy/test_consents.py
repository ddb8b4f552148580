"""Consent records (issue 19): what the owner agreed to, with the version (hash) of the text
shown, the time and the channel; written by the calls that need the consent, shown in the
export, deleted with the account."""

from __future__ import annotations

import base64
import io
import json
import zipfile
from typing import Any

import pytest
from django.test import Client as HttpClient
from django.utils import timezone

from accounts.models import User
from privacy.consents import consent_version
from privacy.erasure import owner_erase
from privacy.exports import data_export_build
from privacy.models import ConsentRecord, DataExport
from tenants.models import Partner
from tenants.services import partner_update
from tests.accounts.conftest import solve_bot_check
from tests.billing.test_clients import VALID
from tests.factories import ApplicationFactory, UserFactory
from tests.fixtures.zlb.generate import zlb_document
from tests.privacy.conftest import HOST, bearer

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("in_autohaus")]
YEAR = timezone.localdate().year
TERMS_TEXT = "<p>AGB Fassung 1</p>"
AGREED = "Ich akzeptiere die Allgemeinen Geschäftsbedingungen."
PRIVACY_LABEL = "Ich habe die Datenschutzinformation zur Kenntnis genommen."


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _document(text: str) -> str:
    return json.dumps({"text": text, "file": ""}, ensure_ascii=False, sort_keys=True)


def _configure(captured: Any, **terms: Any) -> Partner:
    partner = Partner.objects.get(subdomain="autohaus")
    config = partner.config
    pages = config.get("pages", {})
    with captured(execute=True):
        partner_update(
            partner=partner,
            config={
                **config,
                "pages": {
                    **pages,
                    "termsdetails": {"text": _b64(terms.pop("terms_text", TERMS_TEXT))},
                    "terms": {**pages.get("terms", {}), **terms},
                },
            },
        )
    return Partner.objects.get(pk=partner.pk)


def _upload(client: HttpClient, user: User, **fields: str) -> Any:
    data, _ = zlb_document(7)
    form: dict[str, Any] = {
        "partner": "autohaus", "source": "", "registration_years": str(YEAR), "skip_classifier": "False",
        **fields,
    }  # fmt: skip
    form["zlb_scan"] = io.BytesIO(data)
    form["zlb_scan"].name = "scan.jpg"
    return client.post("/api/bev_registrations/", form, HTTP_HOST=HOST, headers=bearer(user))


def test_the_flows_upload_records_the_terms_and_privacy_with_the_texts_version(
    client: HttpClient, django_capture_on_commit_callbacks: Any
) -> None:
    # given a partner with its own terms text
    _configure(django_capture_on_commit_callbacks)
    owner = UserFactory.create(email="ina@example.de", username="ina@example.de")

    # when the owner uploads in the flow, twice under the same texts
    assert _upload(client, owner).status_code == 201
    assert _upload(client, owner).status_code == 201

    # then the terms of the year and the privacy notice are recorded once, with the hash of
    # the checkbox text and the document shown
    records = {r.kind: r for r in ConsentRecord.objects.filter(user=owner)}
    assert set(records) == {"terms", "privacy"}
    terms = records["terms"]
    assert terms.given and terms.legislation_year == YEAR and terms.channel == "web"
    assert terms.label == AGREED
    assert terms.version == consent_version(AGREED, _document(TERMS_TEXT))
    assert records["privacy"].label == PRIVACY_LABEL

    # when the partner changes its terms and the owner uploads again
    _configure(django_capture_on_commit_callbacks, terms_text="<p>AGB Fassung 2</p>")
    assert _upload(client, owner).status_code == 201

    # then a second terms record holds the new version; the first one stays
    versions = list(
        ConsentRecord.objects.filter(user=owner, kind="terms")
        .order_by("pk")
        .values_list("version", flat=True)
    )
    assert versions == [terms.version, consent_version(AGREED, _document("<p>AGB Fassung 2</p>"))]


def test_a_b2b_upload_records_no_consent(client: HttpClient) -> None:
    owner = UserFactory.create(email="b2b@example.de", username="b2b@example.de")
    assert _upload(client, owner, source="b2b_fe").status_code == 201
    assert not ConsentRecord.objects.filter(user=owner).exists()


def test_the_promotion_opt_in_is_recorded_when_the_partner_shows_it(
    client: HttpClient, django_capture_on_commit_callbacks: Any
) -> None:
    owner = UserFactory.create(email="erika@example.de", username="erika@example.de")
    post = lambda body: client.post(  # noqa: E731
        "/api/clients/", body, content_type="application/json", HTTP_HOST=HOST, headers=bearer(owner)
    )
    # without the checkbox on the terms screen: nothing to record
    _configure(django_capture_on_commit_callbacks, show_email_promotions_flag=False)
    assert post(VALID).status_code == 201
    assert not ConsentRecord.objects.exists()

    # with it: the opt-in as sent, then its withdrawal; the same answer again adds nothing
    _configure(
        django_capture_on_commit_callbacks,
        show_email_promotions_flag=True,
        email_promotions_text="Ich möchte Neuigkeiten per E-Mail erhalten.",
    )
    assert post(VALID).status_code == 201
    assert post(VALID).status_code == 201
    assert post({**VALID, "email_promotion_opt_in": False}).status_code == 201

    records = list(ConsentRecord.objects.filter(user=owner).order_by("pk"))
    assert [(r.kind, r.given, r.channel) for r in records] == [
        ("email_promotion", True, "web"),
        ("email_promotion", False, "web"),
    ]
    assert records[0].label == "Ich möchte Neuigkeiten per E-Mail erhalten."
    assert records[0].version == consent_version("Ich möchte Neuigkeiten per E-Mail erhalten.")


def test_the_portals_resubmit_records_the_years_terms_and_the_opt_in(
    client: HttpClient, django_capture_on_commit_callbacks: Any
) -> None:
    _configure(
        django_capture_on_commit_callbacks, show_email_promotions_flag=True, email_promotions_text="News"
    )
    application = ApplicationFactory.create()
    owner = application.registration.owner

    response = client.put(
        f"/api/end_user_portal/quota_applications/{application.pk}/duplicate_for_new_period/",
        f"period={YEAR + 1}&email_promotion_opt_in=true",
        content_type="application/x-www-form-urlencoded",
        HTTP_HOST=HOST,
        headers=bearer(owner),
    )

    assert response.status_code == 201, response.content
    got = sorted(
        ConsentRecord.objects.filter(user=owner).values_list("kind", "given", "legislation_year", "channel")
    )
    assert got == [
        ("email_promotion", True, None, "portal"),
        ("next_year_terms", True, YEAR + 1, "portal"),
        ("privacy", True, YEAR + 1, "portal"),
    ]


def test_the_export_shows_the_records_and_erasure_deletes_them(
    client: HttpClient, django_capture_on_commit_callbacks: Any
) -> None:
    _configure(django_capture_on_commit_callbacks)
    owner = UserFactory.create(email="ina@example.de", username="ina@example.de")
    other = UserFactory.create(email="bert@example.de", username="bert@example.de")
    assert _upload(client, owner).status_code == 201
    assert _upload(client, other).status_code == 201

    export = DataExport.objects.create(user=owner, key_hash="k" * 64, expires_at=timezone.now())
    built = data_export_build(schema_name="p_autohaus", export_id=export.pk)
    assert built is not None
    from django.core.files.storage import default_storage

    with default_storage.open(built.file, "rb") as handle:
        consents = json.loads(zipfile.ZipFile(io.BytesIO(handle.read())).read("consents.json"))
    records = [c for c in consents if "version" in c]
    assert {(c["kind"], c["given"], c["channel"], c["legislation_year"]) for c in records} == {
        ("terms", True, "web", YEAR),
        ("privacy", True, "web", YEAR),
    }
    assert all(len(c["version"]) == 64 and c["at"] and c["text"] for c in records)

    counts = owner_erase(schema_name="p_autohaus", user=owner, actor="owner")

    assert counts["consent records"] == 2
    assert not ConsentRecord.objects.filter(user_id=owner.pk).exists()
    assert ConsentRecord.objects.filter(user=other).count() == 2


def _create_account(client: HttpClient, user: User, **extra: str) -> Any:
    body = {
        "password": "Neues_Passwort1!",
        "subdomain": "autohaus",
        "recaptcha": solve_bot_check(client, HOST),
    }
    return client.post(
        "/api/end_user_portal/create_account/",
        {**body, **extra},
        content_type="application/json",
        HTTP_HOST=HOST,
        headers=bearer(user),
    )


def test_the_portals_signup_records_the_terms_with_their_version_and_the_export_shows_it(
    client: HttpClient, django_capture_on_commit_callbacks: Any
) -> None:
    # given: an owner of the flow without a password (the signup shows the terms box), and one
    # who has a password already (no box)
    _configure(django_capture_on_commit_callbacks)
    owner = User.objects.create_user(username="ina@example.de", email="ina@example.de")
    known = User.objects.create_user(
        username="bert@example.de", email="bert@example.de", password="Altes_Passwort1!"
    )

    # when both create their portal account
    created = _create_account(client, owner)
    again = _create_account(client, owner, current_password="Neues_Passwort1!", password="Drittes_Pw1!x")
    known_created = _create_account(client, known, current_password="Altes_Passwort1!")

    # then: the owner's signup wrote one terms record; a password change and the known owner none
    assert created.status_code == 201, created.content
    assert again.status_code == 201 and known_created.status_code == 201
    record = ConsentRecord.objects.get(user=owner)
    label = "Ich akzeptiere die Teilnahmebedingungen."
    assert (record.kind, record.given, record.channel, record.legislation_year, record.label) == (
        "terms",
        True,
        "portal",
        None,
        label,
    )
    assert record.version == consent_version(label, _document(TERMS_TEXT))
    assert not ConsentRecord.objects.filter(user=known).exists()

    # and the export lists it with its time and version
    export = DataExport.objects.create(user=owner, key_hash="s" * 64, expires_at=timezone.now())
    built = data_export_build(schema_name="p_autohaus", export_id=export.pk)
    assert built is not None
    from django.core.files.storage import default_storage

    with default_storage.open(built.file, "rb") as handle:
        consents = json.loads(zipfile.ZipFile(io.BytesIO(handle.read())).read("consents.json"))
    records = [c for c in consents if "version" in c]
    assert records == [
        {
            "kind": "terms",
            "name": "AGB",
            "given": True,
            "legislation_year": None,
            "text": label,
            "version": record.version,
            "channel": "portal",
            "at": record.created_at.isoformat(),
        }
    ]
