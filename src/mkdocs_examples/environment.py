"""What an example's output depends on besides its source: package versions and the device.

Both sides use it: the build puts these into cache keys, and the forked child records the
packages an example imported. Nothing here imports MkDocs or torch.
"""

from __future__ import annotations

import os
from functools import cache
from importlib import metadata

# Device nodes of an NVIDIA driver: /dev/nvidiactl on Linux, /dev/dxg under WSL2 (whose GPUs
# have no /dev/nvidia* nodes). Either means a CUDA build of torch may see a GPU.
GPU_NODES = ("/dev/nvidiactl", "/dev/dxg")
DEVICES = ("cpu", "cuda")  # what examples run on; recordings are kept in a folder per device


@cache
def distributions() -> dict[str, list[str]]:
    """Import name -> distributions; the worker calls this once, before it forks."""
    return dict(metadata.packages_distributions())


@cache
def package_version(distribution: str) -> str:
    """The installed version of ``distribution``, or "not installed"; read once per process."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "not installed"


def detect_device(setting: str = "auto") -> str:
    """``cuda`` where a CUDA build of torch can see a GPU, else ``cpu``; decided without importing torch."""
    if setting != "auto":
        return setting
    version = package_version("torch")
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if version == "not installed" or "+cpu" in version or visible in ("", "-1"):
        return "cpu"
    return "cuda" if any(os.path.exists(node) for node in GPU_NODES) else "cpu"
