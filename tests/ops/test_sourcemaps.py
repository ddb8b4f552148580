"""Source maps: never served, given debug ids by the build (offline, deterministic), uploaded
privately by deploy/tools/sourcemaps.mjs under the release the page names, or skipped with a
message when Sentry is not configured.

The upload goes to a Sentry stand-in on a local port (SENTRY_URL): it answers the calls of
sentry-cli's chunked upload and keeps what arrives, so the test sees the bundle itself."""

from __future__ import annotations

import email.parser
import gzip
import io
import json
import os
import re
import shutil
import subprocess
import threading
import zipfile
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from common.error_reporting import web_release

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "web" / "dist"
MAPS = ROOT / "var" / "sourcemaps"
TOOL = ROOT / "deploy" / "tools" / "sourcemaps.mjs"
SENTRY_CLI = ROOT / "node_modules" / ".bin" / "sentry-cli"
UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
SNIPPET = re.compile(
    rb'^\n?!function\(\)\{try\{.*?_sentryDebugIds\[n\]="(' + UUID.encode() + rb')"\)\}catch\(e\)\{\}\}\(\);\n'
)
COMMENT = re.compile(rb"\n*//# debugId=(" + UUID.encode() + rb")\n*$")
# Nowhere to go: a tool that tried the network would fail.
OFFLINE = {
    "HTTPS_PROXY": "http://127.0.0.1:9",
    "HTTP_PROXY": "http://127.0.0.1:9",
    "SENTRY_URL": "http://127.0.0.1:9",
}


@pytest.fixture(scope="module")
def scripts() -> list[Path]:
    if not (DIST / "index.html").exists():
        pytest.fail("the web app is not built: run `npm run build:web` (make test does)")
    found = sorted((DIST / "assets").glob("*.js"))
    assert found
    return found


def _env(**extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("SENTRY_")}
    return {**env, **extra}


def test_no_map_is_under_web_dist_and_every_script_has_its_map_with_the_same_debug_id(
    scripts: list[Path],
) -> None:
    assert not list(DIST.rglob("*.map"))
    for script in scripts:
        body = script.read_bytes()
        snippet, comment = SNIPPET.match(body), COMMENT.search(body)
        assert snippet and comment, script.name
        assert snippet.group(1) == comment.group(1), script.name
        assert b"sourceMappingURL" not in body  # hidden: nothing points a browser at a map
        source_map = json.loads((MAPS / "assets" / f"{script.name}.map").read_text())
        assert source_map["debugId"] == comment.group(1).decode(), script.name
        # Injected before the compressed copies were written: they are the same file.
        compressed = script.parent / f"{script.name}.gz"
        assert len(body) < 512 or gzip.decompress(compressed.read_bytes()) == body, script.name


def test_inject_is_offline_deterministic_and_gives_the_build_its_bytes(
    scripts: list[Path], tmp_path: Path
) -> None:
    # given the entry script and its map as Vite wrote them, before the build's inject step
    entry = next(s for s in scripts if s.name.startswith("index-") and s.stat().st_size > 50_000)
    built = entry.read_bytes()
    original = COMMENT.sub(b"\n", SNIPPET.sub(b"", built, count=1), count=1)
    source_map = json.loads((MAPS / "assets" / f"{entry.name}.map").read_text())
    source_map.pop("debugId")
    source_map_text = json.dumps(source_map)
    outputs = []
    for run in ("one", "two"):
        folder = tmp_path / run / "assets"
        folder.mkdir(parents=True)
        (folder / entry.name).write_bytes(original)
        (folder / f"{entry.name}.map").write_text(source_map_text)
        # when sentry-cli injects, with no network, in two different folders
        result = subprocess.run(
            [SENTRY_CLI, "sourcemaps", "inject", str(folder.parent)],
            env=_env(**OFFLINE),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 0, result.stderr
        outputs.append((folder / entry.name).read_bytes())
        # a second run changes nothing
        subprocess.run(
            [SENTRY_CLI, "sourcemaps", "inject", str(folder.parent)], env=_env(**OFFLINE), check=True
        )
        assert (folder / entry.name).read_bytes() == outputs[-1]
        debug_id = json.loads((folder / f"{entry.name}.map").read_text())["debugId"]
        assert SNIPPET.match(outputs[-1]).group(1).decode() == debug_id  # type: ignore[union-attr]
        assert COMMENT.search(outputs[-1]).group(1).decode() == debug_id  # type: ignore[union-attr]
        assert COMMENT.sub(b"\n", SNIPPET.sub(b"", outputs[-1], count=1), count=1) == original

    # then both folders got the same bytes: the path and the time do not enter
    assert outputs[0] == outputs[1]


def _tool(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["node", str(TOOL), *args], cwd=ROOT, env=_env(**env), capture_output=True, text=True, timeout=300
    )


def test_the_upload_names_the_release_the_page_names(scripts: list[Path]) -> None:
    result = _tool("release")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == web_release((DIST / "index.html").read_bytes())


def test_without_sentry_settings_the_upload_skips_and_says_so(scripts: list[Path]) -> None:
    result = _tool("upload", SENTRY_ORG="thg", SENTRY_PROJECT="web", **OFFLINE)
    assert result.returncode == 0, result.stderr
    assert "not uploaded (SENTRY_AUTH_TOKEN not set)" in result.stdout


class FakeSentry(BaseHTTPRequestHandler):
    """The calls sentry-cli makes for a chunked artifact-bundle upload, answered like Sentry."""

    requests: list[tuple[str, str, dict[str, str]]]
    chunks: dict[str, bytes]
    assembled: list[dict[str, Any]]

    def log_message(self, *args: Any) -> None:
        pass

    def _reply(self, body: Any, status: int = 200) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802
        self.requests.append(("GET", self.path, dict(self.headers)))
        if self.path == "/api/0/organizations/thg/chunk-upload/":
            port = self.headers["Host"].rsplit(":", 1)[1]
            return self._reply(
                {
                    "url": f"http://127.0.0.1:{port}/api/0/organizations/thg/chunk-upload/",
                    "chunkSize": 8 << 20,
                    "chunksPerRequest": 64,
                    "maxFileSize": 1 << 31,
                    "maxRequestSize": 32 << 20,
                    "concurrency": 1,
                    "hashAlgorithm": "sha1",
                    "compression": ["gzip"],
                    "accept": ["artifact_bundles", "release_files", "sources"],
                }
            )
        return self._reply({"detail": "not found"}, 404)

    def do_POST(self) -> None:  # noqa: N802
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.requests.append(("POST", self.path, dict(self.headers)))
        if self.path.endswith("/chunk-upload/"):
            message = email.parser.BytesParser().parsebytes(
                f"Content-Type: {self.headers['Content-Type']}\r\n\r\n".encode() + body
            )
            parts: list[Any] = message.get_payload()  # type: ignore[assignment]
            for part in parts:
                data = part.get_payload(decode=True)
                if part.get_param("name", header="content-disposition") == "file_gzip":
                    data = gzip.decompress(data)
                self.chunks[part.get_filename()] = data
            return self._reply({})
        if self.path.endswith("/artifactbundle/assemble/"):
            request = json.loads(body)
            self.assembled.append(request)
            missing = [chunk for chunk in request["chunks"] if chunk not in self.chunks]
            return self._reply(
                {"state": "not_found" if missing else "ok", "missingChunks": missing, "detail": None}
            )
        return self._reply({"detail": "not found"}, 404)


@pytest.fixture
def fake_sentry() -> Iterator[tuple[str, type[FakeSentry]]]:
    handler = type("Handler", (FakeSentry,), {"requests": [], "chunks": {}, "assembled": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", handler
    server.shutdown()
    server.server_close()


def test_the_upload_sends_this_builds_scripts_and_maps_to_the_configured_sentry_only(
    scripts: list[Path], fake_sentry: tuple[str, type[FakeSentry]], tmp_path: Path
) -> None:
    url, sentry = fake_sentry
    # given var/sourcemaps also keeps an older build's map
    maps = tmp_path / "sourcemaps"
    shutil.copytree(MAPS, maps)
    (maps / "assets" / "index-OldBuild.js.map").write_text('{"version":3,"sources":[],"mappings":""}')

    result = _tool(
        "upload",
        SENTRY_AUTH_TOKEN="sntrys_test-token",
        SENTRY_ORG="thg",
        SENTRY_PROJECT="web",
        SENTRY_URL=url,
        SOURCEMAPS_DIR=str(maps),
        HTTPS_PROXY="http://127.0.0.1:9",
    )

    assert result.returncode == 0, result.stdout + result.stderr
    release = web_release((DIST / "index.html").read_bytes())
    assert f"{len(scripts)} scripts with their maps uploaded for {release}" in result.stdout
    # every call carried the token, to this organisation
    assert sentry.requests
    for _, path, headers in sentry.requests:
        assert path.startswith("/api/0/organizations/thg/")
        assert headers["Authorization"] == "Bearer sntrys_test-token"
    assert sentry.assembled[-1]["version"] == release and sentry.assembled[-1]["projects"] == ["web"]
    # the bundle: exactly this build's scripts and maps, linked by their debug ids
    bundle = zipfile.ZipFile(io.BytesIO(b"".join(sentry.chunks[c] for c in sentry.assembled[-1]["chunks"])))
    manifest = json.loads(bundle.read("manifest.json"))
    files = {entry["url"]: entry for entry in manifest["files"].values()}
    assert set(files) == {f"~/assets/{s.name}" for s in scripts} | {f"~/assets/{s.name}.map" for s in scripts}
    for script in scripts:
        debug_id = COMMENT.search(script.read_bytes()).group(1).decode()  # type: ignore[union-attr]
        assert files[f"~/assets/{script.name}"]["headers"]["debug-id"] == debug_id
        assert files[f"~/assets/{script.name}.map"]["headers"]["debug-id"] == debug_id
