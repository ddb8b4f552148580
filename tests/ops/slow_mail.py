"""A mail backend for the worker tests: marks that a send began, takes two seconds, then writes
the mail like the default backend (common.mail.OutboxBackend)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from pathlib import Path

from django.conf import settings
from django.core.mail import EmailMessage

from common.mail import OutboxBackend

SEND_SECONDS = 2.0


class SlowOutboxBackend(OutboxBackend):
    def send_messages(self, email_messages: Sequence[EmailMessage]) -> int:
        folder = Path(settings.MAIL_DIR)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"sending-{uuid.uuid4().hex}").touch()
        time.sleep(SEND_SECONDS)
        return super().send_messages(email_messages)
