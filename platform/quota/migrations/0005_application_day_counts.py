"""The rollups of the applications, kept exact by triggers: per calendar day
(quota.models.ApplicationDayCount, the dashboard's) and without the day
(quota.models.ApplicationCount, the list's count and the dashboard without a range).

- Applications: one statement-level trigger per INSERT, UPDATE and DELETE with transition
  tables, so a bulk_create of 5,000 rows or a bulk move costs one aggregate INSERT, not 5,000;
  an UPDATE writes only the keys whose count changed (a touched `updated_at` writes nothing).
  TRUNCATE empties the rollup.
- Registrations: a change of the vehicle class moves the counts of its applications; it locks
  them first (FOR UPDATE), so a move committed meanwhile is seen with its new status. An
  application's INSERT holds its registrations FOR SHARE, so a class change committed meanwhile
  is seen too (or waits for the insert). Between them the rollup never drifts from the rows.
- Every statement names the schema of the table that fired (TG_TABLE_SCHEMA), never the
  session's search_path: a schema copied under another name (tenants.cloning, tenants.backup)
  keeps writing its own rollup. The function bodies hold no line starting with "--" or "SET ":
  tenants.cloning filters such lines out of pg_dump's script.
- The calendar day is the one of settings.TIME_ZONE (Europe/Berlin), as the dashboard's range.
"""

from django.conf import settings
from django.db import migrations, models

APPLY = """
CREATE FUNCTION quota_day_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $body$
DECLARE
  changed text;
BEGIN
  IF TG_OP = 'INSERT' THEN
    EXECUTE format(
      'SELECT 1 FROM %1$I.registrations_bevregistration WHERE id IN (SELECT registration_id FROM new_rows) FOR SHARE',
      TG_TABLE_SCHEMA);
    changed := 'SELECT registration_id, created_at, status, legislation_year, sub_partner_id, single_deal_id, 1 AS n FROM new_rows';
  ELSIF TG_OP = 'DELETE' THEN
    changed := 'SELECT registration_id, created_at, status, legislation_year, sub_partner_id, single_deal_id, -1 AS n FROM old_rows';
  ELSE
    changed := 'SELECT registration_id, created_at, status, legislation_year, sub_partner_id, single_deal_id, -1 AS n FROM old_rows'
      || ' UNION ALL SELECT registration_id, created_at, status, legislation_year, sub_partner_id, single_deal_id, 1 AS n FROM new_rows';
  END IF;
  EXECUTE format(
    'WITH changed AS (SELECT (c.created_at AT TIME ZONE %2$L)::date AS day, c.status, c.legislation_year,'
    || ' COALESCE(NULLIF(r.vehicle_class, %4$L), %5$L) AS vehicle_class, c.sub_partner_id, c.single_deal_id, sum(c.n) AS n'
    || ' FROM (%3$s) AS c JOIN %1$I.registrations_bevregistration AS r ON r.id = c.registration_id'
    || ' GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(c.n) <> 0),'
    || ' per_day AS (INSERT INTO %1$I.quota_applicationdaycount'
    || ' (day, status, legislation_year, vehicle_class, sub_partner_id, single_deal_id, count)'
    || ' SELECT day, status, legislation_year, vehicle_class, sub_partner_id, single_deal_id, n FROM changed)'
    || ' INSERT INTO %1$I.quota_applicationcount (status, legislation_year, vehicle_class, sub_partner_id, single_deal_id, count)'
    || ' SELECT status, legislation_year, vehicle_class, sub_partner_id, single_deal_id, sum(n) FROM changed'
    || ' GROUP BY 1, 2, 3, 4, 5 HAVING sum(n) <> 0',
    TG_TABLE_SCHEMA, '{zone}', changed, '', 'M1');
  RETURN NULL;
END
$body$;

CREATE FUNCTION quota_day_counts_vehicle_class() RETURNS trigger LANGUAGE plpgsql AS $body$
BEGIN
  EXECUTE format('SELECT 1 FROM %1$I.quota_quotaapplication WHERE registration_id = $1 FOR UPDATE', TG_TABLE_SCHEMA)
    USING NEW.id;
  EXECUTE format(
    'WITH changed AS (SELECT (a.created_at AT TIME ZONE %2$L)::date AS day, a.status, a.legislation_year, k.vehicle_class,'
    || ' a.sub_partner_id, a.single_deal_id, k.n * count(*) AS n'
    || ' FROM %1$I.quota_quotaapplication AS a CROSS JOIN (VALUES ($1, -1), ($2, 1)) AS k(vehicle_class, n)'
    || ' WHERE a.registration_id = $3 GROUP BY 1, 2, 3, 4, 5, 6, k.n),'
    || ' per_day AS (INSERT INTO %1$I.quota_applicationdaycount'
    || ' (day, status, legislation_year, vehicle_class, sub_partner_id, single_deal_id, count)'
    || ' SELECT day, status, legislation_year, vehicle_class, sub_partner_id, single_deal_id, n FROM changed)'
    || ' INSERT INTO %1$I.quota_applicationcount (status, legislation_year, vehicle_class, sub_partner_id, single_deal_id, count)'
    || ' SELECT status, legislation_year, vehicle_class, sub_partner_id, single_deal_id, sum(n) FROM changed'
    || ' GROUP BY 1, 2, 3, 4, 5',
    TG_TABLE_SCHEMA, '{zone}')
    USING COALESCE(NULLIF(OLD.vehicle_class, ''), 'M1'), COALESCE(NULLIF(NEW.vehicle_class, ''), 'M1'), NEW.id;
  RETURN NULL;
END
$body$;

CREATE FUNCTION quota_day_counts_truncated() RETURNS trigger LANGUAGE plpgsql AS $body$
BEGIN
  EXECUTE format('DELETE FROM %1$I.quota_applicationdaycount', TG_TABLE_SCHEMA);
  EXECUTE format('DELETE FROM %1$I.quota_applicationcount', TG_TABLE_SCHEMA);
  RETURN NULL;
END
$body$;

CREATE TRIGGER quota_day_counts_insert AFTER INSERT ON quota_quotaapplication
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION quota_day_counts_apply();
CREATE TRIGGER quota_day_counts_update AFTER UPDATE ON quota_quotaapplication
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION quota_day_counts_apply();
CREATE TRIGGER quota_day_counts_delete AFTER DELETE ON quota_quotaapplication
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION quota_day_counts_apply();
CREATE TRIGGER quota_day_counts_truncate AFTER TRUNCATE ON quota_quotaapplication
  FOR EACH STATEMENT EXECUTE FUNCTION quota_day_counts_truncated();
CREATE TRIGGER quota_day_counts_vehicle_class AFTER UPDATE OF vehicle_class ON registrations_bevregistration
  FOR EACH ROW WHEN (COALESCE(NULLIF(OLD.vehicle_class, ''), 'M1') IS DISTINCT FROM COALESCE(NULLIF(NEW.vehicle_class, ''), 'M1'))
  EXECUTE FUNCTION quota_day_counts_vehicle_class();

INSERT INTO quota_applicationdaycount (day, status, legislation_year, vehicle_class, sub_partner_id, single_deal_id, count)
SELECT (a.created_at AT TIME ZONE '{zone}')::date, a.status, a.legislation_year, COALESCE(NULLIF(r.vehicle_class, ''), 'M1'),
       a.sub_partner_id, a.single_deal_id, count(*)
FROM quota_quotaapplication AS a JOIN registrations_bevregistration AS r ON r.id = a.registration_id
GROUP BY 1, 2, 3, 4, 5, 6;
INSERT INTO quota_applicationcount (status, legislation_year, vehicle_class, sub_partner_id, single_deal_id, count)
SELECT status, legislation_year, vehicle_class, sub_partner_id, single_deal_id, sum(count)
FROM quota_applicationdaycount GROUP BY 1, 2, 3, 4, 5;
"""

DROP = """
DROP TRIGGER IF EXISTS quota_day_counts_vehicle_class ON registrations_bevregistration;
DROP TRIGGER IF EXISTS quota_day_counts_truncate ON quota_quotaapplication;
DROP TRIGGER IF EXISTS quota_day_counts_delete ON quota_quotaapplication;
DROP TRIGGER IF EXISTS quota_day_counts_update ON quota_quotaapplication;
DROP TRIGGER IF EXISTS quota_day_counts_insert ON quota_quotaapplication;
DROP FUNCTION IF EXISTS quota_day_counts_truncated();
DROP FUNCTION IF EXISTS quota_day_counts_vehicle_class();
DROP FUNCTION IF EXISTS quota_day_counts_apply();
"""


class Migration(migrations.Migration):
    dependencies = [
        ("quota", "0004_sub_partner_created"),
        ("registrations", "0006_merge_reading_and_search"),
    ]

    operations = [
        migrations.CreateModel(
            name="ApplicationDayCount",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("day", models.DateField()),
                ("status", models.CharField(max_length=40)),
                ("legislation_year", models.PositiveSmallIntegerField()),
                ("vehicle_class", models.CharField(max_length=10)),
                ("sub_partner_id", models.BigIntegerField(null=True)),
                ("single_deal_id", models.BigIntegerField(null=True)),
                ("count", models.IntegerField()),
            ],
            options={"indexes": [models.Index(fields=["day"], name="quota_day_count_day")]},
        ),
        migrations.CreateModel(
            name="ApplicationCount",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("status", models.CharField(max_length=40)),
                ("legislation_year", models.PositiveSmallIntegerField()),
                ("vehicle_class", models.CharField(max_length=10)),
                ("sub_partner_id", models.BigIntegerField(null=True)),
                ("single_deal_id", models.BigIntegerField(null=True)),
                ("count", models.IntegerField()),
            ],
        ),
        # The zone is a constant of the settings, never input.
        migrations.RunSQL(APPLY.replace("{zone}", settings.TIME_ZONE), reverse_sql=DROP),
    ]
