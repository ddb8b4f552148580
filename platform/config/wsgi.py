import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
for entry in (ROOT, ROOT / "platform"):
    if str(entry) not in sys.path:
        sys.path.insert(0, str(entry))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from django.core.wsgi import get_wsgi_application  # noqa: E402

# Imported in each gunicorn worker, after the fork: tracing (when on) starts here, before the
# app loads its middleware, so its exporter thread lives in the worker (common.tracing).
from common.tracing import init_tracing  # noqa: E402

init_tracing(service_name="thg-web")

application = get_wsgi_application()
