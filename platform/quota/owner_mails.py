"""What the owner hears when an application moves: a branded mail (the partner's logo, colours
and imprint, as the login mails) when it is received, submitted to the authority, certified,
refused, paid, and when a payment failed, each with a link to the portal card.

Scheduled by the status writes (quota.services) with transaction.on_commit, sent by a huey task
that carries the schema and the application's id only. A partner switches each kind off in its
configuration (`owner_mails`). No more than one mail of a kind per owner and day: a fleet owner
whose 40 vehicles went to the authority today gets one mail, not 40 (a cache key per owner, kind
and day, added atomically; the shared cache is Redis in production). A mail whose application
moved on before it was sent is not sent: the later move has its own.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.core.cache import cache
from django.db import connection, transaction
from django.utils import timezone

from accounts.mails import mail_send
from common.partner_config import PartnerConfig
from common.tasks import tenant_task
from quota.models import QuotaApplication, QuotaStatus
from tenants.middleware import partner_site_url
from tenants.models import Partner

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class MailKind:
    name: str  # the configuration flag (owner_mails.<name>)
    subject: str
    title: str
    text: str  # {year} and {vehicle} filled in
    button: str


RECEIVED = MailKind(
    "received",
    "Ihre Registrierung ist eingegangen",
    "Vielen Dank, Ihre Registrierung ist eingegangen",
    "Wir haben {vehicle} für das Quotenjahr {year} registriert. Wir prüfen Ihren Fahrzeugschein und "
    "reichen die THG-Quote beim Umweltbundesamt ein. Den Stand sehen Sie jederzeit im Kundenportal.",
    "Registrierung ansehen",
)
SUBMITTED = MailKind(
    "submitted",
    "Ihre THG-Quote wurde beim Umweltbundesamt eingereicht",
    "Beim Umweltbundesamt eingereicht",
    "Wir haben {vehicle} für das Quotenjahr {year} beim Umweltbundesamt eingereicht. Die Bescheinigung "
    "dauert in der Regel einige Wochen; wir melden uns, sobald sie vorliegt.",
    "Stand ansehen",
)
CERTIFIED = MailKind(
    "certified",
    "Ihre THG-Quote wurde bescheinigt",
    "Ihre THG-Quote wurde bescheinigt",
    "Das Umweltbundesamt hat die THG-Quote für {vehicle} für das Quotenjahr {year} bescheinigt. "
    "Als Nächstes zahlen wir Ihre Prämie aus.",
    "Stand ansehen",
)
REFUSED = MailKind(
    "refused",
    "Ihre THG-Quote wurde nicht bescheinigt",
    "Ihre THG-Quote wurde nicht bescheinigt",
    "Für {vehicle} wurde die THG-Quote für das Quotenjahr {year} bereits beantragt. Eine Quote kann je "
    "Fahrzeug und Jahr nur einmal bescheinigt werden. Beim Umweltbundesamt können Sie erfragen, über "
    "welchen Anbieter die Quote für dieses Fahrzeug beantragt wurde.",
    "Details ansehen",
)
PAID = MailKind(
    "paid",
    "Ihre THG-Prämie wurde ausgezahlt",
    "Ihre THG-Prämie ist unterwegs",
    "Wir haben Ihre Prämie für {vehicle} für das Quotenjahr {year} überwiesen. Je nach Bank ist sie in "
    "ein bis zwei Werktagen auf Ihrem Konto.",
    "Auszahlung ansehen",
)
PAYMENT_FAILED = MailKind(
    "payment_failed",
    "Ihre Auszahlung ist fehlgeschlagen",
    "Ihre Auszahlung ist fehlgeschlagen",
    "Die Überweisung Ihrer Prämie für {vehicle} für das Quotenjahr {year} konnte nicht ausgeführt werden. "
    "Bitte prüfen Sie Ihre Bankverbindung im Kundenportal; danach überweisen wir erneut.",
    "Bankverbindung prüfen",
)

KINDS: dict[str, MailKind] = {
    QuotaStatus.CREATED: RECEIVED,
    QuotaStatus.SENT_TO_UBA: SUBMITTED,
    QuotaStatus.ACCEPTED: CERTIFIED,
    QuotaStatus.REJECTED_BY_AUTHORITY: REFUSED,
    QuotaStatus.DOUBLE_REGISTRATION: REFUSED,
    QuotaStatus.PAID: PAID,
    QuotaStatus.PAYMENT_FAILURE: PAYMENT_FAILED,
}
ONCE_A_DAY_SECONDS = 2 * 24 * 3600  # the key names the day; kept past its end


def owner_status_mail_schedule(*, application: QuotaApplication, status: str) -> None:
    """Inside the status write's transaction: the mail is queued once it commits."""
    if status not in KINDS:
        return
    schema_name = str(connection.schema_name)  # type: ignore[attr-defined]
    application_id = application.pk
    transaction.on_commit(lambda: mail_owner_status(schema_name, application_id, status))


def portal_card_url(partner: Partner, application: QuotaApplication) -> str:
    return (
        f"{partner_site_url(partner).rstrip('/')}/portal/registrations"
        f"?legislation_year={application.legislation_year}#antrag-{application.pk}"
    )


def owner_status_mail_context(
    partner: Partner, application: QuotaApplication, kind: MailKind
) -> dict[str, str]:
    plate = application.registration.plate
    vehicle = f"Ihr Fahrzeug {plate}" if plate else "Ihr Fahrzeug"
    text = kind.text.format(year=application.legislation_year, vehicle=vehicle)
    return {
        "title": kind.title,
        "body": text[0].upper() + text[1:],
        "button_label": kind.button,
        "link": portal_card_url(partner, application),
    }


def owner_status_mail_send(*, schema_name: str, application_id: int, status: str) -> bool:
    """Send the mail of this move if it still stands, the partner wants it and the owner had none
    of its kind today. Returns whether a mail went out."""
    kind = KINDS[status]
    partner = Partner.objects.get(schema_name=schema_name)
    if not getattr(PartnerConfig.model_validate(partner.config).owner_mails, kind.name):
        return False
    application = (
        QuotaApplication.objects.select_related("registration", "registration__owner")
        .filter(pk=application_id)
        .first()
    )
    if application is None or application.status != status:
        return False  # gone, or moved on: the later move speaks for itself
    owner = application.registration.owner
    if not owner.email:
        return False
    key = f"owner-mail:{schema_name}:{owner.pk}:{kind.name}:{timezone.localdate():%Y%m%d}"
    if not cache.add(key, 1, timeout=ONCE_A_DAY_SECONDS):
        return False
    mail_send(
        schema_name=schema_name,
        to=owner.email,
        template="owner_status",
        subject=kind.subject,
        context=owner_status_mail_context(partner, application, kind),
    )
    logger.info("owner status mail sent", extra={"kind": kind.name, "application": application_id})
    return True


@tenant_task(retries=3, retry_delay=60)
def mail_owner_status(schema_name: str, application_id: int, status: str) -> None:
    owner_status_mail_send(schema_name=schema_name, application_id=application_id, status=status)
