"""The erasure hook: `privacy.signals.erasure` is sent inside the erasure's transaction, before
the owner's rows are deleted, with

    schema_name: the partner's schema,
    user_id: the owner's id in that schema,
    vins: the VINs of the owner's registrations (for the public double-registration registry,
          which keeps only its keyed hash),
    registration_uuids: the uuids of those registrations.

A receiver that raises aborts the erasure (the transaction rolls back), so it must only fail
when the erasure must not happen. Connect with `erasure.connect(receiver)` in an AppConfig.ready.
"""

from __future__ import annotations

from django.dispatch import Signal

erasure = Signal()
