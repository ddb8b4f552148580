from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class QuotaStatus(models.TextChoices):
    """The quota application states of spec/customer-portal.md section 4, named as the status
    catalogue's German titles (quota.catalogue; the admin and messages read these labels)."""

    CREATED = "qa_created", "Registrierung eingegangen"
    ENTERED = "qa_entered", "Erfasst"
    PICKED_UP = "qa_picked_up", "In Prüfung"
    SENT_TO_UBA = "qa_sent_to_uba", "An das Umweltbundesamt übermittelt"
    ACCEPTED = "qa_accepted", "Vom Umweltbundesamt bestätigt"
    DOUBLE_REGISTRATION = "qa_double_registration", "Abgelehnt: Doppelte Registrierung"
    COLOR_COPY_UNREADABLE = "qa_color_copy_unreadable", "Abgelehnt: Fahrzeugschein nicht lesbar"
    NOT_AN_ELECTRIC_CAR = "qa_not_a_electric_car", "Abgelehnt: kein reines Elektrofahrzeug"
    APPROVAL_DATE_IN_THE_FUTURE = (
        "qa_approval_date_in_the_future",
        "Abgelehnt: Zulassung liegt in der Zukunft",
    )
    REJECTED_BY_PLATFORM = "qa_rejected_by_platform", "Von der Plattform abgelehnt"
    TO_PAY = "qa_to_pay", "Zur Auszahlung freigegeben"
    PAID = "qa_paid", "Ausgezahlt"
    PAYMENT_FAILURE = "qa_payment_failure", "Auszahlung fehlgeschlagen"
    COMPLETED = "qa_completed", "Abgeschlossen"
    TEST = "qa_test", "Test"
    MANUALLY_REJECTED = "qa_manually_rejected", "Abgelehnt"
    REJECTED_BY_AUTHORITY = "qa_rejected_by_authority", "Vom Umweltbundesamt abgelehnt"
    REJECTED_BY_PARTNER = "qa_rejected_by_partner", "Vom Partner abgelehnt"
    TO_SETTLE = "qa_to_settle", "Auszahlung in Vorbereitung"


class QuotaApplication(models.Model):
    """One registration's application for one legislation year."""

    registration = models.ForeignKey(
        "registrations.BevRegistration", on_delete=models.PROTECT, related_name="quota_applications"
    )
    client = models.ForeignKey("billing.Client", on_delete=models.PROTECT, related_name="quota_applications")
    legislation_year = models.PositiveSmallIntegerField("Quotenjahr")
    status = models.CharField(
        "Status", max_length=40, choices=QuotaStatus.choices, default=QuotaStatus.CREATED
    )
    email_promotion_opt_in = models.BooleanField("Werbung per E-Mail erlaubt", default=False)
    free_text = models.CharField("Freitext", max_length=2000, blank=True)
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
    created_at = models.DateTimeField("Angelegt am", auto_now_add=True)
    updated_at = models.DateTimeField("Geändert am", auto_now=True)

    class Meta:
        verbose_name = "Antrag"
        verbose_name_plural = "Anträge"
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
        return f"{self.registration} für {self.legislation_year}"


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
    status = models.CharField("Status", max_length=40, choices=QuotaStatus.choices)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, verbose_name="Wer"
    )
    reason = models.CharField("Begründung", max_length=500, blank=True)
    created_at = models.DateTimeField("Zeitpunkt", auto_now_add=True)

    class Meta:
        verbose_name = "Statuswechsel"
        verbose_name_plural = "Statuswechsel"
        ordering = ["created_at", "pk"]

    def __str__(self) -> str:
        return f"{self.application}: {self.get_status_display()}"


class AdvertisementClick(models.Model):
    """A portal user opened the partner's advertisement (counted per advertisement id)."""

    advertisement_id = models.PositiveIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["advertisement_id", "created_at"])]

    def __str__(self) -> str:
        return f"click on advertisement {self.advertisement_id}"


class FeeTableVersion(models.Model):
    """One version of the partner's fee table (issue 49): what an owner is paid per legislation
    year and vehicle class. Never changed once written; a change is the next version. Version 0
    is the table the platform set up in the partner's configuration (config.fees), kept when the
    partner admin first saves its own. An application is priced by the version valid when it
    was created, or, when that one had no price for its year and class, by the first later
    version that had (quota.amounts.FeeSchedule)."""

    number = models.PositiveIntegerField(unique=True)
    # [{legislation_year, vehicle_class, private_payout, business_net, business_vat,
    #   vat_percentage}] as quota.amounts.FeeTableRow validates them, amounts as strings.
    rows = models.JSONField(default=list)
    valid_from = models.DateTimeField()
    created_at = models.DateTimeField(default=timezone.now)
    # Kept when the user is deleted: the label still says who it was.
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_by_label = models.CharField(max_length=300, blank=True, default="")
    note = models.CharField(max_length=300, blank=True, default="")

    class Meta:
        ordering = ["number"]

    def __str__(self) -> str:
        return f"fee table v{self.number}"
