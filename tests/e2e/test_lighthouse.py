"""Lighthouse's accessibility and best-practice audits (1.0 each) and SEO (>= 0.9) on every demo
partner kind's first screen and the portal login, served as deployed. Performance is a figure of
`make bench` (tests/bench/test_lighthouse.py): it moves with the machine's load."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.lighthouse import PAGES, failing_audits, lighthouse, served_as_deployed


# No database access from the test itself: the browser tests' Playwright loop runs in this
# thread, and Django refuses queries from there. The server has the test database.
@pytest.fixture(scope="module")
def port(django_db_setup: None) -> Iterator[int]:
    yield from served_as_deployed()


@pytest.mark.parametrize(("label", "subdomain", "path"), PAGES, ids=[page[0] for page in PAGES])
def test_lighthouse_accessibility_and_best_practices(
    label: str, subdomain: str, path: str, port: int
) -> None:
    name = f"check-{subdomain}{path.replace('/', '-')}"
    result = lighthouse(
        f"http://{subdomain}.localhost:{port}{path}", name, ("accessibility", "best-practices", "seo")
    )
    scores = {
        name: result["categories"][name]["score"] for name in ("accessibility", "best-practices", "seo")
    }
    assert scores["accessibility"] == 1, failing_audits(result, "accessibility")
    assert scores["best-practices"] == 1, failing_audits(result, "best-practices")
    assert scores["seo"] >= 0.9, failing_audits(result, "seo")
