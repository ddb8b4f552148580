"""One settings module, driven by environment variables with safe development defaults.

Production differs by variables only (DEBUG=0, SECRET_KEY, DATABASE_URL, REDIS_URL,
BASE_DOMAIN, ...), never by code paths.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import logging
import os
import sys
from datetime import timedelta
from pathlib import Path
from urllib.parse import unquote
from wsgiref.headers import Headers

import environ
from django.core.exceptions import ImproperlyConfigured

from config.embedded_db import embedded_database_url

BASE_DIR = Path(__file__).resolve().parents[2]
VAR_DIR = Path(os.environ.get("VAR_DIR", BASE_DIR / "var"))


# Variables are read with django-environ; a value of the wrong type stops the start with an
# ImproperlyConfigured naming the variable (not a ValueError traceback from deep inside).
ENV = environ.Env()
_TRUE, _FALSE = {"1", "true", "yes", "on"}, {"0", "false", "no", "off", ""}


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    if value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise ImproperlyConfigured(f"{name} must be one of 1/0, true/false, yes/no, on/off; got {value!r}")


def env_int(name: str, default: int) -> int:
    try:
        return int(ENV.int(name, default=default))
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number; got {os.environ[name]!r}") from None


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


# DEBUG=0 marks a deployment: secure cookies, HSTS, JSON logs, a SECRET_KEY it must be given.
# Unset (`make run`, the tests) it means the development defaults. Either way Django's own
# DEBUG (tracebacks and debug pages in responses) stays off unless a developer asks for it
# with DEBUG_PAGES=1, so no run answers a client with a traceback by default.
DEV = env_bool("DEBUG", True)
DEBUG = DEV and env_bool("DEBUG_PAGES", False)

# Keys that were ever published (in this repository's history): never accepted in any run.
PUBLISHED_SECRET_KEYS = frozenset({"dev-only-insecure-key-change-me-in-production"})


def development_secret_key(path: Path) -> str:
    """A random key made once for this checkout under var/ (0600) and kept across restarts.

    Several processes start at once (gunicorn workers, the huey consumer): the key is written
    to a private temporary file and linked into place, so every process reads the same key.
    """
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        pass
    import secrets
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".secret_key.")  # mode 0600
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_urlsafe(50))
        # Another process may have been first: its key wins.
        with contextlib.suppress(FileExistsError):
            os.link(temporary, path)
    finally:
        os.unlink(temporary)
    return path.read_text().strip()


SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEV:
        raise RuntimeError("SECRET_KEY must be set when DEBUG is off")
    SECRET_KEY = development_secret_key(VAR_DIR / "secret_key")
if SECRET_KEY in PUBLISHED_SECRET_KEYS:
    raise RuntimeError("SECRET_KEY is a published value; set a random one")

# Partner sites live on {subdomain}.{BASE_DOMAIN}; the bare BASE_DOMAIN is the public host.
BASE_DOMAIN = os.environ.get("BASE_DOMAIN", "localhost")
PUBLIC_HOSTS = [BASE_DOMAIN, *env_list("PUBLIC_HOSTS", "127.0.0.1")]
# The hops in front of the server that may set X-Forwarded-For: empty (none; the TCP peer is
# the client), a count, or a comma list of CIDRs. Read by common.client.client_ip.
TRUSTED_PROXIES = os.environ.get("TRUSTED_PROXIES", "")
# Hosts are validated by tenants.middleware.PartnerMiddleware against the Domain table
# (custom partner domains included) and PUBLIC_HOSTS; nothing unknown reaches a view.
ALLOWED_HOSTS = ["*"]
# The config-call benchmark's baseline endpoint (tests/bench); off unless asked for.
BENCH_ENDPOINTS = env_bool("BENCH_ENDPOINTS", False)

SHARED_APPS = [
    # Before django_tenants: its create_tenant, delete_tenant and clone_tenant commands are
    # replaced by refusals in tenants/management/commands (the first app with a name wins).
    "tenants",
    "django_tenants",
    "django.contrib.contenttypes",
    "django.contrib.auth",
    "accounts",
    "django.contrib.sessions",
    "django.contrib.messages",
    # Django's admin with the staff login (password, then a second factor): staff.sites.
    "staff.apps.StaffAdminConfig",
    "django.contrib.staticfiles",
    # Second factor of platform admins (public schema) and partner staff (partner schemas).
    "django_otp",
    "django_otp.plugins.otp_totp",
    "django_otp.plugins.otp_static",
    "ninja",
    "huey.contrib.djhuey",
    "django.contrib.postgres",
    # Public schema: the double-registration registry and the authority (UBA) submissions.
    "authority",
    # The onboarding console's configuration form (tenants.config_form).
    "django_jsonform",
    # The onboarding console: commands over every app (demo seeding), above them in the layering.
    "console",
]
# Each partner's schema has its own users (vehicle owners and the partner's back office),
# sessions and admin log; everything an end user creates lives there.
TENANT_APPS = [
    "django.contrib.contenttypes",
    "django.contrib.auth",
    "accounts",
    "django.contrib.sessions",
    "staff.apps.StaffAdminConfig",
    "django_otp",
    "django_otp.plugins.otp_totp",
    "django_otp.plugins.otp_static",
    # Partner staff: the admin login with its second factor (its site serves the public host too).
    "staff",
    "ninja_jwt.token_blacklist",
    "registrations",
    "billing",
    "quota",
    "operations",
]
# Exports, erasure and retention of owners' data (issue 19).
TENANT_APPS.append("privacy")
# The partner's systems: API keys and webhooks (issue 49).
TENANT_APPS.append("integrations")
INSTALLED_APPS = list(dict.fromkeys(SHARED_APPS + TENANT_APPS))

AUTH_USER_MODEL = "accounts.User"
TENANT_MODEL = "tenants.Partner"
TENANT_DOMAIN_MODEL = "tenants.Domain"
# The migrated schema every new partner is cloned from (see tenants.services).
TENANT_TEMPLATE_SCHEMA = "partner_template"

MIDDLEWARE = [
    # Probes first: any host, plain HTTP, no partner (see common.health).
    "common.health.HealthMiddleware",
    # Request counts and latency by route pattern; /metrics for allowed scrapers (common.metrics).
    "common.metrics.MetricsMiddleware",
    "common.logs.RequestLogMiddleware",
    # /api/: bodies refused before they are read, every error as JSON, Cache-Control: no-store.
    "common.api_errors.ApiErrorMiddleware",
    "tenants.middleware.PartnerMiddleware",
    # A deactivated partner answers only its configuration call (tenants.active).
    "tenants.active.InactivePartnerMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "common.security.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # request.user.is_verified(): the admin asks for a verified second factor (staff.sites).
    "django_otp.middleware.OTPMiddleware",
    # Staff sessions idle out, age out, and end with a role change (staff.sessions).
    "staff.sessions.StaffSessionMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls_tenant"
PUBLIC_SCHEMA_URLCONF = "config.urls_public"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = "config.wsgi.application"


def database_from_url(url: str) -> dict[str, object]:
    """DATABASE_URL as Django settings, with every query option kept for libpq (sslmode,
    sslrootcert, options, application_name, target_session_attrs, connect_timeout, ...)."""
    if not url.startswith(("postgres://", "postgresql://", "pgsql://")):
        raise ImproperlyConfigured("DATABASE_URL must be a postgresql:// URL")
    try:
        parsed: dict[str, object] = dict(ENV.db_url_config(url, engine="django_tenants.postgresql_backend"))
    except Exception as exc:  # django-environ raises ImproperlyConfigured, KeyError or ValueError
        raise ImproperlyConfigured(f"DATABASE_URL cannot be read ({type(exc).__name__})") from None
    options = dict(parsed.get("OPTIONS") or {})  # type: ignore[call-overload]
    # A socket folder given as ?host=/run/postgresql (the embedded server's form) or
    # percent-encoded in the host part (postgresql://u@%2Frun%2Fpostgresql/db) is the HOST.
    host = unquote(str(options.pop("host", "") or parsed.get("HOST") or ""))
    options.setdefault("connect_timeout", env_int("DB_CONNECT_TIMEOUT", 5))
    parsed.update(
        {
            "HOST": host,
            "PORT": str(parsed.get("PORT") or ""),
            # Bounded connection age: each connection caches the catalogue of every schema it
            # touched; recycling keeps that memory in check with many partners.
            "CONN_MAX_AGE": env_int("CONN_MAX_AGE", 60),
            "CONN_HEALTH_CHECKS": True,
            "OPTIONS": options,
            "TEST": {"NAME": os.environ.get("TEST_DATABASE_NAME", "test_thg")},
        }
    )
    return parsed


DATABASE_URL = os.environ.get("DATABASE_URL") or embedded_database_url(BASE_DIR)
DATABASES = {"default": database_from_url(DATABASE_URL)}
DATABASE_ROUTERS = ("django_tenants.routers.TenantSyncRouter",)

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_FUNCTION": "django_tenants.cache.make_key",
            "REVERSE_KEY_FUNCTION": "django_tenants.cache.reverse_key",
        }
    }
else:
    # File cache: shared by every process of the default run (gunicorn workers, commands),
    # so a partner change made in one process reaches the others.
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            # One folder per pytest-xdist worker (its test servers inherit the variable), so
            # one worker's cache.clear() never wipes another's counters.
            "LOCATION": str(VAR_DIR / "cache" / os.environ.get("PYTEST_XDIST_WORKER", "")),
            "KEY_FUNCTION": "django_tenants.cache.make_key",
            "REVERSE_KEY_FUNCTION": "django_tenants.cache.reverse_key",
        }
    }

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "de"
TIME_ZONE = "Europe/Berlin"
USE_I18N = True
# German texts Django's own catalogues lack (the admin's permission picker: staff/locale).
LOCALE_PATHS = [BASE_DIR / "platform" / "staff" / "locale"]
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = VAR_DIR / "static"
MEDIA_URL = "/media/"
# A folder per pytest-xdist worker (its test servers inherit PYTEST_XDIST_WORKER): one worker's
# clean-up never takes another's files.
MEDIA_ROOT = VAR_DIR / "media" / os.environ.get("PYTEST_XDIST_WORKER", "")

# The built web app: index.html for every app route, its files served at the site root.
WEB_DIST = Path(os.environ.get("WEB_DIST", BASE_DIR / "web" / "dist"))
WHITENOISE_ROOT = WEB_DIST if WEB_DIST.is_dir() else None
WHITENOISE_AUTOREFRESH = DEV
# Static files straight from the apps' folders in development, as with Django's DEBUG.
WHITENOISE_USE_FINDERS = DEV
WHITENOISE_KEEP_ONLY_HASHED_FILES = False
# Vite's hashed files (/assets/name-HASH.ext, 8 characters of base64url) never change under
# their name: cached for good in every run mode. Their .br/.gz copies are written at build.
WHITENOISE_IMMUTABLE_FILE_TEST = r"^/assets/.+-[A-Za-z0-9_-]{8}\.[A-Za-z0-9]+$"


def _whitenoise_headers(headers: Headers, path: str, url: str) -> None:
    """/index.html straight from WhiteNoise (tenants.web_views.web_app serves the app's routes) is
    revalidated on every load like the rendered shell: it names the current release's files."""
    if url == "/index.html":
        headers["Cache-Control"] = "no-cache"


WHITENOISE_ADD_HEADERS_FUNCTION = _whitenoise_headers

# Media (scans): an S3-compatible bucket when S3_BUCKET is set, else MEDIA_ROOT. Names carry
# the partner's schema as prefix; the storage checks it per call (common.storage). Credentials
# come from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (or the pod's role), read by boto3.
S3_BUCKET = os.environ.get("S3_BUCKET", "")
if S3_BUCKET:
    from botocore.config import Config as BotoConfig

    MEDIA_STORAGE: dict[str, object] = {
        "BACKEND": "common.storage.PartnerS3Storage",
        "OPTIONS": {
            "bucket_name": S3_BUCKET,
            "endpoint_url": os.environ.get("S3_ENDPOINT_URL") or None,
            "region_name": os.environ.get("S3_REGION") or None,
            "location": os.environ.get("S3_LOCATION", "media"),
            # Scans are personal data: private objects, reached only through signed URLs.
            "default_acl": None,
            "querystring_auth": True,
            "querystring_expire": 300,
            "file_overwrite": False,
            "addressing_style": os.environ.get("S3_ADDRESSING_STYLE") or None,
            "client_config": BotoConfig(
                connect_timeout=3, read_timeout=20, retries={"max_attempts": 3, "mode": "standard"}
            ),
        },
    }
else:
    MEDIA_STORAGE = {"BACKEND": "common.storage.PartnerFileSystemStorage"}
STORAGES = {
    "default": MEDIA_STORAGE,
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

SESSION_COOKIE_SECURE = not DEV
# Staff sessions (the only sessions: owners use tokens) end after this long without a request
# and this long after the login, whatever happens (staff.sessions).
STAFF_SESSION_IDLE = timedelta(minutes=env_int("STAFF_SESSION_IDLE_MINUTES", 30))
STAFF_SESSION_MAX = timedelta(hours=env_int("STAFF_SESSION_MAX_HOURS", 12))
SESSION_COOKIE_AGE = int(STAFF_SESSION_MAX.total_seconds())
CSRF_COOKIE_SECURE = not DEV
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEV)
SECURE_HSTS_SECONDS = 0 if DEV else 31_536_000
SECURE_HSTS_INCLUDE_SUBDOMAINS = not DEV
SECURE_HSTS_PRELOAD = not DEV
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# No inline script anywhere: the built index.html loads one module file, Django's admin and the
# API docs load theirs from /static/. The partner's tag manager (an https script the app
# adds when the configuration has a GTM id) is the one outside script; a tag manager's own
# "custom HTML" tags are inline and stay blocked. Styles are inserted at run time by
# styled-components (MUI), hence 'unsafe-inline' for styles only. CONTENT_SECURITY_POLICY
# replaces the whole policy; an empty value sends none.
GTM = "https://www.googletagmanager.com"
# Error reporting from the browser (web/src/shared/lib/error-reporting.ts), off by default: a
# DSN of its own (a browser project's key is public by nature, unlike SENTRY_DSN's), named in the
# page by the server, so switching it on needs no rebuild. Its ingest origin joins connect-src.
SENTRY_BROWSER_DSN = os.environ.get("SENTRY_BROWSER_DSN", "").strip()
SENTRY_ENVIRONMENT = os.environ.get("SENTRY_ENVIRONMENT", "").strip()
SENTRY_BROWSER_ORIGIN = ""
if SENTRY_BROWSER_DSN:
    from urllib.parse import urlsplit

    _dsn = urlsplit(SENTRY_BROWSER_DSN)
    if (
        _dsn.scheme not in {"https", "http"}
        or not _dsn.username
        or not _dsn.hostname
        or not _dsn.path.strip("/")
    ):
        raise ImproperlyConfigured(
            "SENTRY_BROWSER_DSN must be a Sentry DSN (https://<public key>@<host>/<project id>); "
            f"got {SENTRY_BROWSER_DSN!r}"
        )
    SENTRY_BROWSER_ORIGIN = f"{_dsn.scheme}://{_dsn.hostname}" + (f":{_dsn.port}" if _dsn.port else "")
CONTENT_SECURITY_POLICY = os.environ.get(
    "CONTENT_SECURITY_POLICY",
    "; ".join(
        [
            "default-src 'self'",
            f"script-src 'self' {GTM}",
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data: blob: https:",
            "media-src 'self' blob: https:",
            "font-src 'self' data:",
            f"connect-src 'self' {GTM} https://*.google-analytics.com https://*.analytics.google.com"
            + (f" {SENTRY_BROWSER_ORIGIN}" if SENTRY_BROWSER_ORIGIN else ""),
            f"frame-src https://www.youtube-nocookie.com {GTM}",
            "object-src 'none'",
            "base-uri 'self'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        ]
    ),
)

# Prometheus metrics at /metrics (common.metrics): off unless switched on; then only for a peer
# in these networks (the scraper, calling the pod directly) and never through a proxy.
METRICS_ENABLED = env_bool("METRICS_ENABLED", False)
METRICS_ALLOWED_NETWORKS = os.environ.get("METRICS_ALLOWED_NETWORKS", "127.0.0.1/32,::1/128")
try:
    import ipaddress

    for _network in env_list("METRICS_ALLOWED_NETWORKS", METRICS_ALLOWED_NETWORKS):
        ipaddress.ip_network(_network, strict=False)
except ValueError:
    raise ImproperlyConfigured(
        f"METRICS_ALLOWED_NETWORKS must be a comma list of networks; got {METRICS_ALLOWED_NETWORKS!r}"
    ) from None

# Error reporting to Sentry (common.error_reporting): only with SENTRY_DSN; personal data scrubbed.
SENTRY_DSN = os.environ.get("SENTRY_DSN", "")
if SENTRY_DSN:
    from common.error_reporting import init_error_reporting

    init_error_reporting(
        SENTRY_DSN,
        environment=SENTRY_ENVIRONMENT,
        release=os.environ.get("SENTRY_RELEASE", ""),
    )

# Tracing with OpenTelemetry (common.tracing): TRACING=1 or 0; unset or empty, on exactly when
# an OTLP endpoint is set (the exporter reads the standard OTEL_* variables; localhost:4318 by
# default).
_OTLP_ENDPOINT = os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT") or os.environ.get(
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
)
TRACING = env_bool("TRACING", False) if os.environ.get("TRACING", "").strip() else bool(_OTLP_ENDPOINT)

# Logs: one JSON object per line with the partner on each (common.logs), or plain text for
# a developer's terminal. No personal data: see common.logs.
LOG_FORMAT = os.environ.get("LOG_FORMAT", "text" if DEV else "json")
if LOG_FORMAT == "json":
    # Python warnings go through logging too, so they are JSON lines like everything else.
    logging.captureWarnings(True)
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"partner": {"()": "common.logs.PartnerFilter"}},
    "formatters": {
        "json": {"()": "common.logs.JsonFormatter"},
        "text": {"format": "%(levelname)s %(name)s [%(partner)s] %(message)s"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "json" if LOG_FORMAT == "json" else "text",
            "filters": ["partner"],
        }
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        # The embedded server's bookkeeping, not ours to read.
        "pgserver": {"level": "WARNING"},
        # One line per request comes from common.logs.RequestLogMiddleware; in the default
        # run gunicorn's access log shows the same.
        "thg.request": {"level": "INFO" if LOG_FORMAT == "json" else "WARNING"},
        # The huey consumer adds a handler of its own to a logger without one.
        "huey": {
            "handlers": ["console"],
            "propagate": False,
            "level": "INFO" if LOG_FORMAT == "json" else "WARNING",
        },
    },
}

# JWTs have their own key, by default derived from SECRET_KEY (never equal to it, so a token
# cannot be forged from a leaked session or bot-check secret and vice versa). Rotation: set a
# new JWT_SIGNING_KEY and put the old one into JWT_PREVIOUS_SIGNING_KEYS (comma-separated);
# tokens signed with it are still accepted (accounts.tokens) until it is removed, at the
# earliest one access lifetime later (running sessions refresh onto the new key meanwhile).
JWT_SIGNING_KEY = (
    os.environ.get("JWT_SIGNING_KEY", "")
    or hmac.new(SECRET_KEY.encode(), b"thg.jwt-signing-key", hashlib.sha256).hexdigest()
)
JWT_PREVIOUS_SIGNING_KEYS = env_list("JWT_PREVIOUS_SIGNING_KEYS")
if JWT_SIGNING_KEY in PUBLISHED_SECRET_KEYS or JWT_SIGNING_KEY == SECRET_KEY:
    raise RuntimeError("JWT_SIGNING_KEY must be its own random value")

# Tokens (django-ninja-jwt): short access tokens; refresh tokens rotate on use, the old one
# is blacklisted, and a login's refresh chain ends 30 days after it began (accounts.tokens).
NINJA_JWT = {
    "ACCESS_TOKEN_LIFETIME": timedelta(minutes=5),
    "REFRESH_TOKEN_LIFETIME": timedelta(days=30),
    "ROTATE_REFRESH_TOKENS": True,
    "BLACKLIST_AFTER_ROTATION": True,
    "UPDATE_LAST_LOGIN": False,
    "SIGNING_KEY": JWT_SIGNING_KEY,
}

# One-time codes and login links.
LOGIN_CODE_LIFETIME = timedelta(minutes=10)
LOGIN_CODE_MAX_ATTEMPTS = 5
LOGIN_SEND_INTERVAL = timedelta(seconds=60)
LOGIN_LINK_LIFETIME = timedelta(minutes=10)
# Sends per client address and hour, over all e-mail addresses (a second line of defence).
LOGIN_SENDS_PER_ADDRESS_HOUR = env_int("LOGIN_SENDS_PER_ADDRESS_HOUR", 30)

# Background tasks: huey on Redis when REDIS_URL is set, else SQLite under var/. Tests run
# tasks in-process (immediate) unless told otherwise.
HUEY_IMMEDIATE = env_bool("HUEY_IMMEDIATE", "pytest" in sys.modules)
HUEY = {
    "name": "thg",
    "immediate": HUEY_IMMEDIATE,
    "consumer": {
        "workers": env_int("HUEY_WORKERS", 2),
        "worker_type": os.environ.get("HUEY_WORKER_TYPE", "thread"),
        # A worker is recycled after this many tasks (0: never); with worker type "process"
        # that returns its memory, which grows with the partners it served.
        "max_tasks": env_int("HUEY_MAX_TASKS", 0) or None,
        # A recycled worker process is replaced at the consumer's next health check.
        "health_check_interval": 2,
        # SIGTERM (a pod stopping) lets running tasks finish, up to this many seconds, and
        # takes no new one; huey's default would interrupt them (a mail lost mid-send).
        "graceful_signal": "TERM",
        "shutdown_timeout": env_int("HUEY_SHUTDOWN_TIMEOUT", 25),
    },
}
# A worker's allocator (common.worker_memory): page-sized arrays of a scan from mmap, returned
# at free (0: glibc's dynamic threshold), and at most this many malloc arenas (0: glibc's).
WORKER_MMAP_THRESHOLD = env_int("WORKER_MMAP_THRESHOLD", 128 * 1024)
WORKER_MALLOC_ARENAS = env_int("WORKER_MALLOC_ARENAS", 2)
if REDIS_URL:
    HUEY.update({"huey_class": "huey.RedisHuey", "url": REDIS_URL})
else:
    HUEY.update(
        {
            "huey_class": "huey.SqliteHuey",
            "filename": os.environ.get("HUEY_FILENAME", str(VAR_DIR / "huey.sqlite3")),
        }
    )

# E-mail: written under var/mail/ and printed in the default run; SMTP by variables in production.
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND", "common.mail.OutboxBackend")
MAIL_DIR = Path(os.environ.get("MAIL_DIR", VAR_DIR / "mail"))
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = env_int("EMAIL_PORT", 25)
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "THG-Quote <no-reply@localhost>")
# A partner's mails go out in its name over this address (accounts.mails.mail_sender); empty:
# the address of DEFAULT_FROM_EMAIL. Replies go to MAIL_REPLY_TO when set.
MAIL_FROM_ADDRESS = os.environ.get("MAIL_FROM_ADDRESS", "")
MAIL_REPLY_TO = os.environ.get("MAIL_REPLY_TO", "")
# MAIL_QUIET silences the outbox backend even with MAIL_ECHO (never in production logs).
MAIL_QUIET = env_bool("MAIL_QUIET", not DEV)
# `make run` prints no codes or links: MAIL_ECHO=1 prints each mail to stdout as well.
MAIL_ECHO = env_bool("MAIL_ECHO", False)

# Scan intake: the limits the web app reads from /api/system_constraints/.
SCAN_MIN_SIZE = env_int("SCAN_MIN_SIZE", 500)
SCAN_MAX_PIXELS = env_int("SCAN_MAX_PIXELS", 25000000)
# Uploads per token (login) and per client address in a window (seconds); 429 beyond.
UPLOAD_LIMIT_PER_LOGIN = env_int("UPLOAD_LIMIT_PER_LOGIN", 20)
UPLOAD_LIMIT_PER_ADDRESS = env_int("UPLOAD_LIMIT_PER_ADDRESS", 60)
UPLOAD_LIMIT_WINDOW = env_int("UPLOAD_LIMIT_WINDOW", 600)
# Bulk uploads (ZIPs of up to 500 scans) per partner and window of seconds (operations.bulk).
BULK_UPLOADS_PER_WINDOW = env_int("BULK_UPLOADS_PER_WINDOW", 10)
BULK_UPLOAD_WINDOW = env_int("BULK_UPLOAD_WINDOW", 3600)
# A bulk upload still running this long after it was made is resumed, and failed after the
# second (operations.bulk.bulk_uploads_sweep, every 10 minutes).
BULK_STALE_MINUTES = env_int("BULK_STALE_MINUTES", 15)
BULK_GIVE_UP_MINUTES = env_int("BULK_GIVE_UP_MINUTES", 120)
SCAN_MAX_BYTES = 10 * 1024 * 1024
# The document check's pool (registrations.ocr_pool), per serving process: processes, checks
# queued or running before one more is refused (503; keep it below gunicorn's threads), the
# longest a request waits for its result, pages per pool process, and its CPU niceness.
OCR_WORKERS = env_int("OCR_WORKERS", 1)
OCR_MAX_IN_FLIGHT = env_int("OCR_MAX_IN_FLIGHT", 3)
OCR_WAIT_SECONDS = env_int("OCR_WAIT_SECONDS", 40)
OCR_TASKS_PER_CHILD = env_int("OCR_TASKS_PER_CHILD", 50)
# Niceness 10 in production (the web requests first); 0 in development and tests, where other
# busy processes on a shared machine would starve a niced check past OCR_WAIT_SECONDS.
OCR_NICE = env_int("OCR_NICE", 0 if DEV else 10)
# Request bodies (the scan upload is the largest) are refused beyond this before parsing.
DATA_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = SCAN_MAX_BYTES + 1024 * 1024
# A multipart body (the scan upload) beyond this, any other body beyond
# DATA_UPLOAD_MAX_MEMORY_SIZE, is answered 413 before it is read (common.api_errors).
UPLOAD_MAX_BODY_SIZE = SCAN_MAX_BYTES + 1024 * 1024
# The partner area's bulk upload: a ZIP of up to 200 MB (operations.archive).
BULK_UPLOAD_MAX_BODY_SIZE = 201 * 1024 * 1024
# Django's default, named here because the API answers more fields with a JSON 400.
DATA_UPLOAD_MAX_NUMBER_FIELDS = 1000

# `manage.py migrate_all`: partner schemas with pending migrations are migrated by this many
# processes at once (django-tenants' multiprocessing executor).
TENANT_MULTIPROCESSING_MAX_PROCESSES = env_int("MIGRATE_PROCESSES", os.cpu_count() or 2)
TENANT_MULTIPROCESSING_CHUNKS = 4

# pg_dump used to copy the partner template schema (default: the embedded server's own).
PG_DUMP = os.environ.get("PG_DUMP", "")

# The self-hosted bot check (altcha proof of work) on the portal's login, reset and signup
# forms. BOT_CHECK_ENABLED=0 switches it off for an environment; the difficulty is the
# largest number a solver may have to try (the browser needs well under a second).
BOT_CHECK_ENABLED = env_bool("BOT_CHECK_ENABLED", True)
BOT_CHECK_MAX_NUMBER = env_int("BOT_CHECK_MAX_NUMBER", 100000)

# Portal login: failed logins per username and per client address are counted; past the
# free tries each further attempt waits twice as long as the one before (capped).
LOGIN_FREE_FAILURES_PER_USERNAME = 5
LOGIN_FREE_FAILURES_PER_ADDRESS = 20
LOGIN_MAX_DELAY = timedelta(minutes=15)
# Failed logins from one address after which a correct password still needs the e-mailed code.
LOGIN_EXTRA_CHECK_AFTER_FAILURES = 3
# The admin login (staff.sites): failed password logins per username and per client address
# are counted; past the free tries each attempt waits twice as long as the one before.
ADMIN_LOGIN_FREE_FAILURES = 5
# Between the password and the second factor: how long the password step stays valid.
ADMIN_LOGIN_PENDING_SECONDS = 600
# django-otp's throttling of TOTP and backup codes: after n failures the device refuses every
# code for 2^(n-1) seconds (0 would switch it off).
OTP_TOTP_THROTTLE_FACTOR = 1
OTP_STATIC_THROTTLE_FACTOR = 1
# The device pages of the admin never show a key or QR code (an admin deletes a lost device;
# its owner enrols a new one at the next login).
OTP_ADMIN_HIDE_SENSITIVE_DATA = True
# Portal signup links stay valid longer than login links: they are read later.
SIGNUP_LINK_LIFETIME = timedelta(hours=24)
PASSWORD_RESET_TIMEOUT = 60 * 60
# The cookie that marks a browser where this user passed the e-mailed code (a known device).
DEVICE_COOKIE_NAME = "thg_device"
DEVICE_COOKIE_AGE = 365 * 24 * 3600

# Field encryption (common.crypto): street, house number, bank and card data and the VAT/tax
# number are stored as Fernet tokens. FIELD_ENCRYPTION_KEYS is a comma list of random strings
# (e.g. `python -c "import secrets; print(secrets.token_urlsafe(50))"`): the first encrypts,
# all decrypt. Rotation: prepend a new key, run `manage.py rotate_field_keys`, then remove the
# old one. Unset, the keys derive from SECRET_KEY and SECRET_KEY_FALLBACKS (HKDF, their own
# label), in development and production alike so a deployment keeps starting; production should
# set its own so a SECRET_KEY change never touches stored data (moving there: list the new key,
# then the current SECRET_KEY, and run the command once).
FIELD_ENCRYPTION_KEYS = env_list("FIELD_ENCRYPTION_KEYS")

# The double-registration registry (authority.registry) keys vehicles by HMAC-SHA256 of the
# VIN, so the public schema never holds a plain VIN. Its own key, by default derived from
# SECRET_KEY (never equal to it). Changing it orphans the registry: run
# `manage.py vehicle_registry_rebuild` afterwards (it rehashes from the partner schemas).
VIN_HASH_KEY = (
    os.environ.get("VIN_HASH_KEY", "")
    or hmac.new(SECRET_KEY.encode(), b"thg.vin-registry-key", hashlib.sha256).hexdigest()
)
if VIN_HASH_KEY in PUBLISHED_SECRET_KEYS or VIN_HASH_KEY == SECRET_KEY:
    raise RuntimeError("VIN_HASH_KEY must be its own random value")
# Custom domain verification (tenants.domains): resolvers to ask for the `_thg-verify` TXT
# record, a comma list of `ip` or `ip:port`; empty: the system's resolvers.
DOMAIN_VERIFY_NAMESERVERS = os.environ.get("DOMAIN_VERIFY_NAMESERVERS", "")
# How long a preview link (tenants.preview) is valid, in seconds (default 7 days).
PARTNER_PREVIEW_MAX_AGE = env_int("PARTNER_PREVIEW_MAX_AGE", 7 * 24 * 3600)
# Privacy (issue 19). The original scan is kept only for the authority submission:
# registrations.services.scan_original_release deletes it after the submission, or this many
# days later (ORIGINAL_SCAN_RETENTION_DAYS; 0, the default: at once).
ORIGINAL_SCAN_RETENTION = timedelta(days=env_int("ORIGINAL_SCAN_RETENTION_DAYS", 0))
# Export (Art. 15/20): the mailed link is valid this long and works once; one export per
# owner per PRIVACY_EXPORT_INTERVAL_MINUTES (429 with Retry-After before).
PRIVACY_EXPORT_LINK_LIFETIME = timedelta(hours=24)
PRIVACY_EXPORT_INTERVAL = timedelta(minutes=env_int("PRIVACY_EXPORT_INTERVAL_MINUTES", 60))
# Erasure (Art. 17): the confirmation code, as the login codes.
PRIVACY_ERASURE_CODE_LIFETIME = timedelta(minutes=10)
PRIVACY_ERASURE_CODE_MAX_ATTEMPTS = 5
# Retention (privacy.retention, a daily huey task): days after which data is deleted.
RETENTION_UNFINISHED_DAYS = env_int("RETENTION_UNFINISHED_DAYS", 30)  # registrations never finished
RETENTION_REFUSED_DAYS = env_int("RETENTION_REFUSED_DAYS", 90)  # rejected applications
RETENTION_LOGIN_DAYS = env_int("RETENTION_LOGIN_DAYS", 30)  # login codes, links, spent tokens
RETENTION_DEVICE_DAYS = env_int("RETENTION_DEVICE_DAYS", 30)  # device data of the flow
RETENTION_SCANS_AFTER_PAYOUT_DAYS = env_int("RETENTION_SCANS_AFTER_PAYOUT_DAYS", 365)
# Payout records of erased owners: kept to the end of the 10th year after the payout (AO 147).
RETENTION_PAYOUT_YEARS = env_int("RETENTION_PAYOUT_YEARS", 10)
# Accounts with no activity for this many days and nothing in progress are erased (0: never).
# Each partner may set its own periods within bounds (PartnerConfig.retention).
RETENTION_INACTIVE_ACCOUNT_DAYS = env_int("RETENTION_INACTIVE_ACCOUNT_DAYS", 0)
RETENTION_BATCH = env_int("RETENTION_BATCH", 1000)

# The partner API's keys (integrations.keys): calls per key and minute (429 beyond).
API_KEY_RATE_PER_MINUTE = env_int("API_KEY_RATE_PER_MINUTE", 120)
# Webhooks (integrations.webhooks): plain http only in the development run; private, loopback
# and link-local addresses never (a webhook must not reach into the platform's own network),
# unless WEBHOOK_PRIVATE_ALLOWED (the tests' local receiver). Seconds to connect and to answer.
WEBHOOK_HTTP_ALLOWED = env_bool("WEBHOOK_HTTP_ALLOWED", DEV)
WEBHOOK_PRIVATE_ALLOWED = env_bool("WEBHOOK_PRIVATE_ALLOWED", False)
WEBHOOK_TIMEOUT = env_int("WEBHOOK_TIMEOUT", 10)
