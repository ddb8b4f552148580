"""The quota-year calendar (tenants.quota_years), seeded for 2025-2028 with the law's dates:
the authority's deadline 15 November, the platform's cut-off 31 October, pre-registration from
1 October of the year before, and the authority's credited energy per vehicle class."""

import datetime

from django.db import migrations, models

SEEDED = range(2025, 2029)


def seed(apps, schema_editor):
    QuotaYear = apps.get_model("tenants", "QuotaYear")
    for year in SEEDED:
        QuotaYear.objects.get_or_create(
            year=year,
            defaults={
                "authority_deadline": datetime.date(year, 11, 15),
                "registration_cutoff": datetime.date(year, 10, 31),
                "pre_registration_start": datetime.date(year - 1, 10, 1),
            },
        )


def unseed(apps, schema_editor):
    apps.get_model("tenants", "QuotaYear").objects.filter(year__in=SEEDED).delete()


class Migration(migrations.Migration):
    dependencies = [("tenants", "0005_console_audit")]

    operations = [
        migrations.CreateModel(
            name="QuotaYear",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("year", models.PositiveSmallIntegerField(unique=True, verbose_name="Quotenjahr")),
                (
                    "authority_deadline",
                    models.DateField(
                        help_text="Bis zu diesem Tag nimmt das UBA Anträge für das Jahr an.",
                        verbose_name="Frist des Umweltbundesamts",
                    ),
                ),
                (
                    "registration_cutoff",
                    models.DateField(
                        help_text="Letzter Tag, an dem Registrierungen für dieses Jahr angenommen werden (vor der Frist des UBA: 14 Tage Widerrufsfrist).",
                        verbose_name="Annahmeschluss der Plattform",
                    ),
                ),
                (
                    "pre_registration_start",
                    models.DateField(
                        help_text="Erster Tag, an dem dieses Jahr als nächstes Quotenjahr angeboten wird.",
                        verbose_name="Vorregistrierung ab",
                    ),
                ),
                (
                    "energy_m1_kwh",
                    models.PositiveIntegerField(default=2000, verbose_name="Strommenge M1 (kWh)"),
                ),
                (
                    "energy_n1_kwh",
                    models.PositiveIntegerField(default=3000, verbose_name="Strommenge N1 (kWh)"),
                ),
                (
                    "energy_n2_kwh",
                    models.PositiveIntegerField(default=22000, verbose_name="Strommenge N2 (kWh)"),
                ),
                (
                    "energy_n3_kwh",
                    models.PositiveIntegerField(default=30000, verbose_name="Strommenge N3 (kWh)"),
                ),
                (
                    "energy_m3_kwh",
                    models.PositiveIntegerField(default=72000, verbose_name="Strommenge M3 (kWh)"),
                ),
                (
                    "energy_l_kwh",
                    models.PositiveIntegerField(default=2000, verbose_name="Strommenge L3e-L7e (kWh)"),
                ),
                ("updated_at", models.DateTimeField(auto_now=True, verbose_name="Geändert")),
            ],
            options={
                "verbose_name": "Quotenjahr",
                "verbose_name_plural": "Quotenjahre (Kalender)",
                "ordering": ["year"],
            },
        ),
        migrations.RunPython(seed, unseed),
    ]
