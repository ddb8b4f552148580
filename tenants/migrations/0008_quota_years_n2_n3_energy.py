"""The credited energy of N2 and N3 as the ministry published it on 28 August 2023 (N2 20,600 kWh,
N3 33,400 kWh; see tenants.quota_years): migration 0006 seeded 22,000 and 30,000. Rows that still
hold the old seed are corrected; a value the operator changed in the admin is left alone."""

from django.db import migrations, models

OLD = {"energy_n2_kwh": 22000, "energy_n3_kwh": 30000}
NEW = {"energy_n2_kwh": 20600, "energy_n3_kwh": 33400}


def correct(apps, schema_editor):
    QuotaYear = apps.get_model("tenants", "QuotaYear")
    for field, value in OLD.items():
        QuotaYear.objects.filter(**{field: value}).update(**{field: NEW[field]})


def restore(apps, schema_editor):
    QuotaYear = apps.get_model("tenants", "QuotaYear")
    for field, value in NEW.items():
        QuotaYear.objects.filter(**{field: value}).update(**{field: OLD[field]})


class Migration(migrations.Migration):
    dependencies = [("tenants", "0007_reflow_partner_texts")]

    operations = [
        migrations.AlterField(
            model_name="quotayear",
            name="energy_n2_kwh",
            field=models.PositiveIntegerField(default=20600, verbose_name="Strommenge N2 (kWh)"),
        ),
        migrations.AlterField(
            model_name="quotayear",
            name="energy_n3_kwh",
            field=models.PositiveIntegerField(default=33400, verbose_name="Strommenge N3 (kWh)"),
        ),
        migrations.RunPython(correct, restore),
    ]
