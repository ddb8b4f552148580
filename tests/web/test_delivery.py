"""What a browser receives, over HTTP through gunicorn: compressed, cacheable assets, no source
maps, the first screen within its byte budget (issue 15, delivery)."""

from __future__ import annotations

import gzip
import http.client
import re
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import start_server
from themes.compiler import FONT_PACKAGES

DIST = Path(__file__).resolve().parents[2] / "web" / "dist"
# Issue 15: HTML + everything the first screen loads, compressed as served.
FIRST_SCREEN_BUDGET = 170 * 1024

pytestmark = pytest.mark.django_db

Response = tuple[int, dict[str, str], bytes]
Get = Callable[..., Response]


def _getter(port: int) -> Get:
    def fetch(host: str, path: str, encoding: str | None = None) -> Response:
        # Generous: the first request of a fresh server on a loaded machine imports the app.
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        headers = {"Host": host if host == "localhost" else f"{host}.localhost"}
        if encoding:
            headers["Accept-Encoding"] = encoding
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        body = response.read()
        connection.close()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, body

    return fetch


@pytest.fixture(scope="module")
def get(live_server_port: int) -> Get:
    """GET on a partner's host (or the public one) through gunicorn (DEBUG=1, WhiteNoise
    looking files up per request), body as transferred."""
    return _getter(live_server_port)


@pytest.fixture(scope="module")
def get_production(django_db_setup: None) -> Iterator[Get]:
    """The same through gunicorn as deployed: DEBUG=0 (WhiteNoise indexes the files at start)."""

    process, port = start_server(
        extra_env={"DEBUG": "0", "SECRET_KEY": secrets.token_hex(32), "SECURE_SSL_REDIRECT": "0"}
    )
    yield _getter(port)
    process.terminate()
    process.wait(timeout=10)


def _first_screen_files(html: str) -> list[str]:
    """The entry script, its preloaded chunks and the stylesheets the HTML links."""
    scripts = re.findall(r'<script type="module"[^>]*src="(/assets/[^"]+)"', html)
    links = re.findall(r'<link rel="(?:modulepreload|stylesheet)"[^>]*href="(/assets/[^"]+)"', html)
    return scripts + links


@pytest.fixture(scope="module")
def built() -> None:
    if not (DIST / "index.html").exists():
        pytest.fail("the web app is not built: run `npm run build:web` (make test does)")


def test_the_entry_script_arrives_compressed_and_cached_for_good(built: None, get: Get) -> None:
    _, _, html = get("autohaus", "/")
    entry = _first_screen_files(html.decode())[0]
    plain_status, plain_headers, plain = get("autohaus", entry)
    assert plain_status == 200 and "content-encoding" not in plain_headers

    for encoding, name in (("gzip", "gzip"), ("br", "br"), ("br, gzip", "br")):
        status, headers, body = get("autohaus", entry, encoding)
        assert status == 200
        assert headers.get("content-encoding") == name, encoding
        assert len(body) < len(plain) / 2
        assert "Accept-Encoding" in headers.get("vary", "")
        cache = headers["cache-control"]
        assert "immutable" in cache and "public" in cache
        assert int(re.search(r"max-age=(\d+)", cache).group(1)) >= 31_536_000  # type: ignore[union-attr]


def test_a_hashed_stylesheet_and_font_are_immutable(built: None, get: Get) -> None:
    assets = sorted(p.name for p in (DIST / "assets").iterdir())
    css = next(name for name in assets if name.endswith(".css"))
    font = next(name for name in assets if name.endswith(".woff2"))
    for name in (css, font):
        status, headers, _ = get("autohaus", f"/assets/{name}", "gzip")
        assert status == 200
        assert "immutable" in headers["cache-control"], name


def test_the_shell_is_never_cached(built: None, get: Get) -> None:
    for path in ("/", "/terms", "/index.html"):
        status, headers, body = get("autohaus", path, "gzip")
        assert status == 200, path
        assert headers["cache-control"] == "no-cache", path
        if path != "/index.html":  # the rendered shell, compressed once per partner
            assert headers["content-encoding"] == "gzip", path
        if headers.get("content-encoding") == "gzip":  # /index.html too: precompressed at build
            body = gzip.decompress(body)
        assert b'<div id="root">' in body


def test_source_maps_are_not_served(built: None, get: Get) -> None:
    _, _, html = get("autohaus", "/")
    entry = _first_screen_files(html.decode())[0]
    assert not list(DIST.rglob("*.map")), "source maps must stay out of web/dist"
    status, _, _ = get("autohaus", f"{entry}.map")
    assert status == 404
    # Built hidden: the script does not point at a map either.
    _, _, script = get("autohaus", entry)
    assert b"sourceMappingURL" not in script


def test_react_and_mui_core_live_in_a_vendor_chunk(built: None, get: Get) -> None:
    _, _, html = get("autohaus", "/")
    files = _first_screen_files(html.decode())
    assert any(re.fullmatch(r"/assets/vendor-[\w-]{8}\.js", name) for name in files), files


@pytest.mark.parametrize("subdomain", ["autohaus", "stadtwerk", "wallbox"])
def test_the_first_screen_transfers_at_most_170_kb(built: None, get: Get, subdomain: str) -> None:
    sizes: dict[str, int] = {}
    for encoding in ("br, gzip", "gzip", None):
        status, _, html = get(subdomain, "/", encoding)
        assert status == 200
        total = len(html)
        _, _, plain = get(subdomain, "/")
        for name in _first_screen_files(plain.decode()):
            status, _, body = get(subdomain, name, encoding)
            assert status == 200, name
            total += len(body)
        sizes[encoding or "identity"] = total
    print(
        f"\nfirst screen of {subdomain}, bytes transferred: "
        + ", ".join(f"{k}: {v} B ({v / 1024:.1f} KB)" for k, v in sizes.items())
    )
    # Brotli for today's browsers, gzip for the rest: both within the budget.
    assert sizes["br, gzip"] <= FIRST_SCREEN_BUDGET
    assert sizes["gzip"] <= FIRST_SCREEN_BUDGET


# --- robots.txt and favicon.ico: real files, not the app's HTML --------------------------------


@pytest.mark.parametrize("subdomain", ["autohaus", "wallbox"])
def test_an_active_partner_may_be_indexed_except_admin_and_api(get: Get, subdomain: str) -> None:
    status, headers, body = get(subdomain, "/robots.txt")
    assert status == 200
    assert headers["content-type"].startswith("text/plain")
    lines = body.decode().splitlines()
    assert lines[0] == "User-agent: *"
    assert set(lines[1:]) == {"Disallow: /admin/", "Disallow: /api/"}


@pytest.mark.parametrize("host", ["inaktiv", "localhost"])
def test_a_deactivated_partner_and_the_public_host_disallow_everything(get: Get, host: str) -> None:
    status, headers, body = get(host, "/robots.txt")
    assert status == 200
    assert headers["content-type"].startswith("text/plain")
    assert body.decode().splitlines() == ["User-agent: *", "Disallow: /"]


def test_the_partner_favicon_is_an_image(get: Get) -> None:
    from tenants.models import Partner

    configured = Partner.objects.get(subdomain="autohaus").config["favicon"]
    assert configured.startswith("data:image/svg+xml;base64,")
    status, headers, body = get("autohaus", "/favicon.ico")
    assert status == 200
    assert headers["content-type"] == "image/svg+xml"
    assert body.startswith(b"<svg")


def test_without_a_partner_favicon_the_product_icon_is_served(get: Get) -> None:
    status, headers, body = get("localhost", "/favicon.ico")
    assert status == 200
    assert headers["content-type"] == "image/x-icon"
    assert body[:4] == b"\x00\x00\x01\x00"  # the ICO header


# --- the shell, rendered per host -----------------------------------------------------------


def test_the_shell_names_the_partner_before_any_script(get: Get) -> None:
    from tenants.models import Partner

    partner = Partner.objects.get(subdomain="stadtwerk")
    status, headers, body = get("stadtwerk", "/terms")
    html = body.decode()
    assert status == 200 and headers["cache-control"] == "no-cache"
    assert f"<title>{partner.config['page_title']}</title>" in html
    assert f'<meta name="theme-color" content="{partner.config["colors"]["button"]}" />' in html
    assert '<meta name="description" content="Stadtwerke Musterstadt: ' in html
    assert f'<link rel="icon" href="{partner.config["favicon"]}" />' in html
    assert '<meta property="og:title"' in html
    assert '<meta name="thg-partner" content="stadtwerk" />' in html
    assert "THG-Quote</title>" not in html

    # The partner's font (its Latin regular face) is fetched at once, and is a real asset.
    package = FONT_PACKAGES[partner.config["font_family"]]
    preload = re.search(
        r'<link rel="preload" href="([^"]+)" as="font" type="font/woff2" crossorigin />', html
    )
    assert preload, html
    assert re.fullmatch(rf"/assets/{package}-latin-400-normal-[\w-]{{8}}\.woff2", preload.group(1))
    status, headers, _ = get("stadtwerk", preload.group(1))
    assert status == 200 and "immutable" in headers["cache-control"]
    # Regular and bold (the theme's weights), declared in the page: the first screen's text is
    # set in the partner's font without waiting for the script's stylesheets.
    faces = re.findall(
        rf"@font-face{{font-family:'{partner.config['font_family']}';[^}}]*font-weight:(\d+);"
        r"src:url\((/assets/[^)]+)\) format\('woff2'\)",
        html,
    )
    assert [weight for weight, _ in faces] == ["400", "700"], html
    preloaded = re.findall(r'<link rel="preload" href="([^"]+)" as="font"', html)
    assert preloaded == [url for _, url in faces]
    for url in preloaded:
        assert get("stadtwerk", url)[0] == 200


def test_a_portal_page_fetches_the_portals_chunks_with_the_entry(built: None, get: Get) -> None:
    _, _, flow = get("autohaus", "/terms")
    assert b"portal-app-" not in flow
    _, _, body = get("autohaus", "/portal/auth/signup")
    html = body.decode()
    chunks = re.findall(r'<link rel="modulepreload" crossorigin href="(/assets/[^"]+)">', html)
    assert any(re.fullmatch(r"/assets/portal-app-[\w-]{8}\.js", chunk) for chunk in chunks), chunks
    assert len(chunks) == len(set(chunks))
    # only what the login needs: the signed-in screens come later, in chunks of their own
    assert not [chunk for chunk in chunks if re.match(r"/assets/(registrations|shell|pages)-", chunk)], chunks
    for chunk in chunks:
        assert get("autohaus", chunk)[0] == 200, chunk

    # The login names the same scripts in a meta, for web/src/boot.ts to load after the page's
    # first paint (its card, painted from the page): no script or preload of the app's before.
    _, _, body = get("autohaus", "/portal/auth/login")
    login = body.decode()
    entry = _first_screen_files(html)[0]
    meta = re.search(r'<meta name="thg-entry" content="([^"]+)" data-preload="([^"]+)" />', login)
    assert meta, login
    assert meta.group(1) == entry
    assert meta.group(2).split() == chunks
    assert "modulepreload" not in login
    assert re.findall(r'<script [^>]*src="([^"]+)"', login) == [
        file for file in re.findall(r'<script [^>]*src="([^"]+)"', html) if file != entry
    ]
    # where the entry's script was: once boot.ts has put it there, the page is the others' again
    assert login.index('<meta name="thg-entry"') < login.index('<script type="module" async')


@pytest.mark.parametrize("subdomain", ["autohaus", "stadtwerk", "wallbox"])
def test_the_portal_login_paints_its_card_from_the_html(get: Get, subdomain: str) -> None:
    """Issue 15: the login's title and line (its largest text) come with the page, in the
    partner's card on its gradient; the form follows with the script, in place of a spinner."""
    from tenants.models import Partner
    from themes.compiler import theme_compile

    partner = Partner.objects.get(subdomain=subdomain)
    theme = theme_compile(partner.config, partner.kind)
    for path in ("/portal", "/portal/auth/login", "/portal/auth/login/"):
        status, _, body = get(subdomain, path)
        html = body.decode()
        assert status == 200, path
        root = html.split('<div id="root">', 1)[1].split("</main></div>", 1)[0]
        assert root.startswith('<main class="thg-auth"><div class="thg-card">'), path
        assert "<h1>Kundenportal</h1><p>Melden Sie sich an, um Ihre Registrierungen zu sehen.</p>" in root
        assert '<div class="thg-boot" role="progressbar" aria-label="Wird geladen">' in root
        logo = theme["assets"]["logo"]
        assert (f'<img src="{logo}" alt="{partner.name} Logo" />' if logo else f"<span>{partner.name}</span>") in root
        style = html.split('<style>.thg-auth{', 1)[1].split("</style>", 1)[0]
        assert theme["tokens"]["gradient"].replace(" 0%", "").replace(" 100%", "").replace(", ", ",") in style
        h1 = theme["mui"]["typography"]["h1"]
        assert f"font-size:{h1['fontSize']}" in style and f"text-align:{h1['textAlign']}" in style
        assert html.index('<style>.thg-auth{') < html.index("</head>")
    # Every other portal screen (and the flow) keeps the spinner: its title is another one.
    for path in ("/portal/auth/signup", "/portal/registrations", "/"):
        _, _, body = get(subdomain, path)
        assert body.decode().split('<div id="root">', 1)[1].startswith('<div class="thg-boot"'), path


def test_the_portal_logins_texts_are_the_apps() -> None:
    """The server's copy of the login's title and line: the app's German texts."""
    from tenants.web_views import PORTAL_LOGIN_DESCRIPTION, PORTAL_LOGIN_TITLE

    source = (DIST.parents[1] / "web" / "src" / "portal" / "i18n.ts").read_text()
    login = source.split("const de = {", 1)[1].split("login: {", 1)[1].split("}", 1)[0]
    assert f'title: "{PORTAL_LOGIN_TITLE}",' in login
    assert f'description: "{PORTAL_LOGIN_DESCRIPTION}",' in login


def test_the_portal_login_card_takes_only_what_is_safe(client: Any) -> None:
    from tenants.models import Partner

    partner = Partner.objects.get(subdomain="autohaus")
    config = {**partner.config, "logo": None}
    Partner.objects.filter(pk=partner.pk).update(
        config=config, name="A & B <GmbH>", config_version=partner.config_version + 1
    )
    html = client.get("/portal/auth/login", HTTP_HOST="autohaus.localhost").content.decode()
    assert "<span>A &amp; B &lt;GmbH&gt;</span>" in html


def test_the_shell_escapes_what_the_partner_configured(client: Any) -> None:
    from tenants.models import Partner

    partner = Partner.objects.get(subdomain="autohaus")
    config = {**partner.config, "page_title": "</title><script>alert(1)</script>", "favicon": None}
    config["colors"] = {**config["colors"], "button": '#fff" onload="x'}
    Partner.objects.filter(pk=partner.pk).update(
        config=config, name="A & B <GmbH>", config_version=partner.config_version + 1
    )
    html = client.get("/welcome", HTTP_HOST="autohaus.localhost").content.decode()
    assert "<script>alert(1)</script>" not in html
    assert "<title>&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;</title>" in html
    assert 'content="#fff&quot; onload=&quot;x"' in html
    assert "A &amp; B &lt;GmbH&gt;: " in html
    assert '<link rel="icon" href="/favicon.ico" />' in html


def test_a_deployment_serves_the_same_headers(built: None, get_production: Get) -> None:
    _, headers, html = get_production("autohaus", "/")
    assert headers["cache-control"] == "no-cache"
    entry = _first_screen_files(html.decode())[0]
    status, headers, _ = get_production("autohaus", entry, "br, gzip")
    assert status == 200 and headers["content-encoding"] == "br"
    assert "immutable" in headers["cache-control"]
    _, headers, _ = get_production("autohaus", "/index.html")
    assert headers["cache-control"] == "no-cache"
    assert get_production("autohaus", f"{entry}.map")[0] == 404
    assert get_production("inaktiv", "/robots.txt")[2] == b"User-agent: *\nDisallow: /\n"


# --- status 404 for a path that is no route of the app ------------------------------------------


def _sample(pattern: str) -> str:
    """A concrete path for a react-router pattern (a parameter filled, an optional one too)."""
    return "/" + "/".join("x1" if part.startswith(":") else part for part in pattern.split("/") if part)


def test_every_route_of_the_app_is_a_200_and_anything_else_the_branded_404(built: None, get: Get) -> None:
    from tenants.app_routes import route_patterns

    patterns = route_patterns()
    assert len(patterns) > 40 and "/portal/auth/login" in patterns and "/partner/dashboard" in patterns
    for pattern in patterns:
        status, headers, _ = get("wallbox", _sample(pattern))
        assert status == 200, pattern
        assert headers["content-type"].startswith("text/html")
    # As react-router matches: any case, a trailing slash, an optional parameter left out.
    for path in ("/TERMS", "/terms/", "/validation", "/portal/auth/otp/7/", "/b2b/"):
        assert get("wallbox", path)[0] == 200, path

    for path in ("/nowhere", "/terms/more", "/portal/nowhere", "/portal/auth/otp", "/partner/x/y", "/b2b/x", "/wp-login.php"):
        status, headers, body = get("wallbox", path)
        assert status == 404, path
        # The same page, in the partner's brand: the app shows its 404 screen there.
        html = body.decode()
        assert '<meta name="thg-partner" content="wallbox" />' in html, path
        assert headers["cache-control"] == "no-cache"
    # Compressed like the 200 page.
    status, headers, body = get("wallbox", "/nowhere", "gzip")
    assert status == 404 and headers["content-encoding"] == "gzip"
    assert b'<div id="root">' in gzip.decompress(body)


def test_files_and_the_api_keep_their_own_404(built: None, get: Get) -> None:
    status, headers, body = get("autohaus", "/assets/gone-ABCDEFGH.js")
    assert status == 404 and b'<div id="root">' not in body
    status, headers, body = get("autohaus", "/api/nowhere/")
    assert status == 404 and headers["content-type"] == "application/json"


# --- a host that is no partner's -----------------------------------------------------------------


def test_an_unknown_host_gets_a_neutral_page_and_the_api_json(get: Get) -> None:
    from tenants.models import Partner

    status, headers, body = get("nobody", "/")
    html = body.decode()
    assert status == 404
    assert headers["content-type"].startswith("text/html")
    assert "Diese Adresse ist keinem Partner zugeordnet." in html
    assert '<html lang="de">' in html and 'name="viewport"' in html
    # No partner's name, colour or script: nothing of anyone's data.
    for partner in Partner.objects.all():
        assert partner.name not in html and partner.subdomain not in html
        assert str(partner.config["colors"]["button"]) not in html
    assert "<script" not in html and "thg-partner" not in html

    status, headers, body = get("nobody", "/api/configs/nobody/")
    assert status == 404 and headers["content-type"] == "application/json"
    assert body == b'{"detail": "Partner not found."}'


# --- the theme in the shell: the first paint in the partner's colours ---------------------------


@pytest.mark.parametrize("subdomain", ["autohaus", "stadtwerk", "wallbox"])
def test_the_shell_carries_the_partners_theme_for_the_first_paint(get: Get, subdomain: str) -> None:
    from tenants.models import Partner
    from themes.compiler import theme_compile

    partner = Partner.objects.get(subdomain=subdomain)
    theme = theme_compile(partner.config, partner.kind)
    _, _, body = get(subdomain, "/")
    html = body.decode()
    style = re.search(r"<style>(.*?)</style>", html, re.S)
    assert style, html
    css = style.group(1)
    assert f"--thg-primary:{theme['mui']['palette']['primary']['main']}" in css
    assert f"--thg-text:{theme['tokens']['text']}" in css
    assert f"--thg-font:{theme['mui']['typography']['fontFamily']}" in css
    # Painted from the HTML alone, before the script: the spinner in the partner's colour.
    root = html.split('<div id="root">', 1)[1]
    assert root.startswith('<div class="thg-boot" role="progressbar" aria-label="Wird geladen">')
    assert html.index("<style>") < html.index('<script type="module"')


def test_the_inlined_theme_takes_only_colours_and_fonts(client: Any) -> None:
    from tenants.web_views import theme_style
    from tenants.models import Partner

    partner = Partner.objects.get(subdomain="autohaus")
    partner.config = {**partner.config, "colors": {**partner.config["colors"], "button": "red}</style><script>x()"}}
    css = theme_style(partner)
    assert "</style><script>" not in css.removesuffix("</style>")
    assert "--thg-primary:#1976d2" in css
