"""What each route of the web app loads: gzipped JavaScript from the Vite manifest.

The first screen (the entry chunk and its static imports) must stay within 200 KB gzipped;
every other route adds its own lazy chunk. `pytest tests/web -s` prints the table."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

DIST = Path(__file__).resolve().parents[2] / "web" / "dist"
MANIFEST = DIST / ".vite" / "manifest.json"
FIRST_SCREEN_BUDGET = 200 * 1024


def _manifest() -> dict[str, dict]:  # type: ignore[type-arg]
    if not MANIFEST.exists():
        pytest.fail("the web app is not built: run `npm run build:web` (make test does)")
    return json.loads(MANIFEST.read_text())  # type: ignore[no-any-return]


def _closure(manifest: dict[str, dict], key: str, seen: set[str]) -> set[str]:  # type: ignore[type-arg]
    """A chunk's file and every file it imports statically."""
    if key in seen:
        return set()
    seen.add(key)
    chunk = manifest[key]
    files = {chunk["file"]} if chunk["file"].endswith(".js") else set()
    for imported in chunk.get("imports", []):
        files |= _closure(manifest, imported, seen)
    return files


def _gzipped(files: set[str]) -> int:
    return sum(len(gzip.compress((DIST / name).read_bytes(), compresslevel=9)) for name in files)


def route_sizes() -> dict[str, int]:
    manifest = _manifest()
    entry_key = "index.html"  # the page's entry (src/boot.ts is an entry of its own, a few hundred bytes)
    entry = _closure(manifest, entry_key, set())
    sizes = {"first screen (entry)": _gzipped(entry)}
    for key in manifest[entry_key].get("dynamicImports", []):
        extra = _closure(manifest, key, set()) - entry
        sizes[Path(key).stem] = sizes["first screen (entry)"] + _gzipped(extra)
    return sizes


def test_the_first_screen_loads_at_most_200_kb_of_javascript() -> None:
    sizes = route_sizes()
    print("\nJavaScript per route, gzipped (entry + the route's own chunks):")
    for route, size in sizes.items():
        print(f"  {route:<24} {size / 1024:7.1f} KB")
    assert sizes["first screen (entry)"] <= FIRST_SCREEN_BUDGET


def test_every_flow_screen_after_the_first_is_its_own_chunk() -> None:
    sizes = route_sizes()
    for route in ("terms", "login", "code-validation", "image-upload", "validation", "billing", "finish"):
        assert route in sizes, f"{route} is bundled into the entry chunk"


def test_the_portal_is_loaded_only_on_portal_routes() -> None:
    manifest = _manifest()
    entry_key = "index.html"  # the page's entry (src/boot.ts is an entry of its own, a few hundred bytes)
    entry = _closure(manifest, entry_key, set())
    portal_key = next(key for key in manifest[entry_key].get("dynamicImports", []) if "portal-app" in key)
    portal_files = _closure(manifest, portal_key, set()) - entry
    assert portal_files, "the portal has no chunk of its own"
    # A string only the portal's code holds: in its chunks, never in the flow's first screen.
    marker = "thg.portal.language"
    assert not any(marker in (DIST / name).read_text(encoding="utf-8") for name in entry)
    assert any(marker in (DIST / name).read_text(encoding="utf-8") for name in portal_files)
    portal_own = _gzipped(portal_files)
    print(f"\nportal code on top of the entry: {portal_own / 1024:.1f} KB gzipped")
    assert portal_own > 50 * 1024


def test_the_partner_area_and_mui_x_stay_off_the_first_screen() -> None:
    """Issue 16: /partner is its own chunk; the grid and the charts load only with the partner
    screens that show them, never with the first screen or the partner area's login."""
    manifest = _manifest()
    entry_key = "index.html"  # the page's entry (src/boot.ts is an entry of its own, a few hundred bytes)
    entry = _closure(manifest, entry_key, set())
    partner_key = next(key for key in manifest[entry_key].get("dynamicImports", []) if "partner-app" in key)
    partner_files = _closure(manifest, partner_key, set()) - entry
    assert partner_files, "the partner area has no chunk of its own"

    def holds(files: set[str], marker: str) -> bool:
        return any(marker in (DIST / name).read_text(encoding="utf-8") for name in files)

    assert not holds(entry, "thg.partner.language") and holds(partner_files, "thg.partner.language")
    for marker in ("MuiDataGrid", "MuiChartsSurface"):
        assert not holds(entry, marker), f"{marker} is on the first screen"
        assert not holds(partner_files, marker), f"{marker} loads with the partner area's login"
    lazy = set()
    for key in manifest[partner_key].get("dynamicImports", []):
        lazy |= _closure(manifest, key, set())
    assert holds(lazy, "MuiDataGrid") and holds(lazy, "MuiChartsSurface")
    print(
        f"\npartner area (login, layout) on top of the entry: {_gzipped(partner_files) / 1024:.1f} KB gzipped"
    )


def test_the_portal_login_loads_no_form_library() -> None:
    """The portal login (its chunk and what it imports) renders without react-hook-form: the
    forgot-password panel and the other portal forms bring it in their own chunks."""
    manifest = _manifest()
    entry = _closure(manifest, "index.html", set())
    portal_key = next(key for key in manifest["index.html"].get("dynamicImports", []) if "portal-app" in key)
    login = _closure(manifest, portal_key, set()) | entry
    marker = "shouldUnregister"  # one of react-hook-form's option names, kept by the minifier
    assert not any(marker in (DIST / name).read_text(encoding="utf-8") for name in login)
    assert any(marker in path.read_text(encoding="utf-8") for path in (DIST / "assets").glob("*.js"))


def test_the_page_names_a_map_of_each_areas_screen_files() -> None:
    """The idle prefetch (lazy-screen.ts): index.html names the screen -> files map, a hashed
    asset listing per area the files the entry has not loaded."""
    html = (DIST / "index.html").read_text(encoding="utf-8")
    match = re.search(r'<meta name="thg-screens" content="/(assets/screens-[\w-]{8}\.json)" />', html)
    assert match, "index.html names no screen map"
    areas = json.loads((DIST / match.group(1)).read_text())
    assert set(areas) == {"flow", "portal", "partner"}
    manifest = _manifest()
    entry = {f"/{name}" for name in _closure(manifest, "index.html", set())}
    for area, files in areas.items():
        assert files and not set(files) & entry, area
        assert all((DIST / name.lstrip("/")).exists() for name in files), area
    flow = {re.sub(r"-[\w-]{8}\.\w+$", "", Path(name).name) for name in areas["flow"]}
    assert {"terms", "billing", "image-upload", "finish"} <= flow
    assert not any("portal-app" in name or "partner-app" in name for name in areas["flow"])
    assert any("portal-app" in name for name in areas["portal"])
    assert any("server-grid" in name for name in areas["partner"])
