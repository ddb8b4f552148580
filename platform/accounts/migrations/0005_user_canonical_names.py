import unicodedata

from django.db import migrations, models


def _canonical(value: str) -> str:
    # A frozen copy of accounts.models.canonical_name (migrations do not import app code).
    folded = unicodedata.normalize("NFKC", value.strip()).casefold()
    for variant, plain in {"i\u0307": "i", "ı": "i"}.items():
        folded = folded.replace(variant, plain)
    return unicodedata.normalize("NFKC", folded)


def fill(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    for user in User.objects.all().only("pk", "username", "email"):
        User.objects.filter(pk=user.pk).update(
            username_canonical=_canonical(user.username), email_canonical=_canonical(user.email or "")
        )


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0004_logincode_sealed_loginlink_sealed"),
    ]

    operations = [
        migrations.AddField(
            model_name="user",
            name="username_canonical",
            field=models.TextField(default="", editable=False),
        ),
        migrations.AddField(
            model_name="user",
            name="email_canonical",
            field=models.TextField(default="", editable=False),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="user",
            constraint=models.UniqueConstraint(
                fields=("username_canonical",), name="accounts_user_username_canonical_unique"
            ),
        ),
        migrations.AddConstraint(
            model_name="user",
            constraint=models.UniqueConstraint(
                condition=models.Q(("email_canonical", ""), _negated=True),
                fields=("email_canonical",),
                name="accounts_user_email_canonical_unique",
            ),
        ),
    ]
