from __future__ import annotations

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.db.models.functions import Lower


class User(AbstractUser):
    """A user of one schema: in a partner's schema the vehicle owners and that partner's back
    office; in the public schema the platform staff. One account per e-mail and partner."""

    class Meta:
        constraints = [
            models.UniqueConstraint(
                Lower("email"), name="accounts_user_email_unique", condition=~models.Q(email="")
            ),
        ]
