"""Consent records (issue 19): the terms, privacy notice and e-mail promotion an owner agreed
to, stored with the hash of the text shown, the time and the channel, and shown in the export.

The browser keeps its checklist to itself (spec/registration-flow.md: the checklist is
client-side state; no call carries it). The server records what the flow guarantees when a
call reaches it: an upload of the registration flow is only possible with the terms of every
chosen year and the privacy notice ticked (LoginCA sends the visitor back to the terms
otherwise), the billing call carries the promotion opt-in, and the portal's resubmit needs the
terms and privacy of the chosen year and carries the opt-in, and the portal's signup
(create_account for an owner without a password) is only possible with its terms box ticked
(spec/customer-portal.md: for unknown users the terms checkbox must be ticked). B2B uploads have no terms page
(the partner's contract covers them) and record nothing.

A record is written when something changed: the first time, a new text version, or the
opt-in switched; a repeated upload under the same texts adds nothing.

The apps below privacy call these through accounts.consent_book, which PrivacyConfig.ready()
fills with this module."""

from __future__ import annotations

import base64
import binascii
import datetime
import hashlib
import json
from typing import Any

from django.db.models import Min, OuterRef, Subquery
from django.utils import timezone

from accounts.models import User
from common.partner_config import DocumentPage, PartnerConfig
from privacy.models import ConsentRecord
from themes.texts import FIXED_DE

Kind = ConsentRecord.Kind
CHANNEL_LABELS: dict[str, str] = dict(ConsentRecord.Channel.choices)
# The portal signup's checkbox as shown (web/src/portal/i18n.ts `signup.terms`, its link markup
# left out); it links to the partner's terms page (pages.termsdetails).
SIGNUP_TERMS_LABEL = "Ich akzeptiere die Teilnahmebedingungen."


def _document(page: DocumentPage) -> str:
    try:
        text = base64.b64decode(page.text or "", validate=False).decode("utf-8", "replace")
    except (binascii.Error, ValueError):
        text = page.text or ""
    return json.dumps({"text": text, "file": page.file or ""}, ensure_ascii=False, sort_keys=True)


def consent_version(*parts: str) -> str:
    """SHA-256 of the texts shown, in order."""
    return hashlib.sha256(json.dumps(list(parts), ensure_ascii=False).encode()).hexdigest()


def consent_texts(config: PartnerConfig, *, year: int) -> dict[str, tuple[str, str]]:
    """(label, version) of each consent for a legislation year: the checkbox texts of the terms
    screen (themes.texts, the partner's own where it has them) and the documents behind them."""
    pages = config.pages
    later = year > timezone.localdate().year
    if later and pages.next_year_termsdetails.text:
        terms_label, terms_page = FIXED_DE["terms.nextYearAgreed"], pages.next_year_termsdetails
    else:
        terms_label, terms_page = pages.terms.agreed, pages.termsdetails
    privacy_page = pages.privacydetails
    if later and pages.next_year_privacydetails.text:
        privacy_page = pages.next_year_privacydetails
    privacy_label = FIXED_DE["terms.privacy"]
    promotion_label = pages.terms.email_promotions_text
    return {
        Kind.TERMS: (terms_label, consent_version(terms_label, _document(terms_page))),
        Kind.PRIVACY: (privacy_label, consent_version(privacy_label, _document(privacy_page))),
        Kind.EMAIL_PROMOTION: (promotion_label, consent_version(promotion_label)),
    }


def _record(
    *, user: User, kind: str, given: bool, label: str, version: str, channel: str, year: int | None = None
) -> ConsentRecord | None:
    last = (
        ConsentRecord.objects.filter(user=user, kind=kind, legislation_year=year)
        .order_by("-created_at", "-pk")
        .first()
    )
    if last is not None and last.given == given and last.version == version:
        return None
    return ConsentRecord.objects.create(
        user=user,
        kind=kind,
        given=given,
        label=label,
        version=version,
        channel=channel,
        legislation_year=year,
    )


def consents_record_terms(*, user: User, config: PartnerConfig, years: list[int], channel: str) -> int:
    """The terms of each year and the privacy notice, agreed (an upload of the flow, a resubmit)."""
    written = 0
    this_year = timezone.localdate().year
    for year in sorted(set(years)):
        texts = consent_texts(config, year=year)
        kind = Kind.NEXT_YEAR_TERMS if year > this_year else Kind.TERMS
        label, version = texts[Kind.TERMS]
        written += (
            _record(
                user=user, kind=kind, given=True, label=label, version=version, channel=channel, year=year
            )
            is not None
        )
        label, version = texts[Kind.PRIVACY]
        written += (
            _record(
                user=user,
                kind=Kind.PRIVACY,
                given=True,
                label=label,
                version=version,
                channel=channel,
                year=year,
            )
            is not None
        )
    return written


def consent_record_promotion(
    *, user: User, config: PartnerConfig, given: bool, channel: str
) -> ConsentRecord | None:
    """The e-mail promotion opt-in as sent; only where the partner shows the checkbox."""
    if not config.pages.terms.show_email_promotions_flag:
        return None
    label, version = consent_texts(config, year=timezone.localdate().year)[Kind.EMAIL_PROMOTION]
    return _record(
        user=user, kind=Kind.EMAIL_PROMOTION, given=given, label=label, version=version, channel=channel
    )


def consent_record_signup(*, user: User, config: PartnerConfig) -> ConsentRecord | None:
    """The terms box of the portal's signup: not tied to a legislation year. The signup shows
    no privacy notice or opt-in, so nothing else is recorded for it."""
    version = consent_version(SIGNUP_TERMS_LABEL, _document(config.pages.termsdetails))
    return _record(
        user=user,
        kind=Kind.TERMS,
        given=True,
        label=SIGNUP_TERMS_LABEL,
        version=version,
        channel=ConsentRecord.Channel.PORTAL,
    )


def consent_list(*, user: User) -> list[dict[str, object]]:
    """The owner's records, oldest first, for the export."""
    return [
        {
            "kind": r.kind,
            "name": r.get_kind_display(),
            "given": r.given,
            "legislation_year": r.legislation_year,
            "text": r.label,
            "version": r.version,
            "channel": r.channel,
            "at": r.created_at.isoformat(),
        }
        for r in ConsentRecord.objects.filter(user=user).order_by("created_at", "pk")
    ]


def consent_channel_label(channel: str) -> str:
    """The channel's display name (the value itself where it is none of ours)."""
    return CHANNEL_LABELS.get(channel, channel)


def consent_terms_versions(owner_ids: list[int]) -> dict[int, str]:
    """The version (SHA-256) of the terms each owner accepted last: they carry the agreement."""
    found: dict[int, str] = {}
    for user_id, version in (
        ConsentRecord.objects.filter(user_id__in=owner_ids, kind=Kind.TERMS, given=True)
        .order_by("-created_at", "-pk")
        .values_list("user_id", "version")
    ):
        found.setdefault(user_id, version)
    return found


# The owner's agreement in text form that names the partner as third party ("Dritter", 38.
# BImSchV § 5 Abs. 2) for a year is the terms of that year, agreed: the flow's upload and the
# portal's resubmit record them per year with the text's version, the time and the channel.
# The first such record counts (a later one under new texts does not move the agreement's date).
AGREEMENT_KINDS = (Kind.TERMS, Kind.NEXT_YEAR_TERMS)


def _agreements() -> Any:
    return ConsentRecord.objects.filter(given=True, kind__in=AGREEMENT_KINDS).order_by("created_at", "pk")


def third_party_agreement(*, user_id: int, year: int) -> ConsentRecord | None:
    """The owner's first text-form agreement for the year, or None (a B2B upload records none:
    the partner's contract with the fleet covers it)."""
    return _agreements().filter(user_id=user_id, legislation_year=year).first()


def third_party_agreement_dates(*, user_ids: set[int], year: int) -> dict[int, datetime.datetime]:
    """When each of these owners first agreed in text form for the year (the authority's
    package lists the date per vehicle)."""
    rows = (
        ConsentRecord.objects.filter(
            given=True, kind__in=AGREEMENT_KINDS, user_id__in=user_ids, legislation_year=year
        )
        .values("user_id")
        .annotate(first=Min("created_at"))
    )
    return {row["user_id"]: row["first"] for row in rows}


def third_party_agreement_column(field: str, *, user: str, year: str) -> Subquery:
    """One field of that first agreement as a subquery, for a query over applications (`user`
    and `year` name the outer query's owner id and legislation year)."""
    return Subquery(
        _agreements().filter(user_id=OuterRef(user), legislation_year=OuterRef(year)).values(field)[:1]
    )


def third_party_agreement_out(record: ConsentRecord | None, *, year: int) -> dict[str, Any] | None:
    """The agreement as the partner area shows it."""
    if record is None:
        return None
    return {
        "legislation_year": year,
        "agreed_at": timezone.localtime(record.created_at).isoformat(),
        "text_version": record.version,
        "text": record.label,
        "channel": record.channel,
        "channel_label": record.get_channel_display(),
    }


def third_party_agreement_shown(*, user_id: int, year: int) -> dict[str, Any] | None:
    """The owner's first text-form agreement for the year as the partner area shows it."""
    return third_party_agreement_out(third_party_agreement(user_id=user_id, year=year), year=year)
