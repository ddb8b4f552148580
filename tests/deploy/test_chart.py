"""The Helm chart, the compose file and the Dockerfile, checked for the invariants that keep
production safe: probes, non-root, resources, secrets only by reference, the migrate hook,
connection recycling, and every setting of config/settings.py provided."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
CHART = ROOT / "deploy" / "helm"
HELM = shutil.which("helm") or (
    str(ROOT / "var" / "tools" / "helm") if (ROOT / "var/tools/helm").exists() else None
)
SECRET_SETTINGS = {
    "SECRET_KEY",
    "DATABASE_URL",
    "REDIS_URL",
    "EMAIL_HOST_USER",
    "EMAIL_HOST_PASSWORD",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "JWT_SIGNING_KEY",
    "VIN_HASH_KEY",
    "JWT_PREVIOUS_SIGNING_KEYS",
    "SENTRY_DSN",
    "FIELD_ENCRYPTION_KEYS",
}
# Read by settings.py but not for a production pod: the default run and the tests, or set by
# the image itself (Dockerfile ENV).
NOT_FOR_PODS = {
    "DEBUG",  # the image sets DEBUG=0
    "VAR_DIR",
    "WEB_DIST",
    "MAIL_DIR",
    "TEST_DATABASE_NAME",
    "BENCH_ENDPOINTS",
    "HUEY_IMMEDIATE",
    "WEBHOOK_PRIVATE_ALLOWED",  # the tests' local webhook receiver; production keeps it off
    "HUEY_FILENAME",
    "PUBLIC_HOSTS",
    "PG_DUMP",
    "MAIL_QUIET",
    "CONTENT_SECURITY_POLICY",
    # OpenTelemetry's own variables: set in values' config only with a collector (an empty
    # endpoint would be an endpoint for the exporter); TRACING is there.
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "S3_ADDRESSING_STYLE",
    "SCAN_MIN_SIZE",
    "SCAN_MAX_PIXELS",
    "DEBUG_PAGES",  # development only: production never shows debug pages
    "MAIL_ECHO",  # development only: mails printed to stdout
    "PYTEST_XDIST_WORKER",  # the test runner's worker name (a cache folder per worker)
}


def helm(*args: str) -> str:
    if HELM is None:
        pytest.skip("helm is not installed (make install fetches it into var/tools)")
    result = subprocess.run([HELM, *args], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return result.stdout


def render(*sets: str) -> list[dict[str, Any]]:
    args = ["template", "thg", str(CHART), "--set", "customDomains[0]=thg.stadtwerk.example"]
    for item in sets:
        args += ["--set", item]
    return [doc for doc in yaml.safe_load_all(helm(*args)) if doc]


def by_kind(docs: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [doc for doc in docs if doc["kind"] == kind]


def workloads(docs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Deployments and the Job by component, each as its pod spec."""
    return {
        doc["metadata"]["labels"]["app.kubernetes.io/component"]: doc["spec"]["template"]["spec"]
        for doc in docs
        if doc["kind"] in {"Deployment", "Job"}
    }


def env_of(container: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {entry["name"]: entry for entry in container.get("env", [])}


def settings_variables() -> set[str]:
    source = (ROOT / "platform" / "config" / "settings.py").read_text()
    return set(re.findall(r"""(?:os\.environ\.get|env_bool|env_int|env_list)\(\s*"([A-Z0-9_]+)\"""", source))


def test_helm_lint_passes() -> None:
    assert "0 chart(s) failed" in helm("lint", str(CHART))


def test_web_worker_and_migrate_run_the_one_image_non_root_with_resources() -> None:
    docs = render()
    pods = workloads(docs)

    assert set(pods) == {"web", "worker", "migrate"}
    commands = {name: pod["containers"][0]["command"] for name, pod in pods.items()}
    assert commands == {
        "web": ["gunicorn", "-c", "deploy/gunicorn.conf.py"],
        "worker": ["python", "manage.py", "run_worker"],
        "migrate": ["python", "manage.py", "migrate_all"],
    }
    assert len({pod["containers"][0]["image"] for pod in pods.values()}) == 1
    for name, pod in pods.items():
        assert pod["securityContext"]["runAsNonRoot"] is True, name
        assert pod["securityContext"]["runAsUser"] != 0, name
        assert pod["automountServiceAccountToken"] is False, name
        for container in pod["containers"]:
            security = container["securityContext"]
            assert security["allowPrivilegeEscalation"] is False, name
            assert security["readOnlyRootFilesystem"] is True, name
            assert security["capabilities"]["drop"] == ["ALL"], name
            # a read-only root needs a writable /tmp (Tesseract's temporary files)
            assert {"name": "tmp", "mountPath": "/tmp"} in container["volumeMounts"], name
            resources = container["resources"]
            assert resources["requests"]["cpu"] and resources["requests"]["memory"], name
            assert resources["limits"]["memory"], name


def test_web_probes_healthz_and_readyz() -> None:
    web = workloads(render())["web"]["containers"][0]

    assert web["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert web["startupProbe"]["httpGet"]["path"] == "/healthz"
    assert web["readinessProbe"]["httpGet"]["path"] == "/readyz"
    for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
        assert web[probe]["httpGet"]["port"] == "http"
    assert {"name": "http", "containerPort": 8000} in web["ports"]


def test_migrate_job_is_a_pre_install_and_pre_upgrade_hook_with_its_own_env() -> None:
    docs = render()
    (job,) = by_kind(docs, "Job")
    annotations = job["metadata"]["annotations"]

    assert set(annotations["helm.sh/hook"].split(",")) == {"pre-install", "pre-upgrade"}
    assert "before-hook-creation" in annotations["helm.sh/hook-delete-policy"]
    pod = job["spec"]["template"]["spec"]
    assert pod["restartPolicy"] == "Never"
    container = pod["containers"][0]
    # A pre-install hook runs before the release's ConfigMap exists: no envFrom on it.
    assert "envFrom" not in container
    (configmap,) = by_kind(docs, "ConfigMap")
    assert set(configmap["data"]) <= set(env_of(container))


def test_secrets_only_by_reference_and_every_setting_provided() -> None:
    docs = render()
    (configmap,) = by_kind(docs, "ConfigMap")

    assert not by_kind(docs, "Secret")
    assert not SECRET_SETTINGS & set(configmap["data"])
    provided_by_image = {"DEBUG"}
    for name, pod in workloads(docs).items():
        container = pod["containers"][0]
        env = env_of(container)
        for secret in SECRET_SETTINGS:
            assert "value" not in env[secret], (name, secret)
            assert env[secret]["valueFrom"]["secretKeyRef"]["name"] == "thg-platform", (name, secret)
        provided = set(env) | (set(configmap["data"]) if container.get("envFrom") else set())
        missing = settings_variables() - provided - NOT_FOR_PODS - provided_by_image
        # Only the worker's and web's own knobs may be absent from the other containers.
        missing -= {
            "HUEY_WORKERS",
            "HUEY_WORKER_TYPE",
            "HUEY_MAX_TASKS",
            "HUEY_SHUTDOWN_TIMEOUT",
            "MIGRATE_PROCESSES",
            "WORKER_MALLOC_ARENAS",
            "WORKER_MMAP_THRESHOLD",
        }
        assert not missing, (name, missing)


def test_values_hold_no_secret_values() -> None:
    values = yaml.safe_load((CHART / "values.yaml").read_text())
    suspicious = re.compile(r"(?i)password|secret|token|credential|private")

    def walk(node: Any, path: str) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                walk(value, f"{path}.{key}")
        elif isinstance(node, list):
            for index, value in enumerate(node):
                walk(value, f"{path}[{index}]")
        elif isinstance(node, str) and node and suspicious.search(path):
            # Under secretEnv and ingress.tls the values are names of Secrets and their keys.
            assert path.startswith((".secretEnv.", ".ingress.tls.")), path

    walk(values, "")
    assert set(values["secretEnv"]["keys"]) == SECRET_SETTINGS
    assert "://" not in yaml.safe_dump(values["config"]).replace('S3_ENDPOINT_URL: ""', "")


def test_connection_age_and_worker_recycling_defaults() -> None:
    docs = render()
    (configmap,) = by_kind(docs, "ConfigMap")
    pods = workloads(docs)
    web, worker = env_of(pods["web"]["containers"][0]), env_of(pods["worker"]["containers"][0])

    assert 0 < int(configmap["data"]["CONN_MAX_AGE"]) <= 300
    assert int(web["GUNICORN_MAX_REQUESTS"]["value"]) > 0
    assert int(web["GUNICORN_MAX_REQUESTS_JITTER"]["value"]) > 0
    assert worker["HUEY_WORKER_TYPE"]["value"] == "process"
    assert int(worker["HUEY_MAX_TASKS"]["value"]) > 0
    # gunicorn stops before the kubelet kills it
    grace = pods["web"]["terminationGracePeriodSeconds"]
    assert int(web["GUNICORN_GRACEFUL_TIMEOUT"]["value"]) < grace


def test_ingress_serves_the_wildcard_the_base_domain_and_custom_domains() -> None:
    docs = render("baseDomain=thg.example.net")
    (ingress,) = by_kind(docs, "Ingress")
    hosts = [rule["host"] for rule in ingress["spec"]["rules"]]

    assert hosts == ["*.thg.example.net", "thg.example.net", "thg.stadtwerk.example"]
    tls_hosts = [host for entry in ingress["spec"]["tls"] for host in entry["hosts"]]
    assert sorted(tls_hosts) == sorted(hosts)
    backends = {rule["http"]["paths"][0]["backend"]["service"]["name"] for rule in ingress["spec"]["rules"]}
    (service,) = by_kind(docs, "Service")
    assert backends == {service["metadata"]["name"]}
    assert ingress["metadata"]["annotations"]["nginx.ingress.kubernetes.io/proxy-body-size"] == "12m"


def test_web_scales_by_hpa_or_by_fixed_replicas() -> None:
    docs = render()
    (hpa,) = by_kind(docs, "HorizontalPodAutoscaler")
    web = next(doc for doc in by_kind(docs, "Deployment") if doc["metadata"]["name"].endswith("-web"))

    assert hpa["spec"]["scaleTargetRef"]["name"] == web["metadata"]["name"]
    assert "replicas" not in web["spec"]  # the HPA owns it
    fixed = render("web.autoscaling.enabled=false", "web.replicas=3")
    assert not by_kind(fixed, "HorizontalPodAutoscaler")
    web = next(doc for doc in by_kind(fixed, "Deployment") if doc["metadata"]["name"].endswith("-web"))
    assert web["spec"]["replicas"] == 3


def test_a_secret_left_out_is_not_referenced() -> None:
    # Pods with an IAM role for S3 need no access keys.
    pods = workloads(
        render("secretEnv.keys.AWS_ACCESS_KEY_ID=null", "secretEnv.keys.AWS_SECRET_ACCESS_KEY=null")
    )

    for pod in pods.values():
        assert not {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"} & set(env_of(pod["containers"][0]))


def test_compose_runs_the_production_shape_with_health_checks() -> None:
    compose = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())
    services = compose["services"]

    assert {"postgres", "redis", "minio", "migrate", "web", "worker"} <= set(services)
    for name in ("postgres", "redis", "minio", "web", "worker"):
        assert services[name]["healthcheck"]["test"], name
    assert services["web"]["command"][0] == "gunicorn"
    assert services["worker"]["command"][-1] == "run_worker"
    assert services["worker"]["environment"]["WORKER_HEALTH_PORT"] == "9100"
    assert "9100/healthz" in " ".join(services["worker"]["healthcheck"]["test"])
    assert services["migrate"]["command"][-1] == "migrate_all" and services["migrate"]["restart"] == "no"
    assert services["migrate"]["depends_on"] == {
        "postgres": {"condition": "service_healthy"},
        "redis": {"condition": "service_healthy"},
    }
    for name in ("web", "worker"):
        assert services[name]["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}
        assert services[name]["image"] == services["migrate"]["image"]
        env = services[name]["environment"]
        assert env["DEBUG"] == "0" and env["REDIS_URL"].startswith("redis://") and env["S3_BUCKET"]
        # no default for the key: compose refuses to start without one
        assert env["SECRET_KEY"].startswith("${SECRET_KEY:?")
    assert "readyz" in " ".join(services["web"]["healthcheck"]["test"])


def test_dockerfile_builds_the_web_app_and_runs_non_root_with_tesseract() -> None:
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    stages = re.findall(r"^FROM (\S+) AS (\S+)", dockerfile, re.MULTILINE)

    assert [stage for _, stage in stages] == ["web", "python-deps", "runtime"]
    assert "npm ci " in dockerfile and "npm run build:web" in dockerfile
    # Storybook is built by make test and hosted apart from the partner sites, not shipped
    assert "storybook" not in re.sub(r"(?m)^#.*$", "", dockerfile)
    assert re.search(r"apt-get install[^\n]*tesseract-ocr tesseract-ocr-deu", dockerfile)
    user = re.findall(r"^USER (\S+)", dockerfile, re.MULTILINE)
    assert user and not user[-1].startswith(("root", "0"))
    assert 'CMD ["gunicorn", "-c", "deploy/gunicorn.conf.py"]' in dockerfile
    # every path the build copies from the context exists and passes the ignore file
    sources = [
        part
        for line in re.findall(r"^COPY (?!--from)(.+)$", dockerfile, re.MULTILINE)
        for part in line.split()[:-1]
    ]
    ignore = (ROOT / "deploy" / "Dockerfile.dockerignore").read_text().split()
    for source in sources:
        assert (ROOT / source).exists(), source
        assert f"!{source}" in ignore or f"!{source}/**" in ignore, source
    # the image holds every top-level source root of the installed apps
    from django.conf import settings

    roots = {app.split(".")[0] for app in settings.INSTALLED_APPS}
    local = {root for root in roots if (ROOT / root).is_dir() or (ROOT / "platform" / root).is_dir()}
    assert local <= {
        "tenants", "themes", "accounts", "registrations", "billing", "quota", "config", "staff",
        "operations", "authority", "privacy", "console", "integrations",
    }  # fmt: skip
    assert {"platform", "tenants", "themes"} <= set(sources)
    # developer tools and tests stay out of the image, and so do their commands (tools/)
    assert not {source.split("/")[0] for source in sources} & {"tests", "tools"}
    assert "**" in ignore and not [line for line in ignore if line.startswith(("!tests", "!tools"))]
    from django.core.management import get_commands

    assert not {"demo_totp", "export_partner_fixtures"} & set(get_commands())


def test_web_pods_are_scraped_with_metrics_summed_over_workers() -> None:
    docs = render()
    web = next(
        doc
        for doc in docs
        if doc["kind"] == "Deployment" and doc["metadata"]["labels"]["app.kubernetes.io/component"] == "web"
    )
    annotations = web["spec"]["template"]["metadata"]["annotations"]
    container = web["spec"]["template"]["spec"]["containers"][0]

    assert annotations["prometheus.io/scrape"] == "true"
    assert annotations["prometheus.io/path"] == "/metrics"
    assert env_of(container)["PROMETHEUS_MULTIPROC_DIR"]["value"].startswith("/tmp/")


def test_the_worker_is_probed_scraped_and_stops_gracefully() -> None:
    docs = render()
    worker = next(
        doc
        for doc in docs
        if doc["kind"] == "Deployment"
        and doc["metadata"]["labels"]["app.kubernetes.io/component"] == "worker"
    )
    pod = worker["spec"]["template"]
    container = pod["spec"]["containers"][0]
    env = env_of(container)
    port = int(env["WORKER_HEALTH_PORT"]["value"])

    # liveness: run_worker's /healthz on its named port
    assert container["ports"] == [{"name": "health", "containerPort": port}]
    assert container["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "health"}
    # scraped on the same port; process workers' values summed through the multiprocess folder
    annotations = pod["metadata"]["annotations"]
    assert annotations["prometheus.io/scrape"] == "true"
    assert annotations["prometheus.io/port"] == str(port)
    assert annotations["prometheus.io/path"] == "/metrics"
    assert env["PROMETHEUS_MULTIPROC_DIR"]["value"].startswith("/tmp/")
    # a running task gets its shutdown timeout before Kubernetes kills the pod
    assert int(env["HUEY_SHUTDOWN_TIMEOUT"]["value"]) < pod["spec"]["terminationGracePeriodSeconds"]


def test_the_grafana_dashboard_asks_only_for_metrics_the_code_exports() -> None:
    from common import metrics

    dashboard = json.loads((ROOT / "deploy" / "grafana-dashboard.json").read_text())
    exported = {
        "thg_task_queue_length",
        *(
            collector._name  # type: ignore[attr-defined]
            for collector in vars(metrics).values()
            if hasattr(collector, "_name") and hasattr(collector, "_type")
        ),
    }
    asked = {
        re.sub(r"_(total|bucket|sum|count)$", "", name)
        for panel in dashboard["panels"]
        for target in panel["targets"]
        for name in re.findall(r"\bthg_[a-z_]+", target["expr"])
    }

    assert asked and asked <= exported, asked - exported
    assert {
        "thg_tasks",
        "thg_task_duration_seconds",
        "thg_mails",
        "thg_logins",
        "thg_task_queue_length",
    } <= asked
