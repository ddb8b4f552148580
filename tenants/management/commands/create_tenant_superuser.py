"""django-tenants' stock `create_tenant_superuser` is refused here: partner staff are invited (set password, second factor, role), never created as superusers."""

from tenants.management.refused import RefusedCommand


class Command(RefusedCommand):
    name = "create_tenant_superuser"
