"""The default run's mail backend: every message as an .eml file under MAIL_DIR.

Printing a mail (its login code or link) to stdout is opt-in with MAIL_ECHO=1: a terminal's
scrollback or a captured process log must not collect codes by default. The files under
var/mail/ are always written; read the newest one there to log in during development.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any
from uuid import uuid4

from django.conf import settings
from django.core.mail import EmailMessage
from django.core.mail.backends.base import BaseEmailBackend


def mail_echo() -> bool:
    """MAIL_ECHO from the settings, or else from the environment (off unless 1/true/yes/on)."""
    value = getattr(settings, "MAIL_ECHO", None)
    if value is None:
        value = os.environ.get("MAIL_ECHO", "")
    if isinstance(value, str):
        return value.strip().lower() in {"1", "true", "yes", "on"}
    return bool(value)


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
            if mail_echo() and not getattr(settings, "MAIL_QUIET", False):
                print(
                    f"\n--- e-mail to {', '.join(message.to)}: {message.subject} ({path})\n{message.body}\n---",
                    file=sys.stdout,
                    flush=True,
                )
        return len(email_messages)
