"""A contributor's machines: a kernel that refuses the sandbox's protections, and a GPU workstation.

Where the kernel refuses a protection (macOS; Linux without unprivileged user namespaces, as
``MKDOCS_EXAMPLES_PORTABLE=1`` makes it), a strict build outside CI names what is missing once and
passes; under CI it fails before any example runs (the option ``require_sandbox``).

On a GPU workstation, a CUDA wheel of torch and an NVIDIA device node, the fast tests pass.

The machine is simulated for a subprocess of pytest: a ``sitecustomize`` makes ``/dev/nvidiactl``
exist, and a distribution record earlier on the path says torch is ``2.13.0+cu130`` (the real
CPU torch still imports, and sees no GPU). Under these the device an example site gets by
default (``auto``) is ``cuda``; the tests that depend on the device pin the one they test.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# the modules whose fast tests reach the device: detection itself, and the command line on the fixture site
DEVICE_TESTS = ["tests/test_cache.py", "tests/test_cli.py"]

_SITECUSTOMIZE = '''
import os.path
_exists = os.path.exists
os.path.exists = lambda path: os.fspath(path) == "/dev/nvidiactl" or _exists(path)
'''


def _workstation(tmp_path: Path) -> dict[str, str]:
    stub = tmp_path / "workstation"
    record = stub / "torch-2.13.0+cu130.dist-info"
    record.mkdir(parents=True)
    (record / "METADATA").write_text("Metadata-Version: 2.1\nName: torch\nVersion: 2.13.0+cu130\n")
    (stub / "sitecustomize.py").write_text(_SITECUSTOMIZE)
    path = os.pathsep.join(filter(None, [str(stub), os.environ.get("PYTHONPATH")]))
    return dict(os.environ, PYTHONPATH=path)


def test_the_device_tests_pass_on_a_gpu_workstation(tmp_path):
    env = _workstation(tmp_path)
    env.pop("CUDA_VISIBLE_DEVICES", None)
    seen = subprocess.run(
        [sys.executable, "-c", "from mkdocs_examples.environment import detect_device as d; print(d('auto'))"],
        env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert seen.stdout.strip() == "cuda"  # the simulation holds: an unpinned test would see a GPU
    tests = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not slow", *DEVICE_TESTS],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert tests.returncode == 0, tests.stdout[-4000:] + tests.stderr[-2000:]


def test_a_strict_build_without_the_protections_names_them_once_and_passes_outside_ci(tmp_path):
    shutil.copytree(ROOT / "tests" / "site", tmp_path / "site")
    config = tmp_path / "site" / "mkdocs.yml"
    config.write_text("strict: true\n" + config.read_text())
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env |= {"MKDOCS_EXAMPLES_PORTABLE": "1", "NO_MKDOCS_2_WARNING": "1"}  # the kernel of macOS, in effect
    command = [sys.executable, "-m", "mkdocs", "build", "-f", str(config)]
    built = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr[-3000:]
    for protection in ("namespaces", "network", "landlock", "process-limit", "memory"):
        assert built.stderr.count(f"missing protection `{protection}`") == 1, protection
    assert "WARNING -" not in built.stderr
    in_ci = subprocess.run(command, env=env | {"CI": "true"}, capture_output=True, text=True, timeout=300)
    assert in_ci.returncode != 0 and "the sandbox is required here" in in_ci.stderr
