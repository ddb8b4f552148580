"""Partner staff of the partner area (`/partner`): members with a role, e-mailed invites and the
audit log. All in the partner's schema: a member, an invite or an entry of partner A does not
exist on partner B."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class StaffMember(models.Model):
    """A user of the partner's schema who works in the partner area. Owners have no row."""

    class Role(models.TextChoices):
        PARTNER_ADMIN = "partner_admin", "Partner-Admin"
        BACK_OFFICE = "back_office", "Backoffice"
        VIEWER = "viewer", "Nur lesen"

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="staff_member"
    )
    role = models.CharField(max_length=20, choices=Role.choices)
    is_active = models.BooleanField(default=True)
    name = models.CharField(max_length=150)
    # The partner area's language for this member (the web app may follow accept-language).
    language = models.CharField(max_length=2, choices=[("de", "Deutsch"), ("en", "English")], default="de")
    created_at = models.DateTimeField(auto_now_add=True)
    invited_by = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    # Sessions begun before this moment are over (a role change, a deactivation: staff.sessions).
    sessions_since = models.DateTimeField(null=True, blank=True)
    # The daily mail digest (operations.digest): on unless the member switched it off; the
    # local day whose digest was last mailed (never twice for one day).
    digest_enabled = models.BooleanField(default=True)
    digest_sent_for = models.DateField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["role", "is_active"])]

    def __str__(self) -> str:
        return f"{self.name} ({self.role})"


class StaffInvite(models.Model):
    """An e-mailed set-password link for a new member; only the key's keyed hash is stored."""

    email = models.EmailField()
    name = models.CharField(max_length=150)
    role = models.CharField(max_length=20, choices=StaffMember.Role.choices)
    key_hash = models.CharField(max_length=64, unique=True)
    # The link for the mail, encrypted (accounts.mails.mail_secret_seal) and cleared once sent:
    # the task queue carries the row id, never the link.
    sealed = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)
    invited_by = models.ForeignKey(
        StaffMember, null=True, blank=True, on_delete=models.SET_NULL, related_name="invites_sent"
    )
    member = models.ForeignKey(
        StaffMember, null=True, blank=True, on_delete=models.SET_NULL, related_name="invites_accepted"
    )

    class Meta:
        indexes = [models.Index(fields=["email", "-created_at"])]

    def __str__(self) -> str:
        return f"invite for {self.email}"

    @property
    def is_open(self) -> bool:
        return self.used_at is None and self.expires_at > timezone.now()


class AuditEntry(models.Model):
    """One write of the partner area (or of the admin for the partner): who, what, before/after."""

    # Kept when the user is deleted: the label still says who it was.
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    actor_label = models.CharField(max_length=300, blank=True, default="")
    action = models.CharField(max_length=80)
    object_type = models.CharField(max_length=80, blank=True, default="")
    object_id = models.CharField(max_length=64, blank=True, default="")
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [
            models.Index(fields=["-created_at", "-id"]),
            models.Index(fields=["action", "-created_at"]),
            models.Index(fields=["actor", "-created_at"]),
            models.Index(fields=["object_type", "object_id"]),
        ]

    def __str__(self) -> str:
        return f"{self.action} {self.object_type} {self.object_id} by {self.actor_label}"
