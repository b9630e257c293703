"""Fail unless the environment holds torch's CPU build and no CUDA libraries.

CI runs this after installing: torch==2.13.0 from PyPI would pull several GB of NVIDIA
packages onto a runner that has no GPU (ci.yml points pip at PyTorch's CPU index).
"""

from __future__ import annotations

import sys
from importlib import metadata


def main() -> int:
    torch = metadata.version("torch")
    names = (d.metadata["Name"] for d in metadata.distributions())
    cuda = sorted(name for name in names if name.lower().startswith(("nvidia-", "nvidia_", "triton")))
    problems = []
    if "+cpu" not in torch:
        problems.append(f"torch {torch} is not the CPU build (expected 2.x.y+cpu from download.pytorch.org/whl/cpu)")
    if cuda:
        problems.append(f"CUDA packages are installed: {', '.join(cuda)}")
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    if not problems:
        print(f"torch {torch}, no CUDA packages")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
