from __future__ import annotations

from django.conf import settings
from django.db import models


class QuotaStatus(models.TextChoices):
    """The quota application states of spec/customer-portal.md section 4."""

    CREATED = "qa_created", "Created"
    ENTERED = "qa_entered", "Entered"
    PICKED_UP = "qa_picked_up", "Picked up"
    SENT_TO_UBA = "qa_sent_to_uba", "Sent to UBA"
    ACCEPTED = "qa_accepted", "Accepted by authority"
    DOUBLE_REGISTRATION = "qa_double_registration", "Rejected: double registration"
    COLOR_COPY_UNREADABLE = "qa_color_copy_unreadable", "Rejected: image unreadable"
    NOT_AN_ELECTRIC_CAR = "qa_not_a_electric_car", "Rejected: not a BEV"
    APPROVAL_DATE_IN_THE_FUTURE = "qa_approval_date_in_the_future", "Rejected: approval date in the future"
    REJECTED_BY_PLATFORM = "qa_rejected_by_platform", "Rejected by platform"
    TO_PAY = "qa_to_pay", "To pay"
    PAID = "qa_paid", "Paid"
    PAYMENT_FAILURE = "qa_payment_failure", "Payment failure"
    COMPLETED = "qa_completed", "Completed"
    TEST = "qa_test", "Test"
    MANUALLY_REJECTED = "qa_manually_rejected", "Manually rejected"
    REJECTED_BY_AUTHORITY = "qa_rejected_by_authority", "Rejected by authority"
    REJECTED_BY_PARTNER = "qa_rejected_by_partner", "Rejected by partner"
    TO_SETTLE = "qa_to_settle", "To settle"


class QuotaApplication(models.Model):
    """One registration's application for one legislation year."""

    registration = models.ForeignKey(
        "registrations.BevRegistration", on_delete=models.PROTECT, related_name="quota_applications"
    )
    client = models.ForeignKey("billing.Client", on_delete=models.PROTECT, related_name="quota_applications")
    legislation_year = models.PositiveSmallIntegerField()
    status = models.CharField(max_length=40, choices=QuotaStatus.choices, default=QuotaStatus.CREATED)
    email_promotion_opt_in = models.BooleanField(default=False)
    free_text = models.CharField(max_length=2000, blank=True)
    # Attribution (the flow's `?ref=` / `?deal=`, or staff): the partner area's operations.
    sub_partner = models.ForeignKey(
        "operations.SubPartner",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="quota_applications",
    )
    single_deal = models.ForeignKey(
        "operations.SingleDeal",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="quota_applications",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["registration__sequence", "legislation_year"]
        constraints = [
            models.UniqueConstraint(
                fields=["registration", "legislation_year"], name="quota_one_application_per_year"
            ),
        ]
        # The partner area's list: newest first, alone or filtered by status or year (the
        # primary key breaks ties, so pages never overlap).
        indexes = [
            models.Index(fields=["created_at", "id"], name="quota_app_created"),
            models.Index(fields=["status", "created_at", "id"], name="quota_app_status_created"),
            models.Index(fields=["legislation_year", "created_at", "id"], name="quota_app_year_created"),
            # ... or by sub-partner; and the dashboard's days of one sub-partner (operations.selectors).
            models.Index(fields=["sub_partner", "created_at", "id"], name="quota_app_sub_created"),
        ]

    def __str__(self) -> str:
        return f"{self.registration} for {self.legislation_year}"


class ApplicationDayCount(models.Model):
    """The dashboard's rollup: how many applications there are per calendar day of creation
    (Europe/Berlin), status, legislation year, vehicle class (an unread one counts as M1),
    sub-partner and single deal. Written by database triggers only (migration
    0005_application_day_counts), never by Django: each statement on the applications (an
    insert, a bulk_create, a move, a delete, a TRUNCATE) and each change of a registration's
    vehicle class appends signed rows, so concurrent writers never wait for each other on a
    shared counter row; the count of a key is the sum of its rows. `application_day_counts_compact`
    folds the rows into one per key (quota.services)."""

    day = models.DateField()
    status = models.CharField(max_length=40)
    legislation_year = models.PositiveSmallIntegerField()
    vehicle_class = models.CharField(max_length=10)
    sub_partner_id = models.BigIntegerField(null=True)
    single_deal_id = models.BigIntegerField(null=True)
    count = models.IntegerField()

    class Meta:
        indexes = [models.Index(fields=["day"], name="quota_day_count_day")]

    def __str__(self) -> str:
        return f"{self.day} {self.status}: {self.count}"


class ApplicationCount(models.Model):
    """ApplicationDayCount without the day: a few hundred keys however many applications and
    days there are, written by the same triggers in the same statement. The list's exact count
    of any filter without a date range or a search reads it."""

    status = models.CharField(max_length=40)
    legislation_year = models.PositiveSmallIntegerField()
    vehicle_class = models.CharField(max_length=10)
    sub_partner_id = models.BigIntegerField(null=True)
    single_deal_id = models.BigIntegerField(null=True)
    count = models.IntegerField()

    def __str__(self) -> str:
        return f"{self.status} {self.legislation_year}: {self.count}"


class StatusChange(models.Model):
    """Every move of an application: the record the portal's timeline is built from."""

    application = models.ForeignKey(QuotaApplication, on_delete=models.CASCADE, related_name="status_changes")
    status = models.CharField(max_length=40, choices=QuotaStatus.choices)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    reason = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "pk"]

    def __str__(self) -> str:
        return f"{self.application}: {self.status}"


class AdvertisementClick(models.Model):
    """A portal user opened the partner's advertisement (counted per advertisement id)."""

    advertisement_id = models.PositiveIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["advertisement_id", "created_at"])]

    def __str__(self) -> str:
        return f"click on advertisement {self.advertisement_id}"
