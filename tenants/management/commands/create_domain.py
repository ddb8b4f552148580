"""django-tenants' stock `create_domain` is refused here: it adds a host outside the console: no DNS verification, no domain cache refresh."""

from tenants.management.refused import RefusedCommand


class Command(RefusedCommand):
    name = "create_domain"
