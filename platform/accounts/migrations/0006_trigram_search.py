from django.db import migrations

from common.trigram import create_extension, trigram_index


class Migration(migrations.Migration):
    # accounts migrates on public first (a shared app): the extension is there before any
    # partner schema's migrations (billing, registrations) want it. See common.trigram.
    dependencies = [
        ("accounts", "0005_user_canonical_names"),
    ]

    operations = [
        create_extension(),
        trigram_index(model_name="user", table="accounts_user", column="email", name="accounts_user_email_trgm"),
    ]
