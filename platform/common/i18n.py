"""The language of an answer: German unless the request prefers English (accept-language)."""

from __future__ import annotations

from typing import Literal

from django.http import HttpRequest

Language = Literal["de", "en"]


def request_language(request: HttpRequest) -> Language:
    best: tuple[float, Language] = (0.0, "de")
    for part in request.headers.get("accept-language", "").split(","):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        if params.strip().startswith("q="):
            try:
                quality = float(params.strip()[2:])
            except ValueError:
                continue
        primary = tag.strip().lower().split("-")[0]
        if primary in ("de", "en") and quality > best[0]:
            best = (quality, "en" if primary == "en" else "de")
    return best[1]
