"""The default run's mail backend: every message as an .eml file under MAIL_DIR, and printed."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any
from uuid import uuid4

from django.conf import settings
from django.core.mail import EmailMessage
from django.core.mail.backends.base import BaseEmailBackend


class OutboxBackend(BaseEmailBackend):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.directory = Path(settings.MAIL_DIR)

    def send_messages(self, email_messages: Sequence[EmailMessage]) -> int:
        self.directory.mkdir(parents=True, exist_ok=True)
        for message in email_messages:
            stamp = datetime.now().astimezone().strftime("%Y%m%d-%H%M%S")
            path = self.directory / f"{stamp}-{uuid4().hex[:8]}.eml"
            path.write_bytes(message.message().as_bytes())
            if not getattr(settings, "MAIL_QUIET", False):
                print(
                    f"\n--- e-mail to {', '.join(message.to)}: {message.subject} ({path})\n{message.body}\n---",
                    file=sys.stdout,
                    flush=True,
                )
        return len(email_messages)
