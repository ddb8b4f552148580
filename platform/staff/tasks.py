"""The staff invite mail in the background: schema and row id travel, never the link."""

from __future__ import annotations

from common.tasks import tenant_task
from staff.mails import staff_invite_mail


@tenant_task(retries=3, retry_delay=30)
def mail_staff_invite(schema_name: str, invite_id: int) -> None:
    staff_invite_mail(schema_name=schema_name, invite_id=invite_id)
