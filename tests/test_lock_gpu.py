"""tools/lock_gpu.py, against a stand-in PyPI; and requirements-gpu.txt against requirements.txt."""

from __future__ import annotations

import hashlib
import io
import json
import re
import sys
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import lock_gpu  # noqa: E402

PYPI = "https://pypi.org/pypi"


class StandInPyPI:
    """The parts of PyPI the tool reads: a release's JSON, a project's JSON, wheels and their metadata."""

    def __init__(self) -> None:
        self.projects: dict[str, dict[str, list[dict]]] = {}
        self.urls: dict[str, bytes] = {}
        self.fetched: list[str] = []

    def wheel(self, name: str, version: str, tag: str, requires: list[str], *, metadata_file: bool = True) -> str:
        filename = f"{name.replace('-', '_')}-{version}-{tag}.whl"
        metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
        metadata += "".join(f"Requires-Dist: {line}\n" for line in requires)
        data = io.BytesIO()
        with zipfile.ZipFile(data, "w") as archive:
            archive.writestr(f"{name.replace('-', '_')}-{version}.dist-info/METADATA", metadata)
        url = f"https://files.example/{filename}"
        self.urls[url] = data.getvalue()
        if metadata_file:
            self.urls[url + ".metadata"] = metadata.encode()
        digest = hashlib.sha256(data.getvalue()).hexdigest()
        file = {"filename": filename, "packagetype": "bdist_wheel", "yanked": False, "url": url,
                "digests": {"sha256": digest}}  # fmt: skip
        self.projects.setdefault(name, {}).setdefault(version, []).append(file)
        return digest

    def sdist(self, name: str, version: str) -> None:
        file = {"filename": f"{name}-{version}.tar.gz", "packagetype": "sdist", "yanked": False,
                "url": f"https://files.example/{name}-{version}.tar.gz", "digests": {"sha256": "0" * 64}}  # fmt: skip
        self.projects.setdefault(name, {}).setdefault(version, []).append(file)

    def __call__(self, url: str) -> bytes:
        self.fetched.append(url)
        if url in self.urls:
            return self.urls[url]
        found = re.fullmatch(rf"{PYPI}/([^/]+)/(?:([^/]+)/)?json", url)
        if found and found[1] in self.projects:
            name, version = found[1], found[2]
            if version is None:
                return json.dumps({"releases": self.projects[name]}).encode()
            if version in self.projects[name]:
                return json.dumps({"urls": self.projects[name][version]}).encode()
        raise LookupError(url)


LINUX = "cp311-cp311-manylinux_2_28_x86_64"


@pytest.fixture
def pypi() -> StandInPyPI:
    pypi = StandInPyPI()
    pypi.wheel("torch", "1.0", LINUX, [
        'nvidia-x==2.0; platform_system == "Linux"',
        'winonly; sys_platform == "win32"',
        'toolkit[cublas]==3.0; platform_system == "Linux"',
        "ranged<2,>=1.0",
        'optree; extra == "optree"',
    ])  # fmt: skip
    for tag in ("cp311-cp311-macosx_14_0_arm64", "cp311-cp311-manylinux_2_28_aarch64",
                "cp312-cp312-manylinux_2_28_x86_64", "cp311-cp311-win_amd64"):  # fmt: skip
        pypi.wheel("torch", "1.0", tag, [])
    pypi.sdist("torch", "1.0")
    pypi.wheel("nvidia-x", "2.0", "py3-none-manylinux_2_17_x86_64", [])
    pypi.wheel("toolkit", "3.0", "py3-none-any", ['nvidia-cublas==4.0.*; extra == "cublas"',
                                                  'nvidia-other==1; extra == "other"'])  # fmt: skip
    for version in ("4.0.1", "4.1.0"):
        pypi.wheel("nvidia-cublas", version, "py3-none-manylinux_2_27_x86_64", [])
    for version in ("1.0", "1.5", "2.0"):
        pypi.wheel("ranged", version, "py3-none-any", [])
    pypi.wheel("ranged", "1.9rc1", "py3-none-any", [])
    pypi.wheel("ranged", "1.7", "cp311-cp311-manylinux_2_39_x86_64", [])  # glibc newer than the job's
    return pypi


def resolve(pypi: StandInPyPI, pins: dict[str, str], *roots: str) -> lock_gpu.Resolver:
    resolver = lock_gpu.Resolver(pins, pypi)
    resolver.resolve([Requirement(root) for root in roots])
    return resolver


def test_the_closure_for_linux_x86_64_with_markers_extras_pins_and_ranges(pypi):
    resolver = resolve(pypi, {"torch": "1.0"}, "torch==1.0")
    assert resolver.chosen == {
        "torch": "1.0",
        "nvidia-x": "2.0",  # pinned by torch
        "toolkit": "3.0",
        "nvidia-cublas": "4.0.1",  # the extra torch asks for, the newest release of 4.0.*
        "ranged": "1.5",  # the newest final release below 2 with a wheel for that machine
    }  # not winonly (Windows), not nvidia-other or optree (extras nobody asked for)


def test_every_wheel_pip_could_pick_there_is_hashed_and_nothing_else(pypi):
    linux = pypi.projects["torch"]["1.0"][0]["digests"]["sha256"]
    also = pypi.wheel("torch", "1.0", "cp311-cp311-manylinux_2_17_x86_64", [])
    pypi.wheel("torch", "1.0", "cp311-cp311-musllinux_1_2_x86_64", [])
    resolver = resolve(pypi, {"torch": "1.0"}, "torch==1.0")
    assert resolver.hashes("torch") == sorted([linux, also])


def test_a_version_is_read_from_the_release_json_or_else_the_project_json(pypi):
    resolve(pypi, {"torch": "1.0"}, "torch==1.0")
    assert f"{PYPI}/torch/1.0/json" in pypi.fetched
    mirror = StandInPyPI()  # serves /pypi/<name>/json only
    mirror.projects, mirror.urls = pypi.projects, pypi.urls
    original = mirror.__call__

    def project_only(url: str) -> bytes:
        if re.fullmatch(rf"{PYPI}/[^/]+/[^/]+/json", url):
            raise LookupError(url)
        return original(url)

    resolver = lock_gpu.Resolver({"torch": "1.0"}, project_only)
    resolver.resolve([Requirement("torch==1.0")])
    assert resolver.chosen["nvidia-cublas"] == "4.0.1"


def test_without_a_metadata_file_the_wheel_itself_is_read_and_checked(pypi):
    pypi.wheel("plain", "1.0", "py3-none-any", ["ranged==1.0"], metadata_file=False)
    assert resolve(pypi, {}, "plain==1.0").chosen == {"plain": "1.0", "ranged": "1.0"}
    pypi.projects["plain"]["1.0"][0]["digests"]["sha256"] = "f" * 64
    with pytest.raises(lock_gpu.LockError, match="does not have the sha256 PyPI lists"):
        resolve(pypi, {}, "plain==1.0")


def test_a_pin_that_breaks_a_requirement_is_refused_naming_both(pypi):
    with pytest.raises(lock_gpu.LockError) as error:
        resolve(pypi, {"torch": "1.0", "ranged": "2.0"}, "torch==1.0")
    assert str(error.value) == (
        "ranged 2.0 does not satisfy torch's requirement ranged<2,>=1.0: "
        "pin a version of ranged that does in requirements.txt"
    )


def test_a_package_without_a_wheel_for_that_machine_is_refused(pypi):
    pypi.sdist("source-only", "1.0")
    message = "source-only 1.0 has no wheel for CPython 3.11 on Linux x86-64"
    with pytest.raises(lock_gpu.LockError, match=re.escape(message)):
        resolve(pypi, {}, "source-only==1.0")


def test_main_writes_the_lock_from_requirements_and_pyproject(pypi, tmp_path):
    (tmp_path / "requirements.txt").write_text("# pins\ntorch==1.0\nnumpy==1.0\nmatplotlib==1.0\nmkdocs==1.0\n-e .\n")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\ndependencies = ["mkdocs>=1"]\n')
    for name in ("numpy", "matplotlib", "mkdocs"):
        pypi.wheel(name, "1.0", "py3-none-any", [])
    assert lock_gpu.main(["--root", str(tmp_path)], fetch=pypi) == 0
    text = (tmp_path / "requirements-gpu.txt").read_text()
    assert f"torch==1.0 \\\n    --hash=sha256:{pypi.projects['torch']['1.0'][0]['digests']['sha256']}\n" in text
    assert "    # via torch\n" in text and "\nwinonly" not in text
    (tmp_path / "requirements.txt").write_text("torch>=1.0\n")
    assert lock_gpu.main(["--root", str(tmp_path)], fetch=pypi) == 1


def _locked(text: str) -> dict[str, tuple[str, list[str]]]:
    entries = {}
    for block in re.split(r"\n(?=\S)", text):
        if block.startswith("#") or not block.strip():
            continue
        name, version = re.match(r"([\w.-]+)==(\S+)", block).groups()
        entries[name] = (version, re.findall(r"--hash=sha256:([0-9a-f]{64})", block))
    return entries


def test_the_committed_gpu_lock_agrees_with_requirements_txt():
    # requirements-gpu.txt is written by `make lock-gpu`: a pin changed in requirements.txt without it fails here
    pins = lock_gpu.read_pins(ROOT / "requirements.txt")
    locked = _locked((ROOT / "requirements-gpu.txt").read_text(encoding="utf-8"))
    for root in lock_gpu.roots(pins, ROOT / "pyproject.toml"):
        assert root.name in locked, f"requirements-gpu.txt lacks {root.name}: run make lock-gpu"
    for name, (version, hashes) in locked.items():
        assert hashes, f"requirements-gpu.txt: {name} has no hash"
        if name in pins:
            assert pins[name] == version, f"{name}: {version} in requirements-gpu.txt, {pins[name]} in requirements.txt"
    assert any(name.startswith("nvidia-") for name in locked), "torch's CUDA libraries are not in the lock"
