from __future__ import annotations

import base64
import binascii
import gzip
import json
import re
import threading
from html import escape
from pathlib import Path
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse

from common.error_reporting import web_release
from tenants.app_routes import is_app_route
from tenants.middleware import request_partner
from tenants.models import Partner
from themes.compiler import FONT_PACKAGES, FONT_WEIGHTS, theme_compile

_index: tuple[float, bytes] | None = None
_shell_lock = threading.Lock()
# subdomain -> ((config version, name, active, index mtime), page, gzipped page). One entry
# per partner and release; an old one is replaced when the partner or the build changes.
_shells: dict[str, tuple[tuple[Any, ...], bytes, bytes]] = {}

PRODUCT_FAVICON = Path(settings.BASE_DIR) / "web" / "public" / "product-favicon.ico"
PRODUCT_TITLE = "THG-Quote"
DATA_URL = re.compile(r"^data:(image/[a-z0-9.+-]+);base64,([A-Za-z0-9+/=\s]+)$")


def _index_page() -> tuple[float, bytes] | None:
    global _index
    index = settings.WEB_DIST / "index.html"
    try:
        mtime = index.stat().st_mtime
    except FileNotFoundError:
        return None
    if _index is None or _index[0] != mtime:
        _index = (mtime, index.read_bytes())
    return _index


def web_app(request: HttpRequest) -> HttpResponse:
    """The built React app's index.html, for every route of the app, with the host's partner
    named in its head (title, description, theme colour, icon, theme) before any script runs.
    A path that is no route of the app gets the same page with status 404: the app shows its
    404 screen in the partner's brand, and a crawler or a link checker sees the status."""
    index = _index_page()
    if index is None:
        return HttpResponse(
            "The web app is not built yet: run `make run` (or `npm run build:web`).",
            status=503,
            content_type="text/plain; charset=utf-8",
        )
    portal = request.path.startswith(PORTAL_PREFIX) or request.path == PORTAL_PREFIX.rstrip("/")
    login = portal and request.path.rstrip("/") in PORTAL_LOGIN_PATHS
    page, gzipped = _shell(index, request_partner(request), portal, login)
    headers = {"Cache-Control": "no-cache", "Vary": "Accept-Encoding"}
    # Compressed once per partner and release, like the assets (no GZipMiddleware: the API's
    # answers stay as they are).
    if "gzip" in request.headers.get("Accept-Encoding", ""):
        page = gzipped
        headers["Content-Encoding"] = "gzip"
    status = 200 if is_app_route(request.path) else 404
    return HttpResponse(page, status=status, content_type="text/html; charset=utf-8", headers=headers)


PARTNER_META = b'<meta name="thg-partner" content="" />'
THEME_META = b'<meta name="theme-color" content="#ffffff" />'
TITLE = f"<title>{PRODUCT_TITLE}</title>".encode()
ROOT = b'<div id="root"></div>'
# What the inlined theme accepts from a configuration: a CSS colour and a font stack. Anything
# else (it comes from the partner's admin) falls back to the neutral value; never raw CSS.
CSS_COLOR = re.compile(r"^(#[0-9a-fA-F]{3,8}|rgba?\([0-9.,%\s]+\)|[a-z]{3,20})$")
CSS_FONTS = re.compile(r'^[\w\s",-]+$')
# Until the script has run: the page in the partner's colours with a spinner (the same one the
# app shows while it loads the configuration), painted from the HTML alone.
BOOT_CSS = (
    "html,body{margin:0;background:#fff;color:var(--thg-text);font-family:var(--thg-font)}"
    ".thg-boot{min-height:100vh;display:grid;place-items:center}"
    ".thg-boot svg{animation:thg-spin 1.4s linear infinite}"
    ".thg-boot circle{stroke:var(--thg-primary);stroke-dasharray:80px,200px;stroke-linecap:round}"
    "@keyframes thg-spin{to{transform:rotate(360deg)}}"
    "@media (prefers-reduced-motion:reduce){.thg-boot svg{animation:none}}"
)
SPINNER = (
    '<div class="thg-boot" role="progressbar" aria-label="Wird geladen">'
    '<svg viewBox="22 22 44 44" width="40" height="40" aria-hidden="true">'
    '<circle cx="44" cy="44" r="20.2" fill="none" stroke-width="3.6" /></svg></div>'
)
BOOT = f'<div id="root">{SPINNER}</div>'.encode()


def _css_value(value: object, pattern: re.Pattern[str], default: str) -> str:
    text = str(value or "").strip()
    return text if pattern.match(text) else default


def theme_style(partner: Partner) -> str:
    """The critical part of the partner's compiled theme as CSS variables, for the first
    paint: primary colour, its text colour, text colour, font stack."""
    try:
        theme = theme_compile(partner.config or {}, partner.kind)
    except (ValueError, TypeError):
        theme = {}
    mui = theme.get("mui") or {}
    primary = (mui.get("palette") or {}).get("primary") or {}
    variables = {
        "--thg-primary": _css_value(primary.get("main"), CSS_COLOR, "#1976d2"),
        "--thg-on-primary": _css_value(primary.get("contrastText"), CSS_COLOR, "#ffffff"),
        "--thg-text": _css_value((theme.get("tokens") or {}).get("text"), CSS_COLOR, "#212121"),
        "--thg-font": _css_value(
            (mui.get("typography") or {}).get("fontFamily"), CSS_FONTS, "Arial, sans-serif"
        ),
    }
    root = ";".join(f"{name}:{value}" for name, value in variables.items())
    return f"<style>:root{{{root}}}{BOOT_CSS}</style>"


def _shell(
    index: tuple[float, bytes], partner: Partner | None, portal: bool = False, login: bool = False
) -> tuple[bytes, bytes]:
    """The page for the host (the customer portal's variant under /portal, and its login's),
    plain and gzipped."""
    variant = " portal login" if portal and login else " portal" if portal else ""
    subdomain = (partner.subdomain if partner is not None else "") + variant
    reporting = _reporting_meta(index[1])
    key = (
        (partner.config_version, partner.kind, partner.name, partner.frontend_active, index[0], reporting)
        if partner
        else (index[0], reporting)
    )
    cached = _shells.get(subdomain)
    if cached is not None and cached[0] == key:
        return cached[1], cached[2]
    page = _with_partner(index[1], partner, _font_files()) if partner is not None else index[1]
    if portal and partner is not None and partner.frontend_active and login:
        style, markup = portal_login_boot(partner)
        page = page.replace(b"</head>", style + b"\n  </head>", 1).replace(BOOT, markup, 1)
        page = _scripts_after_paint(page, _portal_chunks())
    elif portal and partner is not None and partner.frontend_active:
        page = page.replace(b"</head>", _portal_preloads() + b"</head>", 1)
    if reporting:
        # Beside the partner's name, before the entry script (a module: it runs after parsing).
        at = page.find(b">", page.find(b'<meta name="thg-partner"')) + 1
        page = page[:at] + b"\n    " + reporting + page[at:]
    gzipped = gzip.compress(page, compresslevel=9, mtime=0)
    with _shell_lock:
        _shells[subdomain] = (key, page, gzipped)
    return page, gzipped


# The portal login's own first screen, painted from the HTML (PORTAL_LOGIN_PATHS): the partner's
# gradient, the card with the logo, the title and the line under it (the page's largest text,
# what Lighthouse takes as its largest contentful paint), and the spinner where the form comes.
# The app replaces all of it with the same screen (web/src/portal/components/auth-layout.tsx,
# routes/login.tsx): the same sizes, so its paint is no larger one, and nothing of the
# server's stays on the page to shift. German, the portal's default language; the texts are
# those of web/src/portal/i18n.ts (tests/web/test_delivery.py compares them).
PORTAL_LOGIN_PATHS = {"/portal", "/portal/auth", "/portal/auth/login"}
PORTAL_LOGIN_TITLE = "Kundenportal"
PORTAL_LOGIN_DESCRIPTION = "Melden Sie sich an, um Ihre Registrierungen zu sehen."
# MUI's Paper at elevation 1.
PAPER_SHADOW = "0 2px 1px -1px rgba(0,0,0,.2),0 1px 1px 0 rgba(0,0,0,.14),0 1px 3px 0 rgba(0,0,0,.12)"
CSS_TOKEN = re.compile(r"^[\w.%#\s-]+$")
GRADIENT = re.compile(r"^linear-gradient\(135deg, (.+) 0%, (.+) 100%\)$")
# The form's height on a phone (two fields, the button, the links) below the line: the spinner
# stands where the form comes, and the card keeps about its size.
PORTAL_LOGIN_FORM_PX = 284


def _declarations(variant: dict[str, Any]) -> str:
    """A theme typography variant's own values (themes.compiler) as CSS declarations: only
    plain tokens (sizes, weights, keywords), never anything else."""
    declarations: dict[str, str] = {}
    for key, value in variant.items():
        if not isinstance(value, dict) and CSS_TOKEN.match(str(value)):
            declarations[re.sub(r"[A-Z]", lambda m: "-" + m.group().lower(), key)] = str(value)
    return ";".join(f"{name}:{value}" for name, value in declarations.items())


def _typography_css(selector: str, variant: dict[str, Any]) -> str:
    """The rule for a typography variant, and its phone size (a media query in the variant)."""
    css = f"{selector}{{{_declarations(variant)}}}"
    for key, value in variant.items():
        if key.startswith("@media (max-width:") and isinstance(value, dict) and CSS_TOKEN.match(key[18:-1]):
            css += f"{key}{{{selector}{{{_declarations(value)}}}}}"
    return css


def portal_login_boot(partner: Partner) -> tuple[bytes, bytes]:
    """The portal login's first screen before the script (PORTAL_LOGIN_PATHS): its stylesheet
    for the head and the markup in place of the spinner."""
    try:
        theme = theme_compile(partner.config or {}, partner.kind)
    except (ValueError, TypeError):
        theme = {}
    mui = theme.get("mui") or {}
    typography = mui.get("typography") or {}
    tokens = theme.get("tokens") or {}
    gradient = GRADIENT.match(str(tokens.get("gradient") or ""))
    start, end = (
        _css_value(gradient.group(index) if gradient else "", CSS_COLOR, "#ffffff") for index in (1, 2)
    )
    paper = _css_value(
        ((mui.get("palette") or {}).get("background") or {}).get("paper"), CSS_COLOR, "#ffffff"
    )
    css = (
        ".thg-auth{min-height:100vh;box-sizing:border-box;display:grid;place-items:center;padding:16px;"
        f"background:linear-gradient(135deg,{start},{end})}}"
        f".thg-card{{box-sizing:border-box;width:100%;max-width:440px;padding:24px;border-radius:8px;background:{paper};"
        f"box-shadow:{PAPER_SHADOW}}}"
        "@media (min-width:600px){.thg-card{padding:32px}}"
        ".thg-card-head{display:flex;align-items:center;min-height:44px;margin-bottom:24px}"
        ".thg-card-head img{height:36px;max-width:60%}"
        + _typography_css(".thg-card h1", typography.get("h1") or {})
        + ".thg-card h1{margin:0 0 8px}"
        + _typography_css(".thg-card p", typography.get("body1") or {})
        + f".thg-card p{{margin:0 0 16px}}.thg-card .thg-boot{{min-height:{PORTAL_LOGIN_FORM_PX}px}}"
    )
    logo = str((theme.get("assets") or {}).get("logo") or "")
    brand = (
        f'<img src="{escape(logo)}" alt="{escape(partner.name)} Logo" />'
        if logo
        else f"<span>{escape(partner.name)}</span>"
    )
    markup = (
        '<div id="root"><main class="thg-auth"><div class="thg-card">'
        f'<div class="thg-card-head">{brand}</div>'
        f"<h1>{PORTAL_LOGIN_TITLE}</h1><p>{PORTAL_LOGIN_DESCRIPTION}</p>{SPINNER}"
        "</div></main></div>"
    )
    return f"<style>{css}</style>".encode(), markup.encode()


def _reporting_meta(index_html: bytes) -> bytes:
    """Sentry for the browser, when SENTRY_BROWSER_DSN is set: the DSN, the build's release and
    the environment, read by web/src/shared/lib/error-reporting.ts. Without it the page has no
    such tag and the app loads nothing of Sentry."""
    if not settings.SENTRY_BROWSER_DSN:
        return b""
    return (
        f'<meta name="thg-error-reporting" content="{escape(settings.SENTRY_BROWSER_DSN)}"'
        f' data-release="{escape(web_release(index_html))}"'
        f' data-environment="{escape(settings.SENTRY_ENVIRONMENT)}" />'
    ).encode()


_fonts: tuple[float, dict[str, dict[int, str]]] | None = None
# fontsource's Latin subset (what German text needs): the faces the shell declares itself.
LATIN_RANGE = (
    "U+0000-00FF,U+0131,U+0152-0153,U+02BB-02BC,U+02C6,U+02DA,U+02DC,U+0304,U+0308,U+0329,"
    "U+2000-206F,U+20AC,U+2122,U+2191,U+2193,U+2212,U+2215,U+FEFF,U+FFFD"
)


def _font_files() -> dict[str, dict[int, str]]:
    """Font package -> weight -> the hashed URL of its Latin face (regular and bold, the
    weights the theme uses: themes.compiler.FONT_WEIGHTS), from the build's manifest; read
    once per build."""
    global _fonts
    manifest = settings.WEB_DIST / ".vite" / "manifest.json"
    try:
        mtime = manifest.stat().st_mtime
    except FileNotFoundError:
        return {}
    if _fonts is None or _fonts[0] != mtime:
        files: dict[str, dict[int, str]] = {}
        for key, chunk in json.loads(manifest.read_bytes()).items():
            match = re.search(r"@fontsource/([a-z-]+)/files/\1-latin-(\d+)-normal\.woff2$", key)
            if match and int(match.group(2)) in FONT_WEIGHTS:
                files.setdefault(match.group(1), {})[int(match.group(2))] = "/" + chunk["file"]
        _fonts = (mtime, files)
    return _fonts[1]


PORTAL_PREFIX = "/portal/"
PORTAL_ENTRY = "src/portal/portal-app.tsx"
PORTAL_CHUNK = "portal-app"
_portal: tuple[float, list[str]] | None = None


def _portal_preloads() -> bytes:
    """`modulepreload` links for the customer portal's chunk and every chunk it imports (not
    the entry's own, which the page loads anyway), from the build's manifest: on a portal
    page they load with the entry script instead of after the app has rendered its route."""
    return "".join(
        f'  <link rel="modulepreload" crossorigin href="{escape(url)}">\n  ' for url in _portal_chunks()
    ).encode()


ENTRY_SCRIPT = re.compile(rb'<script type="module" crossorigin src="(/assets/[^"]+)"></script>')
MODULE_PRELOAD = re.compile(rb'\s*<link rel="modulepreload" crossorigin href="(/assets/[^"]+)">')


def _scripts_after_paint(page: bytes, chunks: list[str]) -> bytes:
    """The portal login's page (issue 15): its entry script and every chunk the page would
    preload (the build's and the portal's) named in a meta instead, which web/src/boot.ts turns
    into the same script and links after the first paint. The login's card is painted from
    the page (portal_login_boot): a phone shows it without waiting for the scripts, and
    Lighthouse's simulated paint does not count their download."""
    entry = ENTRY_SCRIPT.search(page)
    if entry is None:
        return page
    preloads = [match.group(1).decode() for match in MODULE_PRELOAD.finditer(page)] + chunks
    meta = (
        f'<meta name="thg-entry" content="{escape(entry.group(1).decode())}"'
        f' data-preload="{escape(" ".join(preloads))}" />'
    ).encode()
    page = page[: entry.start()] + meta + page[entry.end() :]
    return MODULE_PRELOAD.sub(b"", page)


def _portal_chunks() -> list[str]:
    """The customer portal's chunk and every chunk it imports (not the entry's own), from the
    build's manifest, as URLs; read once per build."""
    global _portal
    manifest = settings.WEB_DIST / ".vite" / "manifest.json"
    try:
        mtime = manifest.stat().st_mtime
    except FileNotFoundError:
        return []
    if _portal is None or _portal[0] != mtime:
        chunks: dict[str, Any] = json.loads(manifest.read_bytes())
        loaded = {"index.html", *chunks.get("index.html", {}).get("imports", [])}
        files: list[str] = []
        # The portal's chunk, by its source file; when its lazy screens share modules with it,
        # Rollup files it as a shared chunk named after it ("_portal-app-<hash>.js").
        portal = next(
            (
                key
                for key in chunks.get("index.html", {}).get("dynamicImports", [])
                if key == PORTAL_ENTRY or chunks.get(key, {}).get("name") == PORTAL_CHUNK
            ),
            PORTAL_ENTRY,
        )
        pending, seen = [portal], set(loaded)
        while pending:
            name = pending.pop(0)
            if name in seen or name not in chunks:
                continue
            seen.add(name)
            files.append(chunks[name]["file"])
            pending.extend(chunks[name].get("imports", []))
        _portal = (mtime, [f"/{file}" for file in files])
    return _portal[1]


def _font_head(family: str, faces: dict[int, str]) -> str:
    """The partner font's Latin faces, declared and fetched with the page: the first screen's
    text is set in it without waiting for the script and its stylesheet (which adds the other
    subsets later; the same files, fetched once). Regular first: the face most text needs."""
    rules = "".join(
        f"@font-face{{font-family:'{family}';font-style:normal;font-display:swap;"
        f"font-weight:{weight};src:url({url}) format('woff2');unicode-range:{LATIN_RANGE}}}"
        for weight, url in sorted(faces.items())
    )
    links = "".join(
        f'\n    <link rel="preload" href="{escape(url)}" as="font" type="font/woff2" crossorigin />'
        for _, url in sorted(faces.items())
    )
    return f"\n    <style data-thg-fonts>{rules}</style>{links}"


def _with_partner(page: bytes, partner: Partner, fonts: dict[str, dict[int, str]] | None = None) -> bytes:
    """Names the host's partner in the page: on a custom domain the host name does not say
    it, and the app sends it as X-SUBDOMAIN (which must agree with the host). Every value the
    partner configured is escaped: it comes from the partner's admin, not from us."""
    config = partner.config or {}
    title = escape(str(config.get("page_title") or partner.name))
    description = escape(
        f"{partner.name}: Ihre THG-Prämie für Ihr Elektroauto – Fahrzeugschein hochladen, fertig."
    )
    color = escape(str((config.get("colors") or {}).get("button") or "#ffffff"))
    favicon = escape(str(config.get("favicon") or "/favicon.ico"))
    head = (
        f"<title>{title}</title>\n"
        f'    <meta name="description" content="{description}" />\n'
        f'    <link rel="icon" href="{favicon}" />\n'
        f'    <meta property="og:type" content="website" />\n'
        f'    <meta property="og:title" content="{title}" />\n'
        f'    <meta property="og:description" content="{description}" />\n'
        f'    <meta name="twitter:card" content="summary" />\n'
        f"    {theme_style(partner)}"
    )
    # The partner's font, fetched with the entry script instead of after the configuration.
    family = str(config.get("font_family"))
    faces = (fonts or {}).get(FONT_PACKAGES.get(family, "open-sans"))
    if faces:
        head += _font_head(family if family in FONT_PACKAGES else "Open Sans", faces)
    # A subdomain is letters, digits and hyphens (tenants.models): nothing to escape.
    page = page.replace(
        PARTNER_META, f'<meta name="thg-partner" content="{partner.subdomain}" />'.encode(), 1
    )
    page = page.replace(THEME_META, f'<meta name="theme-color" content="{color}" />'.encode(), 1)
    page = page.replace(ROOT, BOOT, 1)
    return page.replace(TITLE, head.encode(), 1)


ROBOTS_ACTIVE = "User-agent: *\nDisallow: /admin/\nDisallow: /api/\n"
ROBOTS_CLOSED = "User-agent: *\nDisallow: /\n"


def robots_txt(request: HttpRequest) -> HttpResponse:
    """A partner's active site may be indexed, except its admin and API; a deactivated
    partner and the public host (the platform admin only) not at all."""
    partner = request_partner(request)
    body = ROBOTS_ACTIVE if partner is not None and partner.frontend_active else ROBOTS_CLOSED
    return HttpResponse(
        body, content_type="text/plain; charset=utf-8", headers={"Cache-Control": "public, max-age=3600"}
    )


def favicon_ico(request: HttpRequest) -> HttpResponse:
    """The partner's configured icon (served when it is a data URL, else a redirect to it),
    otherwise the product's."""
    partner = request_partner(request)
    favicon = str((partner.config or {}).get("favicon") or "") if partner is not None else ""
    cache = {"Cache-Control": "public, max-age=3600"}
    if favicon.startswith("data:"):
        match = DATA_URL.match(favicon)
        if match:
            try:
                body = base64.b64decode(match.group(2), validate=False)
            except (binascii.Error, ValueError):
                body = b""
            if body:
                return HttpResponse(body, content_type=match.group(1), headers=cache)
    elif favicon.startswith(("https://", "http://", "/")) and favicon != "/favicon.ico":
        response = HttpResponseRedirect(favicon)
        response["Cache-Control"] = "public, max-age=3600"
        return response
    return HttpResponse(PRODUCT_FAVICON.read_bytes(), content_type="image/x-icon", headers=cache)


def api_not_found(request: HttpRequest) -> JsonResponse:
    """Any other path under /api/: a JSON 404 in the API's shape, never an HTML page."""
    return JsonResponse({"detail": "Not found."}, status=404)
