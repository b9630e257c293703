# %% [markdown]
# Which PyTorch is installed: a CPU or a CUDA build, the versions of torch,
# CUDA and cuDNN, why torch.cuda.is_available() is False, and the lines of
# collect_env to paste into a bug report

# %% [markdown] lang="zh"
# 装的是哪个 PyTorch：CPU 版还是 CUDA 版，torch、CUDA 与 cuDNN 的版本号，
# `torch.cuda.is_available()` 为什么是 `False`，以及提交 bug 报告时要贴的 collect_env 信息

# %% check tags=["environment"]
import torch

print(torch.__version__)  # after the +: which build (cpu, cu128, ...)
print(torch.version.cuda)  # the CUDA it was built with; None: a CPU build
print(torch.cuda.is_available())  # can it use a GPU here, now?
print(torch.cuda.device_count())  # how many GPUs it sees
print(torch.backends.cudnn.is_available())  # cuDNN comes with CUDA builds
print(torch.backends.cudnn.version())  # an int: 90100 is cuDNN 9.1.0
print(torch.backends.mps.is_available())  # the GPU of an Apple silicon Mac

# %% check-checks tags=["remove-cell"]
import sys
from importlib import metadata

cpu_build = torch.version.cuda is None and torch.version.hip is None
if cpu_build:  # no CUDA and no cuDNN, whatever the machine has
    assert not torch.backends.cuda.is_built()
    assert not torch.cuda.is_available() and torch.cuda.device_count() == 0
    assert not torch.backends.cudnn.is_available()
    assert torch.backends.cudnn.version() is None
if torch.version.cuda is not None:  # a CUDA build, with a GPU or without one
    assert torch.backends.cuda.is_built()
    assert torch.backends.cudnn.is_available()
    cudnn = torch.backends.cudnn.version()
    assert isinstance(cudnn, int)
    # cuDNN 9 numbers itself major * 10000 + minor * 100 + patch: the pip
    # package that brings it to Linux wheels says the same version
    try:
        wheel = metadata.version(f"nvidia-cudnn-cu{torch.version.cuda.split('.')[0]}")
    except metadata.PackageNotFoundError:
        wheel = None  # Windows wheels carry their cuDNN in torch/lib
    if wheel is not None:
        major, minor, patch = (int(part) for part in wheel.split(".")[:3])
        assert major >= 9 and cudnn == major * 10000 + minor * 100 + patch
    if sys.platform == "linux":  # pip brings CUDA's libraries: no toolkit needed
        requires = metadata.requires("torch") or []
        assert any(r.startswith("nvidia-") for r in requires), requires
assert torch.cuda.is_available() == (torch.cuda.device_count() > 0)
if torch.cuda.is_available():
    assert not cpu_build
if sys.platform != "darwin":
    assert not torch.backends.mps.is_available()  # MPS is macOS only

# %% version-parts tags=["environment"]
release, _, local = torch.__version__.partition("+")
print(release)  # major.minor.patch
print(local or "none")  # cpu, cu128, rocm6.4, ...: the build; none from PyPI

# %% version-parts-checks tags=["remove-cell"]
import re

assert re.fullmatch(r"\d+\.\d+\.\d+", release)
if local == "cpu":
    assert cpu_build
if local.startswith("cu"):  # cu121 is CUDA 12.1, cu130 is CUDA 13.0
    assert torch.version.cuda == f"{local[2:-1]}.{local[-1]}"

# %% compare
from torch.torch_version import TorchVersion

print("2.10.0" >= "2.4")  # strings compare letters: "1" < "4"
print(TorchVersion("2.10.0") >= "2.4")  # versions compare numbers
print(TorchVersion("2.10.0+cu128") >= (2, 10))  # a tuple works too
print(TorchVersion("2.10.0+cu128") == "2.10.0")  # the local part counts
print(TorchVersion("2.11.0.dev20260101") >= "2.11")  # a nightly is below 2.11
print(isinstance(torch.__version__, TorchVersion), torch.__version__ >= "2.4")

# %% compare-checks tags=["remove-cell"]
assert not "2.10.0" >= "2.4" and TorchVersion("2.10.0") >= "2.4"
assert float("2.10.0+cu128"[:3]) == 2.1  # the other way to get it wrong
assert TorchVersion("2.10.0+cu128") >= (2, 10)
assert TorchVersion("2.10.0+cu128") != "2.10.0"
assert TorchVersion("2.10.0+cu128") > "2.10.0"
assert TorchVersion("2.10.0+cu128").split("+")[0] == "2.10.0"  # still a str
assert not TorchVersion("2.11.0.dev20260101") >= "2.11"
assert TorchVersion("2.11.0.dev20260101") >= "2.10"
assert isinstance(torch.__version__, str) and torch.__version__ >= "2.4"
assert torch.__version__ >= release and torch.__version__ >= (2, 4)

# %% why-no-gpu tags=["environment"]
def why_no_gpu():
    if torch.cuda.is_available():
        return "a GPU is available"
    if not torch.backends.cuda.is_built():
        return "a CPU-only build of torch: install a CUDA build"
    return "a CUDA build that finds no GPU: driver, CUDA_VISIBLE_DEVICES"


print(why_no_gpu())

# %% why-no-gpu-checks tags=["remove-cell"]
if cpu_build:
    assert why_no_gpu().startswith("a CPU-only build")
if torch.version.cuda is not None and not torch.cuda.is_available():
    assert why_no_gpu().startswith("a CUDA build that finds no GPU")

# %% accelerator tags=["environment"]
if hasattr(torch, "accelerator"):  # torch 2.6 and later
    print(torch.accelerator.is_available())  # CUDA, MPS, XPU, ...: any

# %% accelerator-checks tags=["remove-cell"] holds=">=2.6" claim="`torch.accelerator` exists, with `is_available()`"
assert hasattr(torch, "accelerator")
if torch.cuda.is_available() or torch.backends.mps.is_available():
    assert torch.accelerator.is_available()
if cpu_build and sys.platform != "darwin":
    assert not torch.accelerator.is_available()

# %% collect-env tags=["environment"]
import subprocess
import sys

report = subprocess.run(
    [sys.executable, "-m", "torch.utils.collect_env"],
    capture_output=True, text=True, check=True,
).stdout
for line in report.splitlines():
    # the other lines name this machine: its OS, CPU, GPU, packages
    if line.startswith(("PyTorch version", "Is debug", "Is CUDA available")):
        print(line)

# %% collect-env-checks tags=["remove-cell"]
import inspect

from torch.utils import collect_env

fields = dict(line.split(": ", 1) for line in report.splitlines() if ": " in line)
assert fields["PyTorch version"] == torch.__version__
assert fields["Is debug build"] == str(torch.version.debug) == "False"
assert fields["Is CUDA available"] == str(torch.cuda.is_available())
# what torch was built with: a CPU build's None reads "None" or "Could not collect"
if torch.version.cuda is None:
    assert fields["CUDA used to build PyTorch"] in ("None", "Could not collect")
else:
    assert fields["CUDA used to build PyTorch"] == torch.version.cuda
for name in ("OS", "Python version", "GPU models and configuration", "Nvidia driver version",
             "CUDA runtime version", "cuDNN version"):
    assert name in fields, name
assert "Versions of relevant libraries:" in report
# "CUDA runtime version" is the toolkit's nvcc on the PATH, "cuDNN version" the libraries the system has:
# neither is read from torch
assert "nvcc --version" in inspect.getsource(collect_env.get_running_cuda_version)
assert "torch" not in inspect.getsource(collect_env.get_running_cuda_version)
if sys.platform == "linux":
    assert "ldconfig" in inspect.getsource(collect_env.get_cudnn_version)

# %% config tags=["environment"]
config = torch.__config__.show()
print(config.splitlines()[0])
settings = config.split("Build settings: ")[1].split(", ")
for item in settings:
    if item.startswith(("USE_CUDA=", "USE_CUDNN=")):  # how it was built
        print(item)

# %% config-checks tags=["remove-cell"]
assert config.startswith("PyTorch built with:")
assert "CPU capability usage:" in config  # the processor this runs on: AVX2, AVX512, ...
built = dict(item.split("=", 1) for item in settings if "=" in item)
assert (built["USE_CUDA"] not in ("0", "OFF")) == (torch.version.cuda is not None)
assert (built["USE_CUDNN"] not in ("0", "OFF")) == torch.backends.cudnn.is_available()
# the CUDA runtime and cuDNN are listed where a GPU is there, not on a CUDA build without one
if torch.version.hip is None:
    assert ("  - CUDA Runtime " in config) == torch.cuda.is_available()

# %% windows-checks tags=["remove-cell"]
# torch/__init__.py loads its DLLs on Windows: the message of a DLL that fails to load, and the advice printed
# before it where the Visual C++ runtime is missing
source = inspect.getsource(torch)
assert 'Error loading "{dll}" or one of its dependencies.' in source
assert "Microsoft Visual C++ Redistributable is not installed" in source
assert "vc_redist.x64.exe" in source
# by name, in either quotes: torch 2.4's source writes 'vcruntime140.dll'
assert all(re.search(rf"ctypes\.CDLL\(['\"]{dll}['\"]\)", source) for dll in ("vcruntime140.dll", "msvcp140.dll"))
# the advice comes first, before the DLLs of torch's lib folder are loaded
assert source.index("Microsoft Visual C++ Redistributable") < source.index("Error loading")
assert re.search(r"os\.path\.join\(os\.path\.dirname\(__file__\), ['\"]lib['\"]\)", source)  # torch's lib folder

# %% package-name tags=["environment"]
from importlib import metadata

print(metadata.version("torch"))  # what pip installed: named torch on PyPI
print(torch.__version__)  # the module you import, torch too
print(metadata.packages_distributions()["torch"])  # import torch comes from it

# %% package-name-checks tags=["remove-cell"]
import importlib.util

# the same release; the build after a + is in the metadata only where the wheel's name has it
installed = metadata.version("torch")
assert installed.split("+")[0] == torch.__version__.split("+")[0]
assert "+" not in installed or installed == torch.__version__

assert metadata.packages_distributions()["torch"] == ["torch"]
assert importlib.util.find_spec("pytorch") is None  # no module named pytorch

# %% driver-vs-build
from torch.torch_version import TorchVersion


def driver_is_new_enough(driver_cuda, build_cuda):
    """The CUDA Version of nvidia-smi against torch.version.cuda"""
    if build_cuda is None:
        return True  # a CPU build needs no driver
    return TorchVersion(driver_cuda) >= build_cuda  # nvcc plays no part


print(driver_is_new_enough("13.0", "12.8"))  # a newer driver runs older builds
print(driver_is_new_enough("12.8", "12.8"))
print(driver_is_new_enough("12.4", "12.8"))  # older: update the driver

# %% driver-vs-build-checks tags=["remove-cell"]
assert driver_is_new_enough("13.0", "12.8") and driver_is_new_enough("12.8", "12.8")
assert not driver_is_new_enough("12.4", "12.8")
assert driver_is_new_enough("12.10", "12.8")  # numbers, not letters
assert driver_is_new_enough("12.4", None)
# nvcc's version counts only to compile a C++/CUDA extension against torch: torch's
# extension builder runs nvcc --version and compares its major version with
# torch.version.cuda (a minor difference only warns)
from pathlib import Path

builder = (Path(torch.__file__).parent / "utils" / "cpp_extension.py").read_text()
check = builder[builder.index("def _check_cuda_version"):]
check = check[: check.index("\ndef ")]
assert "--version" in check and "torch.version.cuda" in check
assert "cuda_ver.major != torch_cuda_version.major" in check
assert re.search(r"raise RuntimeError\(\s*CUDA_MISMATCH_MESSAGE", check)
assert re.search(r"(logger\.warning|warnings\.warn)\(\s*CUDA_MISMATCH_WARN", check)

# %% python-for-pip tags=["environment"]
import platform
import re
import struct
import sys
from importlib import metadata

print(sys.version, platform.machine())  # the Python that runs, the processor
print(struct.calcsize("P") * 8, "bit")  # 32 bit: no torch wheel for it
wheel = metadata.metadata("torch")  # what this torch's wheel declares
print("Requires-Python:", wheel["Requires-Python"])
pythons = sorted(
    (c.rsplit(" :: ", 1)[1] for c in wheel.get_all("Classifier") or []
     if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)),
    key=lambda version: int(version.split(".")[1]),
)
print("Python", ", ".join(pythons))  # the versions its metadata lists

# %% python-for-pip-checks tags=["remove-cell"]
import importlib.util
from pathlib import Path

assert struct.calcsize("P") * 8 == 64  # every torch wheel is 64-bit
this_python = f"{sys.version_info.major}.{sys.version_info.minor}"
assert pythons and this_python in pythons, pythons
lowest = wheel["Requires-Python"].replace(" ", "").split(",")[0]
assert lowest.startswith(">=")  # the oldest Python it installs on
assert sys.version_info[:2] >= tuple(int(part) for part in lowest[2:].split(".")[:2])
# pip's two lines, as its source words them (where pip is installed): ERROR: is
# the prefix of its log records at that level
pip = importlib.util.find_spec("pip")
if pip is not None and pip.origin is not None:
    internal = Path(pip.origin).parent / "_internal"
    finders = [internal / "resolution" / "resolvelib" / "factory.py",
               internal / "index" / "package_finder.py"]
    texts = [path.read_text(encoding="utf-8") for path in finders if path.is_file()]
    assert any("Could not find a version that satisfies the requirement %s " in text
               and "(from versions: %s)" in text
               and "No matching distribution found for" in text for text in texts)
    logging_source = (internal / "utils" / "logging.py").read_text(encoding="utf-8")
    assert 'return "ERROR: "' in logging_source

# %% torchvision-pair tags=["environment"]
from importlib import metadata

release = torch.__version__.split("+")[0]
minor = int(release.split(".")[1])
print(torch.__version__)
print(f"torchvision 0.{minor + 15}.*")  # the torchvision built for it
try:
    print("installed: torchvision", metadata.version("torchvision"))
except metadata.PackageNotFoundError:
    print("installed: no torchvision")

# %% torchvision-pair-checks tags=["remove-cell"]
try:
    vision = metadata.version("torchvision")
except metadata.PackageNotFoundError:
    vision = None
if vision is not None:  # where torchvision is installed: the pair matches
    assert vision.startswith(f"0.{minor + 15}."), vision
    requires = metadata.requires("torchvision") or []
    pins = [r for r in requires if re.match(r"torch\W", r)]
    # a torchvision wheel names the torch release it was built for: that release
    # exactly (0.19.1: torch==2.4.1), or as its lower bound (0.29.2: torch>=2.14.0)
    feature = re.escape(".".join(release.split(".")[:2]))
    assert any(re.search(rf"(==|>=)\s*{feature}\.", r) for r in pins), pins

# %% torchvision-nms raises="RuntimeError: operator torchvision::nms does not exist"
# import torchvision runs this line (torchvision/_meta_registrations.py): a
# fake kernel for nms, an operator that torchvision's C++ part registers. Here
# that part never loaded, as where it was built for another torch
@torch.library.register_fake("torchvision::nms")
def fake_nms(boxes, scores, iou_threshold):
    return boxes.new_empty(0, dtype=torch.long)

# %% torchvision-nms-checks tags=["remove-cell"]
assert "torchvision" not in sys.modules  # nothing here imported torchvision
assert not hasattr(torch.ops.torchvision, "nms")  # so torch has no such operator

# %% nvidia-packages tags=["environment"]
from importlib import metadata
from pathlib import Path

# the CUDA libraries pip installed beside torch (Linux CUDA builds)
nvidia = sorted(
    (dist.metadata["Name"], dist.version)
    for dist in metadata.distributions()
    if (dist.metadata["Name"] or "").lower().startswith("nvidia-")
)
for name, version in nvidia:
    print(name, version)
print(len(nvidia), "nvidia-* packages")
# the torch you import is the one pip installed here, not a second copy
installed = Path(metadata.distribution("torch").locate_file("torch")).resolve()
print("same torch:", Path(torch.__file__).parent.resolve() == installed)

# %% nvidia-packages-checks tags=["remove-cell"]
import ctypes
import inspect

if cpu_build:
    assert nvidia == []
# on Linux x86-64, a CUDA build pins the version of each nvidia-* package it
# needs: pip installed exactly those
linux_x86 = sys.platform == "linux" and platform.machine() == "x86_64"
if torch.version.cuda is not None and linux_x86:
    have = {name.lower().replace("_", "-"): version for name, version in nvidia}
    for requirement in metadata.requires("torch") or []:
        pinned = re.match(r"(nvidia-[\w.-]+)\s*\(?==\s*([^\s;)]+)", requirement)
        marker = requirement.partition(";")[2]
        if pinned is None or "extra" in marker:
            continue
        if "platform_machine" in marker and "x86_64" not in marker:
            continue
        assert have.get(pinned[1].lower().replace("_", "-")) == pinned[2], requirement
# torch/__init__.py loads cuDNN (libcudnn.so.<major>) from the nvidia folder of
# site-packages when the loader finds none
source = inspect.getsource(torch)
cudnn_entry = r"""['"]cudnn['"]\s*[:,]\s*['"]libcudnn\.so\.\*\[0-9\]['"]"""
assert re.search(cudnn_entry, source)
assert "not found in the system path" in source  # the ValueError where it finds none
# the loader's words for a library it cannot find, the message of the
# ImportError: the library's name, then cannot open shared object file
if sys.platform == "linux" and platform.libc_ver()[0] == "glibc":
    try:
        ctypes.CDLL("libtorch_tips_missing.so.9")
    except OSError as error:
        words = ": cannot open shared object file: No such file or directory"
        assert str(error) == "libtorch_tips_missing.so.9" + words, error
    else:
        raise AssertionError("a library that does not exist was loaded")

# %% six-removed raises="ModuleNotFoundError: No module named 'torch._six'"
# what code written for old torch releases imports
from torch._six import inf, string_classes

# %% six-fix
import collections.abc
import math

from torch import inf

# what torch._six held, in plain Python
string_classes = (str, bytes)
int_classes = int
container_abcs = collections.abc
print(inf, inf == math.inf)
print(isinstance("cat.png", string_classes), isinstance(3, int_classes))

# %% six-fix-checks tags=["remove-cell"]
import importlib.util

assert importlib.util.find_spec("torch._six") is None
assert torch.inf == math.inf and math.isnan(torch.nan)
assert isinstance(b"cat", string_classes) and not isinstance(3, string_classes)

# %% shadowed
import subprocess
import tempfile
from pathlib import Path

code = "import torch; print(torch.__file__); torch.tensor(1)"
with tempfile.TemporaryDirectory() as folder:
    # your own script, saved as torch.py
    Path(folder, "torch.py").write_text("x = 1\n")
    run = subprocess.run([sys.executable, "-c", code], cwd=folder,
                         capture_output=True, text=True)
print(run.stdout.strip().replace(folder, "."))
print(run.stderr.strip().splitlines()[-1].replace(folder, "."))
# the real one: torch/__init__.py in site-packages
print(Path(torch.__file__).parent.name, Path(torch.__file__).name)

# %% shadowed-checks tags=["remove-cell"]
assert run.returncode == 1
assert run.stderr.strip().splitlines()[-1].startswith(
    "AttributeError: module 'torch' has no attribute 'tensor'"
)


def imported_from(make):
    """Where `import torch` comes from, in a folder set up by make"""
    with tempfile.TemporaryDirectory() as folder:
        make(Path(folder))
        done = subprocess.run(
            [sys.executable, "-c", "import torch; print(torch.__file__)"],
            cwd=folder, capture_output=True, text=True,
        )
        return done.stdout.strip().replace(folder, ".")


# a torch folder with an __init__.py shadows the package too
assert imported_from(
    lambda p: (p / "torch").mkdir() or (p / "torch" / "__init__.py").write_text("")
) == "./torch/__init__.py"
# an empty torch folder does not: the installed package wins
assert imported_from(lambda p: (p / "torch").mkdir()) == torch.__file__

# %% numpy-pair tags=["environment"]
import numpy as np

print("numpy", np.__version__, "torch", torch.__version__)
x = torch.from_numpy(np.arange(3.0))  # fails where torch cannot use NumPy
print(x, x.numpy().dtype)

# %% numpy-pair-checks tags=["remove-cell"]
assert x.dtype == torch.float64 and x.tolist() == [0.0, 1.0, 2.0]
assert np.shares_memory(x.numpy(), x.numpy())  # a view, no copy

# %% numpy-unavailable
# a Python where NumPy cannot be imported, as where it fails to load
code = """
import sys
sys.modules["numpy"] = None  # any import of numpy fails
import torch
try:
    torch.ones(2).numpy()
except RuntimeError as error:
    print(type(error).__name__ + ":", error)
"""
run = subprocess.run(
    [sys.executable, "-c", code], capture_output=True, text=True
)
print(run.stdout.strip())
print("Failed to initialize NumPy" in run.stderr)  # torch's warning

# %% numpy-unavailable-checks tags=["remove-cell"]
assert run.returncode == 0
assert run.stdout.strip() == "RuntimeError: Numpy is not available"
assert "UserWarning: Failed to initialize NumPy" in run.stderr

# %% openmp
info = torch.__config__.parallel_info()
for line in info.splitlines():
    if line.startswith(("ATen parallel backend", "OpenMP ")):
        print(line)  # torch's threads come from an OpenMP runtime
if sys.platform == "linux":  # the OpenMP libraries this process loaded
    with open("/proc/self/maps") as maps:
        names = {line.rsplit("/", 1)[-1].strip() for line in maps}
    kinds = {name.split(".")[0].split("-")[0] for name in names
             if re.match(r"lib(gomp|iomp5|omp)\b", name)}
    print(sorted(kinds))

# %% openmp-checks tags=["remove-cell"]
assert "ATen parallel backend: OpenMP" in info
assert any(line.startswith("OpenMP ") for line in info.splitlines())
if sys.platform == "linux":
    assert len(kinds) == 1, kinds  # one OpenMP runtime, not two

# %% toolkit-mismatch tags=["environment"]
import subprocess
import tempfile

# a simulation: this machine has no CUDA toolkit. A fake nvcc reports a
# toolkit version, and torch's extension builder checks it against a
# patched torch.version.cuda, in a fresh Python
code = """
import logging, os, stat, sys, tempfile, warnings
from pathlib import Path
import torch
from torch.utils import cpp_extension
from torch.torch_version import TorchVersion

print("torch.version.cuda:", torch.version.cuda)
print("CUDA_HOME:", cpp_extension.CUDA_HOME)
log = logging.StreamHandler(sys.stdout)  # print what the builder logs
log.setFormatter(logging.Formatter("    log: %(message)s"))
logging.getLogger("torch.utils.cpp_extension").addHandler(log)
os.environ["TORCH_DONT_CHECK_COMPILER_ABI"] = "1"  # skip the g++ check
for toolkit, build in [("12.6", "12.6"), ("12.4", "12.6"), ("11.8", "12.6")]:
    print(f"nvcc {toolkit}, torch.version.cuda {build}:")
    sys.stdout.flush()
    with tempfile.TemporaryDirectory() as home:
        nvcc = Path(home, "bin", "nvcc")
        nvcc.parent.mkdir()
        line = f"Cuda compilation tools, release {toolkit}"
        nvcc.write_text(f"#!/bin/sh\\necho '{line}'\\n")
        nvcc.chmod(nvcc.stat().st_mode | stat.S_IEXEC)
        cpp_extension.CUDA_HOME, torch.version.cuda = home, build
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("always")
                def show(m, *rest):
                    print(f"    warning: {m}")
                warnings.showwarning = show
                cpp_extension._check_cuda_version("g++", TorchVersion("11.4"))
            print("    builds")
        except RuntimeError as error:
            args = error.args
            text = args[0] % args[1:] if len(args) > 1 else args[0]
            print("    RuntimeError:", " ".join(text.split()))
            print("    as raised:", error)
"""
run = subprocess.run(
    [sys.executable, "-c", code], capture_output=True, text=True
)
print(run.stdout.rstrip())

# %% toolkit-mismatch-checks tags=["remove-cell"]
assert run.returncode == 0, run.stderr
lines = run.stdout.splitlines()
if torch.version.cuda is None:
    assert lines[:2] == ["torch.version.cuda: None", "CUDA_HOME: None"]
same, minor, major = run.stdout.split("nvcc ")[1:]
assert same.splitlines()[1:] == ["    builds"]
assert "minor version mismatch" in minor and minor.rstrip().endswith("builds")
assert "RuntimeError: The detected CUDA version (11.8) mismatches" in major
assert "(12.6)" in major and "minor" not in major

# %% cpu-capability tags=["environment"]
import os

# the widest vector instructions torch's kernels use on this CPU
print("this process:", torch.backends.cpu.get_cpu_capability())
code = "import torch; print(torch.backends.cpu.get_cpu_capability())"
for limit in ["default", "avx2"]:
    env = dict(os.environ, ATEN_CPU_CAPABILITY=limit)  # a limit, read at import
    run = subprocess.run([sys.executable, "-c", code], env=env,
                         capture_output=True, text=True)
    print(f"ATEN_CPU_CAPABILITY={limit}:", run.stdout.strip())

# %% cpu-capability-checks tags=["remove-cell"] holds=">=2.9" claim="`ATEN_CPU_CAPABILITY=default` reports `DEFAULT`"
import platform

if platform.machine() in ("x86_64", "AMD64"):
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=dict(os.environ, ATEN_CPU_CAPABILITY="default"))
    assert run.stdout.strip() == "DEFAULT"

# %% sigill
import signal

# a simulation: the process sends itself SIGILL, as a CPU does on an
# instruction it lacks
code = "import os, signal; os.kill(os.getpid(), signal.SIGILL)"
run = subprocess.run([sys.executable, "-X", "faulthandler", "-c", code],
                     capture_output=True, text=True)
print("exit code:", run.returncode, signal.Signals(-run.returncode).name)
print(run.stderr.splitlines()[0])

# %% sigill-checks tags=["remove-cell"]
assert run.returncode == -signal.SIGILL == -4
assert run.stderr.startswith("Fatal Python error: Illegal instruction")

# %% ninja-path
import shutil
import tempfile

check = ("from torch.utils import cpp_extension; "
         "cpp_extension.verify_ninja_availability()")
empty = tempfile.mkdtemp()  # a PATH with no ninja on it
run = subprocess.run([sys.executable, "-c", check], env={"PATH": empty},
                     capture_output=True, text=True)
print(run.returncode, run.stderr.splitlines()[-1])

# a stand-in for the ninja that pip puts next to python
fake = os.path.join(tempfile.mkdtemp(), "ninja")
with open(fake, "w") as f:
    f.write("#!/bin/sh\necho 1.11.1\n")
os.chmod(fake, 0o755)
path = os.path.dirname(fake) + os.pathsep + empty
run = subprocess.run([sys.executable, "-c", check], env={"PATH": path},
                     capture_output=True, text=True)
print(run.returncode, shutil.which("ninja", path=path) == fake)

# %% ninja-path-checks tags=["remove-cell"]
assert run.returncode == 0  # the stand-in satisfied the check
failed = subprocess.run([sys.executable, "-c", check], env={"PATH": empty},
                        capture_output=True, text=True)
assert failed.returncode == 1
assert failed.stderr.splitlines()[-1].startswith(
    "RuntimeError: Ninja is required to load C++ extensions")

# %% which-build tags=["environment"]
hip, cuda = torch.version.hip, torch.version.cuda  # one of them, or neither
build = "ROCm (AMD)" if hip else "CUDA (NVIDIA)" if cuda else "CPU only"
print("torch.version.hip:", hip)
print("torch.version.cuda:", cuda)
print("this is the", build, "build")

# %% which-build-checks tags=["remove-cell"]
assert not (hip and cuda)  # a build is for one GPU platform at most
if build == "CPU only":
    assert not torch.cuda.is_available()
if "+cpu" in torch.__version__:  # a wheel from the CPU index
    assert hip is None and cuda is None

# %% pillow-version tags=["environment"]
import PIL

print("Pillow", PIL.__version__)  # the version is here now
try:
    from PIL import PILLOW_VERSION  # what torchvision before 0.5 imported
except ImportError as error:
    message = str(error)
    print(message.split(" (")[0])  # the rest is the path of PIL

# %% pillow-version-checks tags=["remove-cell"]
assert not hasattr(PIL, "PILLOW_VERSION")
assert int(PIL.__version__.split(".")[0]) >= 7  # Pillow 7 removed the name
assert message.startswith("cannot import name 'PILLOW_VERSION' from 'PIL' (")

# %% which-python tags=["environment"]
import os
import sys

# in the notebook and in the terminal, print(sys.executable, torch.__file__)
# and compare; here they are shown relative to the environment's folder
print(os.path.relpath(sys.executable, sys.prefix))  # the interpreter
print(os.path.relpath(torch.__file__, sys.prefix))  # the torch it imports

# %% which-python-checks tags=["remove-cell"]
import importlib.util

# the torch found on this interpreter's path is the one imported
assert importlib.util.find_spec("torch").origin == torch.__file__

# %% segfault
# a simulation: a module whose import reads memory at address 0, as a
# native library that crashes while it loads
Path("crashes_on_import.py").write_text(
    "import ctypes\n\nctypes.c_int.from_address(0).value\n")
code = "import crashes_on_import"
run = subprocess.run([sys.executable, "-X", "faulthandler", "-c", code],
                     capture_output=True, text=True)
print("exit code:", run.returncode, signal.Signals(-run.returncode).name)
for line in run.stderr.splitlines():
    if "<frozen importlib" not in line:  # Python's import machinery
        print(re.sub(r"0x[0-9a-f]+", "0x…", line))  # the thread's address

# %% segfault-checks tags=["remove-cell"]
assert run.returncode == -signal.SIGSEGV == -11
assert run.stderr.startswith("Fatal Python error: Segmentation fault")
assert 'crashes_on_import.py", line 3 in <module>' in run.stderr
assert '"<string>", line 1 in <module>' in run.stderr
# without -X faulthandler: no Python stack at all, and a shell says 139
bare = subprocess.run([sys.executable, "-c", "import crashes_on_import"],
                      capture_output=True, text=True)
assert bare.returncode == -11 and "crashes_on_import" not in bare.stderr
shell = subprocess.run(["sh", "-c", f'"{sys.executable}" -c "import crashes_on_import"; echo $?'],
                       capture_output=True, text=True)
assert shell.stdout.strip() == "139", shell.stdout
