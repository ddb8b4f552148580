"""Export (GDPR Art. 15/20) and erasure (Art. 17) of an owner's data."""

from __future__ import annotations

import hmac
import logging
import secrets

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from accounts.mails import mail_secret_seal
from accounts.models import User, canonical_name
from privacy import errors
from privacy.erasure import PAYOUT_STATUSES, owner_check, owner_erase, privacy_digest, settlement_items_of
from privacy.errors import PrivacyError
from privacy.models import DataExport, ErasureRequest
from privacy.tasks import data_export_build_task, mail_erasure_code
from quota.models import QuotaApplication
from registrations.models import BevRegistration
from staff.audit import audit_record
from staff.models import StaffMember
from tenants.models import Partner

logger = logging.getLogger(__name__)

# ---------------------------------------------------------------- export


def data_export_request(*, partner: Partner, user: User, site_url: str) -> DataExport:
    """Queues the ZIP for this owner; one per PRIVACY_EXPORT_INTERVAL (429 before)."""
    owner_check(user)
    now = timezone.now()
    with transaction.atomic():
        User.objects.select_for_update().filter(pk=user.pk).first()  # one request at a time
        last = DataExport.objects.filter(user=user).order_by("-created_at").first()
        if last is not None and now - last.created_at < settings.PRIVACY_EXPORT_INTERVAL:
            wait = settings.PRIVACY_EXPORT_INTERVAL - (now - last.created_at)
            raise PrivacyError(errors.EXPORT_TOO_SOON, status=429, retry_after=int(wait.total_seconds()) + 1)
        key = secrets.token_urlsafe(32)
        link = f"{site_url.rstrip('/')}/api/end_user_portal/data_export/{key}/"
        export = DataExport.objects.create(
            user=user,
            key_hash=privacy_digest(key),
            sealed=mail_secret_seal(link),
            expires_at=now + settings.PRIVACY_EXPORT_LINK_LIFETIME,
        )
        schema = partner.schema_name
        transaction.on_commit(lambda: data_export_build_task(schema, export.pk))
    logger.info("data export requested")
    return export


def data_export_claim(*, key: str) -> DataExport:
    """The export of a mailed link: valid 24 hours, once (also under concurrency)."""
    now = timezone.now()
    export = DataExport.objects.filter(
        key_hash=privacy_digest(key), downloaded_at__isnull=True, expires_at__gt=now, built_at__isnull=False
    ).first()
    if export is None or not DataExport.objects.filter(pk=export.pk, downloaded_at__isnull=True).update(
        downloaded_at=now
    ):
        raise PrivacyError(errors.EXPORT_LINK_INVALID, status=404)
    return export


# ---------------------------------------------------------------- erasure


def erasure_request(*, partner: Partner, user: User) -> ErasureRequest:
    """Mails a confirmation code to the account's address."""
    owner_check(user)
    now = timezone.now()
    with transaction.atomic():
        User.objects.select_for_update().filter(pk=user.pk).first()
        last = ErasureRequest.objects.filter(user=user).order_by("-created_at").first()
        if last is not None and now - last.created_at < settings.LOGIN_SEND_INTERVAL:
            wait = settings.LOGIN_SEND_INTERVAL - (now - last.created_at)
            raise PrivacyError(errors.ERASURE_TOO_SOON, status=429, retry_after=int(wait.total_seconds()) + 1)
        ErasureRequest.objects.filter(user=user, expires_at__gt=now).update(expires_at=now)
        code = f"{secrets.randbelow(10**6):06d}"
        row = ErasureRequest.objects.create(
            user=user,
            code_hash=privacy_digest(f"{user.pk}:{code}"),
            sealed=mail_secret_seal(code),
            expires_at=now + settings.PRIVACY_ERASURE_CODE_LIFETIME,
        )
        schema = partner.schema_name
        transaction.on_commit(lambda: mail_erasure_code(schema, row.pk))
    return row


def erasure_confirm(*, partner: Partner, user: User, code: str) -> dict[str, int]:
    """The code from the mail: five tries, ten minutes; then the owner is erased."""
    owner_check(user)
    now = timezone.now()
    active = ErasureRequest.objects.filter(user=user, expires_at__gt=now).order_by("-created_at").first()
    if active is None:
        raise PrivacyError(errors.ERASURE_CODE_INVALID)
    limit = settings.PRIVACY_ERASURE_CODE_MAX_ATTEMPTS
    # The attempt is counted before the code is looked at, in one conditional UPDATE (atomic in
    # the database): however many tries arrive at once, at most `limit` are evaluated.
    counted = ErasureRequest.objects.filter(pk=active.pk, attempts__lt=limit).update(
        attempts=F("attempts") + 1
    )
    if not counted:
        raise PrivacyError(errors.ERASURE_TOO_MANY_ATTEMPTS, status=429)
    if not (code.isdigit() and hmac.compare_digest(active.code_hash, privacy_digest(f"{user.pk}:{code}"))):
        attempts = ErasureRequest.objects.filter(pk=active.pk).values_list("attempts", flat=True).first()
        if attempts is None or attempts >= limit:
            raise PrivacyError(errors.ERASURE_TOO_MANY_ATTEMPTS, status=429)
        raise PrivacyError(errors.ERASURE_CODE_INVALID)
    return owner_erase(schema_name=partner.schema_name, user=user, actor="owner")


# ---------------------------------------------------------------- erasure by a partner admin


def _owner_by_email(email: str) -> User:
    user = User.objects.filter(email_canonical=canonical_name(email)).first()
    if user is None:
        raise PrivacyError(errors.OWNER_UNKNOWN, status=404)
    if user.is_staff or user.is_superuser or StaffMember.objects.filter(user=user).exists():
        raise PrivacyError(errors.NOT_AN_OWNER, status=403)
    return user


def partner_erasure_preview(*, email: str) -> dict[str, int]:
    """What an erasure of this owner would delete and keep, for the admin to check first."""
    user = _owner_by_email(email)
    applications = QuotaApplication.objects.filter(registration__owner=user)
    return {
        "registrations": BevRegistration.objects.filter(owner=user).count(),
        "applications": applications.count(),
        "payout_records_kept": applications.filter(status__in=PAYOUT_STATUSES).count(),
        "settlement_items_kept": settlement_items_of(user).count(),
    }


def partner_erasure(
    *, partner: Partner, member: StaffMember | None, email: str, reference: str
) -> dict[str, int]:
    """A partner admin (or the operator's command, `member` None) erases an owner on a
    request received by mail or letter: the same erasure as the owner's own, audited in the
    partner's log (who, when, the request's reference, the counts; the address only as the
    same keyed pseudonym the payout records carry)."""
    user = _owner_by_email(email)
    with transaction.atomic():
        pseudonym = privacy_digest(f"erased:{partner.schema_name}:{user.pk}")
        user_id = user.pk
        counts = owner_erase(
            schema_name=partner.schema_name, user=user, actor="partner admin" if member else "operator"
        )
        audit_record(
            actor=member,
            action="privacy.erasure",
            object_type="accounts.user",
            object_id=str(user_id),
            after={"reference": reference, "pseudonym": pseudonym, "counts": counts},
        )
    return counts
