"""django-tenants' stock `rename_schema` is refused here: a partner's schema name follows its subdomain; renaming would orphan its media and dumps."""

from tenants.management.refused import RefusedCommand


class Command(RefusedCommand):
    name = "rename_schema"
