"""The IBAN's display form, and the column that keeps it beside the encrypted IBAN.

Lists and summaries show the IBAN masked (spec/customer-portal.md: "account_iban (masked)").
Decrypting 10,000 IBANs to show four characters of each doubled a list's time (issue 19's
bench), so the masked form is stored in clear in its own column, written whenever the IBAN is
(save, bulk_create; `Client.save` widens update_fields). What it shows (country, check digits,
last four) is what every statement and screen shows of an account; it is not enough to pay to
or to find the account."""

from __future__ import annotations

from typing import Any

from django.db import models


def iban_masked(iban: str) -> str:
    """Country and check digits and the last four characters; the rest hidden."""
    if not iban:
        return ""
    if len(iban) < 8:
        return "*" * len(iban)
    masked = iban[:4] + "*" * (len(iban) - 8) + iban[-4:]
    return " ".join(masked[i : i + 4] for i in range(0, len(masked), 4))


class IbanMaskField(models.CharField):  # type: ignore[type-arg]
    """A clear-text column derived from the model's `source` IBAN field on every write."""

    def __init__(self, *args: Any, source: str = "account_iban", **kwargs: Any) -> None:
        self.source = source
        kwargs.setdefault("max_length", 60)
        kwargs.setdefault("blank", True)
        kwargs.setdefault("default", "")
        kwargs.setdefault("editable", False)
        super().__init__(*args, **kwargs)

    def deconstruct(self) -> Any:
        name, path, args, kwargs = super().deconstruct()
        kwargs["source"] = self.source
        return name, path, args, kwargs

    def pre_save(self, model_instance: models.Model, add: bool) -> Any:
        # A deferred IBAN was not changed: keep what is stored (reading it would cost a query).
        if self.source in model_instance.__dict__:
            masked = iban_masked(getattr(model_instance, self.source) or "")[: self.max_length]
            setattr(model_instance, self.attname, masked)
        return getattr(model_instance, self.attname)


def fill_masked_column(model: Any, *, source: str, target: str, batch: int = 500) -> None:
    """Data migration step: write `target` from the decrypted `source` IBAN of every existing
    row, in batches by primary key (one schema at a time, as migrations run)."""
    last = 0
    while True:
        rows = list(model.objects.filter(pk__gt=last).order_by("pk").only("pk", source)[:batch])
        if not rows:
            return
        for row in rows:
            setattr(row, target, iban_masked(getattr(row, source) or ""))
        model.objects.bulk_update(rows, [target])
        last = rows[-1].pk
