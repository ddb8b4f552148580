"""The staff invite mail, in the partner's branding (accounts.mails.mail_send). The link waits
in the invite row, sealed, and is cleared once mailed: the queue carries the row id only."""

from __future__ import annotations

from accounts.mails import mail_secret_open, mail_send
from staff.models import StaffInvite, StaffMember

INVITE_VALID_HOURS = 72


def staff_invite_mail(*, schema_name: str, invite_id: int) -> None:
    """Mail the link of one StaffInvite row, once; nothing for an invite used or expired since."""
    row = StaffInvite.objects.select_related("invited_by").filter(pk=invite_id).exclude(sealed="").first()
    if row is None:
        return
    link = mail_secret_open(row.sealed)
    if link is not None and row.is_open:
        mail_send(
            schema_name=schema_name,
            to=row.email,
            template="staff_invite",
            subject="Ihre Einladung in den Partnerbereich",
            context={
                "link": link,
                "name": row.name,
                "role_label": StaffMember.Role(row.role).label,
                "inviter": row.invited_by.name if row.invited_by else "",
                "valid_hours": INVITE_VALID_HOURS,
            },
        )
    # Cleared only after a successful send: a failed send is retried with the row intact.
    StaffInvite.objects.filter(pk=row.pk).update(sealed="")
