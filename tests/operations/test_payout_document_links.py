"""The owner's link to a credit note or payout statement on the portal card (issue 46): only the
owner's own document is served. Another owner's document, a link bound to another owner, or a
document of another partner is refused (404, not a byte of the PDF). Over HTTP."""

from __future__ import annotations

import pytest
from django.core import signing
from django.test import Client
from django_tenants.utils import schema_context

from operations.credit_notes import _salt, document_url
from operations.document_models import PayoutDocument
from tenants.models import Partner
from tests.operations.conftest import HOST, OTHER_HOST, SessionFactory, money_config
from tests.operations.test_payout_documents import LEGAL, business, invoicing, paid, to_pay
from tests.privacy.conftest import bearer

pytestmark = pytest.mark.django_db
CARDS = "/api/end_user_portal/quota_applications/"


def card_links(owner: object, host: str = HOST, subdomain: str = "autohaus") -> list[str]:
    answer = Client().get(CARDS, HTTP_HOST=host, headers=bearer(owner, subdomain))  # type: ignore[arg-type]
    assert answer.status_code == 200, answer.content
    return [d["url"] for card in answer.json()["results"] for d in card["payout_documents"]]


def test_an_owner_gets_only_their_own_document_never_anothers(
    autohaus: Partner, admin: Client, session: SessionFactory
) -> None:
    # given: two owners of this partner paid, and an owner of another partner paid there
    invoicing(autohaus)
    anna, bernd = business(), to_pay()
    paid(admin, anna, bernd)
    anna_owner, bernd_owner = anna.registration.owner, bernd.registration.owner
    annas = PayoutDocument.objects.get(application=anna)
    stadtwerk = Partner.objects.get(subdomain="stadtwerk")
    with schema_context("p_stadtwerk"):
        money_config(stadtwerk, invoicing={**LEGAL, "legal_name": "Stadtwerk Musterstadt AG"})
        theirs = business()
        paid(session("partner_admin", host=OTHER_HOST, partner=stadtwerk), theirs, host=OTHER_HOST)
        their_document = PayoutDocument.objects.get(application=theirs)
        their_link = document_url(partner=stadtwerk, document=their_document)

    # when: each owner's card; a link to Anna's document bound to Bernd; the other partner's
    # link on this partner's host, and one signed here for the other partner's document id
    [annas_link] = card_links(anna_owner)
    [bernds_link] = card_links(bernd_owner)
    token = signing.dumps({"d": annas.pk, "o": bernd_owner.pk}, salt=_salt(autohaus))
    bound_to_bernd = f"/api/end_user_portal/payout_documents/{token}/"
    foreign_id = signing.dumps(
        {"d": their_document.pk, "o": theirs.registration.owner_id}, salt=_salt(autohaus)
    )

    # then: the cards list only the owner's own; the other links find nothing
    assert annas_link != bernds_link
    assert Client().get(annas_link, HTTP_HOST=HOST).status_code == 200
    refused = [
        Client().get(bound_to_bernd, HTTP_HOST=HOST),
        Client().get(their_link, HTTP_HOST=HOST),
        Client().get(annas_link, HTTP_HOST=OTHER_HOST),
        Client().get(f"/api/end_user_portal/payout_documents/{foreign_id}/", HTTP_HOST=HOST),
    ]
    for answer in refused:
        assert answer.status_code == 404, answer.content
        assert b"%PDF" not in answer.content
    # the other partner's own link works on its own host only
    assert Client().get(their_link, HTTP_HOST=OTHER_HOST).status_code == 200
