"""The partner area's review of what the reader was unsure of (issue 45): the applications whose
registration has a correctable field unread or read with a confidence below REVIEW_CONFIDENCE,
each field with its value, the rule that decided it and its place on the display picture; and
the report of which field and which rule the back office corrects most."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import connection
from django.db.models import Count, F, QuerySet
from django.db.models.expressions import RawSQL
from django.utils import timezone

from common.i18n import Language
from quota import catalogue
from quota.models import QuotaApplication
from registrations.files import scan_url
from registrations.models import BevRegistration, FieldCorrection
from registrations.services import READING_FIELDS, reading_display
from tenants.models import Partner

# Below this confidence a read field is unsure and goes to the review (the reader takes a
# value at 0.75 on a field-3 choice and 0.6+ on agreeing reads: those are the ones to look at).
REVIEW_CONFIDENCE = 0.8
REVIEW_CODES = tuple(READING_FIELDS)

# The registrations with one of the codes unread, or with a numeric confidence below the
# threshold. The rule for all codes is the SQL function `registrations_unsure` (migration
# registrations 0010, compared with field_unsure by a test): the partial index of the registrations
# it holds true for keeps the queue's count, asked on every page of the partner area, to those
# rows. One code narrows it further (Django's key lookups read the code "10" as an array index,
# so the JSON object is walked in SQL).
_UNSURE_SQL = (
    "SELECT r.id FROM registrations_bevregistration AS r WHERE registrations_unsure(r.unread, r.confidence)"
)
_UNSURE_CODE_SQL = (
    "SELECT r.id FROM registrations_bevregistration AS r WHERE registrations_unsure(r.unread, r.confidence)"
    " AND (r.unread && %s::varchar[] OR EXISTS (SELECT 1 FROM jsonb_each(r.confidence) AS c"
    " WHERE c.key = ANY(%s) AND CASE WHEN jsonb_typeof(c.value) = 'number'"
    " THEN (c.value)::numeric < %s ELSE false END))"
)


def owner_name(application: QuotaApplication) -> str:
    client = application.client
    name = f"{client.first_name} {client.last_name}".strip()
    return f"{client.name_of_business} ({name})" if client.name_of_business else name


def field_unsure(registration: BevRegistration, code: str) -> bool:
    if code in registration.unread:
        return True
    confidence = registration.confidence.get(code)
    return isinstance(confidence, int | float) and confidence < REVIEW_CONFIDENCE


def review_applications(*, code: str | None = None) -> QuerySet[QuotaApplication]:
    """The applications to review, oldest first: one of `code` (or of any correctable field)
    unread or unsure."""
    # constant statements, the code and the threshold bound as parameters
    unsure = (
        RawSQL(_UNSURE_CODE_SQL, ([code], [code], REVIEW_CONFIDENCE))  # noqa: S611
        if code
        else RawSQL(_UNSURE_SQL, ())  # noqa: S611
    )
    return (
        QuotaApplication.objects.filter(registration_id__in=unsure)
        .select_related("registration", "client")
        .order_by("created_at", "pk")
    )


@dataclass(frozen=True)
class ReviewPage:
    count: int
    results: list[dict[str, Any]]


def review_page(
    *, partner: Partner, language: Language, code: str | None, page: int, page_size: int
) -> ReviewPage:
    found = review_applications(code=code)
    count = found.count()
    start = (page - 1) * page_size
    rows = []
    for application in found[start : start + page_size]:
        registration = application.registration
        codes = [code] if code else REVIEW_CODES
        fields = []
        for each in codes:
            if not field_unsure(registration, each):
                continue
            box = registration.field_boxes.get(each)
            confidence = registration.confidence.get(each)
            fields.append(
                {
                    "code": each,
                    "value": reading_display(getattr(registration, READING_FIELDS[each])) or None,
                    "confidence": None if confidence is None else float(confidence),
                    "unread": each in registration.unread,
                    "decided_by": str(registration.decided_by.get(each, "")),
                    "box": [float(v) for v in box] if isinstance(box, list) and len(box) == 4 else None,
                }
            )
        rows.append(
            {
                "id": application.pk,
                "sequence": registration.sequence,
                "status": application.status,
                "status_label": catalogue.CATALOGUE[application.status].title(language),
                "created_at": timezone.localtime(application.created_at).isoformat(),
                "owner_name": owner_name(application),
                "vin": registration.vin,
                # the display copy (holder blacked out): the boxes are shares of its size
                "image_url": scan_url(partner=partner, registration=registration, kind="scan"),
                "fields": fields,
            }
        )
    return ReviewPage(count=count, results=rows)


def review_report() -> list[dict[str, Any]]:
    """Per field code and rule: how many registrations the rule decided (or left unread) that
    field on (`stored`), how many of those values the back office changed (`corrected`: the
    rule recorded with the correction; one per registration and field, a correction to the same
    value not counted), most corrected first."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT d.key, d.value #>> '{}', count(*) FROM registrations_bevregistration AS r,"
            " jsonb_each(r.decided_by) AS d WHERE d.key = ANY(%s) GROUP BY 1, 2",
            [list(REVIEW_CODES)],
        )
        stored = {(key, rule or ""): int(n) for key, rule, n in cursor.fetchall()}
    corrected = {
        (row["code"], row["rule"]): int(row["n"])
        for row in FieldCorrection.objects.exclude(before=F("after"))
        .values("code", "rule")
        .annotate(n=Count("registration", distinct=True))
    }
    order = {code: index for index, code in enumerate(REVIEW_CODES)}
    rows = [
        {
            "code": code,
            "rule": rule,
            "stored": stored.get((code, rule), 0),
            "corrected": corrected.get((code, rule), 0),
        }
        for code, rule in stored.keys() | corrected.keys()
    ]
    for row in rows:
        row["share"] = round(row["corrected"] / row["stored"], 4) if row["stored"] else None
    rows.sort(key=lambda r: (-r["corrected"], -(r["share"] or 0), order.get(r["code"], 99), r["rule"]))
    return rows
