"""Where the platform keeps an owner's data: every column of every table of a partner's schema
that can hold it, how an owner's rows are found, and what an erasure leaves of them.

One list for two uses: the data export (privacy.selectors.owner_data adds each holding's rows,
`records`) and the erasure's proof (tests/privacy/test_erasure_inventory.py seeds a value into
every column, checks that no other column of any table took one, erases, and finds none left
outside what the law keeps). A new column with an owner's data goes here, or that test fails.

After an erasure a holding is
- "deleted": its rows are gone,
- "cleared": the rows stay (they belong to somebody else: a bulk upload, the audit log) with
  these columns emptied or their values replaced,
- "pseudonymised": the rows stay for tax and payout law, without name or link to the owner
  (the columns named in `kept` keep what the law requires: the IBAN paid to; a credit note's
  supplier and vehicle as issued, since an invoice is kept unchanged).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from django.apps import apps
from django.db.models import Model, Q, QuerySet

from accounts.models import User
from billing.models import Client
from quota.models import QuotaApplication
from registrations.models import BevRegistration

Erasure = Literal["deleted", "cleared", "pseudonymised"]

# What an audit entry of an erased owner's object says instead of a value.
ERASED_VALUE = "[gelöscht]"
# Keys of an audit entry's before/after that name a field or a state, never an owner's value.
AUDIT_KEYS_KEPT = frozenset({"field", "status", "single_deal"})


@dataclass(frozen=True)
class Holding:
    model: str  # app_label.ModelName
    columns: tuple[str, ...]
    erasure: Erasure
    rows: Callable[[User], Q]  # the owner's rows of this table
    kept: tuple[str, ...] = field(default=())  # columns the law keeps after a pseudonymisation

    def queryset(self, user: User) -> QuerySet[Any]:
        model: type[Model] = apps.get_model(self.model)
        return model._default_manager.filter(self.rows(user))


def owner_objects(user: User) -> Q:
    """Audit entries about the owner's own objects: the account, registrations, applications,
    billing data. Evaluated while those rows still exist."""
    objects = {
        "accounts.user": [user.pk],
        "registrations.bevregistration": list(
            BevRegistration.objects.filter(owner=user).values_list("pk", flat=True)
        ),
        "quota.quotaapplication": list(
            QuotaApplication.objects.filter(registration__owner=user).values_list("pk", flat=True)
        ),
        "billing.client": list(Client.objects.filter(owner=user).values_list("pk", flat=True)),
    }
    query = Q(pk__in=[])
    for object_type, ids in objects.items():
        if ids:
            query |= Q(object_type=object_type, object_id__in=[str(pk) for pk in ids])
    return query


def _bulk_items(user: User) -> Q:
    return Q(owner=user) | Q(registration__owner=user) | Q(client__owner=user)


INVENTORY: tuple[Holding, ...] = (
    Holding(
        "accounts.User",
        ("username", "first_name", "last_name", "email", "username_canonical", "email_canonical"),
        "deleted",
        lambda user: Q(pk=user.pk),
    ),
    Holding(
        "accounts.LoginCode", ("email",), "deleted", lambda user: Q(email__in={user.email, user.username})
    ),
    Holding(
        "accounts.LoginLink", ("email",), "deleted", lambda user: Q(email__in={user.email, user.username})
    ),
    Holding("token_blacklist.OutstandingToken", ("token", "jti"), "deleted", lambda user: Q(user=user)),
    Holding(
        "registrations.BevRegistration",
        (
            "zlb_scan",
            "display_scan",
            "resized_image",
            "vin",
            "plate",
            "make",
            "model",
            "maker_key",
            "check_digit",
            "holder_name",
            "holder_first_names",
            "corrected",
            "decided_by",
        ),
        "deleted",
        lambda user: Q(owner=user),
    ),
    Holding(
        "registrations.FieldCorrection",
        ("before", "after"),
        "deleted",
        lambda user: Q(registration__owner=user),
    ),
    Holding(
        "registrations.DeviceInfo",
        ("device_type", "device_name", "browser_version", "os_name", "os_version", "full_user_agent_string"),
        "deleted",
        lambda user: Q(registration__owner=user),
    ),
    Holding(
        "billing.Client",
        (
            "gender",
            "first_name",
            "last_name",
            "street_name",
            "street_number",
            "postal_code",
            "city",
            "account_name",
            "account_iban",
            "account_iban_masked",
            "account_bic",
            "charge_card",
            "partner_variable",
            "campaign",
            "free_text",
            "full_url_variable_string",
            "name_of_business",
            "vat_number",
            "signup_url",
            "login_url",
        ),
        "deleted",
        lambda user: Q(owner=user),
    ),
    Holding("quota.QuotaApplication", ("free_text",), "deleted", lambda user: Q(registration__owner=user)),
    Holding(
        "quota.StatusChange", ("reason",), "deleted", lambda user: Q(application__registration__owner=user)
    ),
    Holding("quota.AdvertisementClick", ("advertisement_id",), "deleted", lambda user: Q(user=user)),
    Holding("privacy.DataExport", ("file",), "deleted", lambda user: Q(user=user)),
    Holding("privacy.ConsentRecord", ("label", "channel"), "deleted", lambda user: Q(user=user)),
    Holding(
        "operations.BulkUploadItem",
        ("file_name", "stored_path", "owner_data", "error_details"),
        "cleared",
        _bulk_items,
    ),
    Holding("staff.AuditEntry", ("before", "after"), "cleared", owner_objects),
    Holding(
        "operations.SettlementItem",
        ("payee_name", "failure_reason", "iban", "iban_masked", "charge_card"),
        "pseudonymised",
        lambda user: Q(owner=user) | Q(application__registration__owner=user),
        kept=("iban", "iban_masked", "charge_card"),
    ),
    # Payout documents (operations.PayoutDocument): kept with their number for the legal period.
    # A credit note is an invoice (§ 14 Abs. 2 Satz 2, § 14b UStG) and stays as issued; a payout
    # statement loses name, address, VIN and its stored PDF (privacy.services). Both lose the
    # links to the account and the application.
    Holding(
        "operations.PayoutDocument",
        ("owner_data", "vin", "pdf_path"),
        "pseudonymised",
        lambda user: Q(owner=user) | Q(application__registration__owner=user) | Q(item__owner=user),
        kept=("owner_data", "vin", "pdf_path"),
    ),
    # Made by the erasure itself for payout law: the IBAN paid to under a keyed pseudonym, found
    # by nobody through the owner (she is gone by then).
    Holding(
        "privacy.RetainedPayout",
        ("account_iban", "account_bic"),
        "pseudonymised",
        lambda user: Q(pk__in=[]),
        kept=("account_iban", "account_bic"),
    ),
)


def holding(model: str) -> Holding:
    return next(entry for entry in INVENTORY if entry.model == model)


def owner_records(user: User) -> dict[str, list[dict[str, Any]]]:
    """Every inventoried column of every row of this owner, by table (for the export)."""
    records: dict[str, list[dict[str, Any]]] = {}
    for entry in INVENTORY:
        rows = list(entry.queryset(user).order_by("pk").values("pk", *entry.columns))
        if rows:
            records[entry.model] = [{key: _plain(value) for key, value in row.items()} for row in rows]
    return records


def _plain(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float | str | list | dict):
        return value
    return str(value)


def audit_values_drop(data: Any) -> Any:
    """An audit entry's before/after without the owner's values: the keys stay (the fact of a
    change, which field), every value not in AUDIT_KEYS_KEPT becomes ERASED_VALUE."""
    if not isinstance(data, dict):
        return data if data is None else ERASED_VALUE
    return {key: value if key in AUDIT_KEYS_KEPT else ERASED_VALUE for key, value in data.items()}
