"""django-tenants' stock `create_missing_schemas` is refused here: a partner's schema is cloned from the template by provisioning, never migrated from scratch."""

from tenants.management.refused import RefusedCommand


class Command(RefusedCommand):
    name = "create_missing_schemas"
