"""The self-hosted bot check (altcha proof of work) in place of a third-party captcha.

The web app fetches a challenge, finds the number whose SHA-256 with the salt gives the
challenge (a fraction of a second for a browser, costly at scale for a bot) and sends the
solution as the `recaptcha` field. A challenge is bound to its partner (the HMAC key includes
the schema), expires after a few minutes and is accepted once.
"""

from __future__ import annotations

import base64
import json
from datetime import timedelta
from typing import Any

from altcha import ChallengeOptionsV1, create_challenge_v1, verify_solution_v1
from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

from tenants.models import Partner

CHALLENGE_LIFETIME = timedelta(minutes=5)


def _key(partner: Partner) -> str:
    return f"{settings.SECRET_KEY}:bot-check:{partner.schema_name}"


def bot_check_challenge(*, partner: Partner) -> dict[str, Any]:
    """A new challenge in the shape the altcha widget and our solver read."""
    challenge = create_challenge_v1(
        ChallengeOptionsV1(
            hmac_key=_key(partner),
            max_number=settings.BOT_CHECK_MAX_NUMBER,
            expires=timezone.now() + CHALLENGE_LIFETIME,
        )
    )
    return {
        "algorithm": challenge.algorithm,
        "challenge": challenge.challenge,
        "maxnumber": challenge.max_number,
        "salt": challenge.salt,
        "signature": challenge.signature,
    }


def bot_check_passes(*, partner: Partner, payload: str | None) -> bool:
    """True for a fresh, correct solution of this partner's challenge (or with the check off)."""
    if not settings.BOT_CHECK_ENABLED:
        return True
    if not payload or len(payload) > 2000:
        return False
    try:
        data = json.loads(base64.b64decode(payload, validate=True))
        ok, _ = verify_solution_v1(data, _key(partner), check_expires=True)
    except (ValueError, TypeError, KeyError, AttributeError):
        return False
    if not ok:
        return False
    # Each solved challenge counts once: a replayed solution is refused.
    lifetime = int(CHALLENGE_LIFETIME.total_seconds()) + 60
    return bool(cache.add(f"bot-check-used:{partner.schema_name}:{data['signature']}", 1, timeout=lifetime))
