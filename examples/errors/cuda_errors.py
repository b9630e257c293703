# %% [markdown]
# GPU and CUDA errors: a torch without CUDA, a busy GPU, tensors
# and weights on different devices or dtypes, checkpoints saved on
# a GPU, out of memory, device-side asserts and the cuBLAS errors
# they cause, CUDA in workers

# %% [markdown] lang="zh"
# GPU 与 CUDA 的报错：torch 没有编译 CUDA、GPU 忙碌或不可用、张量与权重的设备或
# dtype 不一致、在 GPU 上保存的检查点、显存不足、device-side assert 及其引发的
# cuBLAS 报错、在 worker（加载进程）里使用 CUDA

# %% setup
import multiprocessing as mp
import os
import subprocess
import sys

import torch
from torch import nn
import torch.nn.functional as F
from torch.utils.data import DataLoader


def on_a_machine_without_gpu(step):
    """Run `step` in a child process that sees no GPU; raise what it raised"""
    fork = mp.get_context("fork")
    receive, send = fork.Pipe(duplex=False)

    def child():
        os.environ["CUDA_VISIBLE_DEVICES"] = ""  # hides every GPU
        try:
            step()
        except Exception as error:
            send.send(error)
        else:
            send.send(None)

    process = fork.Process(target=child)
    process.start()
    error = receive.recv()
    process.join()
    if error is not None:
        raise error


# %% not-compiled tags=["raises-exception"]
print(torch.__version__, torch.version.cuda)  # a CPU build: no CUDA version
model = nn.Linear(2, 1)
on_a_machine_without_gpu(lambda: model.to("cuda"))

# %% not-compiled-checks tags=["remove-cell"]
if torch.version.cuda is None:  # the CPU build that builds this site
    assert not torch.backends.cuda.is_built() and not torch.cuda.is_available()
    try:
        # in this process too, not only in the child
        torch.ones(1, device="cuda")
    except AssertionError as error:
        assert str(error) == "Torch not compiled with CUDA enabled"
    else:
        raise AssertionError("a CPU build created a CUDA tensor")

# %% deserialize-here tags=["raises-exception"]
path = "checkpoint.pt"
torch.save(nn.Linear(2, 1).state_dict(), path)
on_a_machine_without_gpu(lambda: torch.load(path, map_location="cuda"))

# %% deserialize-here-checks tags=["remove-cell"]
if torch.version.cuda is None:  # in this process too, not only in the child
    try:
        torch.load("checkpoint.pt", map_location="cuda")
    except RuntimeError as error:
        assert "on a CUDA device but torch.cuda.is_available() is False" \
            in str(error)
    else:
        raise AssertionError("a CPU build loaded onto CUDA")

# %% not-compiled-fix
device = "cuda" if torch.cuda.is_available() else "cpu"  # False on a CPU build
model = nn.Linear(2, 1).to(device)
print(device, torch.backends.cuda.is_built())

# %% not-compiled-fix-checks tags=["remove-cell"]
assert model.weight.device.type == device
assert torch.backends.cuda.is_built() == (torch.version.cuda is not None)

# %% deserialize tags=["requires-cuda", "raises-exception"]
weights = nn.Linear(2, 1).to("cuda").state_dict()
torch.save(weights, "checkpoint.pt")  # tensors on the GPU
load = 'import torch; torch.load("checkpoint.pt")'
child = subprocess.run(  # a fresh Python that sees no GPU, as a laptop
    [sys.executable, "-c", load],
    env={**os.environ, "CUDA_VISIBLE_DEVICES": ""},
    capture_output=True,
    text=True,
)
# the child's error
message = child.stderr.rpartition("RuntimeError: ")[2].strip()
assert (
    "Attempting to deserialize object on a CUDA device but "
    "torch.cuda.is_available() is False"
) in message
raise RuntimeError(message)

# %% deserialize-fix
torch.save(nn.Linear(2, 1).to(device).state_dict(), "checkpoint.pt")
# map_location="cpu": every tensor to the CPU
state = torch.load("checkpoint.pt", map_location="cpu")
print({key: value.device.type for key, value in state.items()})

# %% deserialize-fix-checks tags=["remove-cell"]
assert all(value.device.type == "cpu" for value in state.values())

# %% deserialize-fix-cuda tags=["requires-cuda"]
load = """
import torch
print(torch.load("checkpoint.pt", map_location="cpu")["weight"].device)
"""
child = subprocess.run(
    [sys.executable, "-c", load],
    env={**os.environ, "CUDA_VISIBLE_DEVICES": ""},
    capture_output=True,
    text=True,
)
print(child.stdout.strip())  # the GPU checkpoint, loaded where there is no GPU
assert child.returncode == 0 and child.stdout.strip() == "cpu"

# %% device-mismatch tags=["requires-cuda", "raises-exception"]
model = nn.Linear(2, 1).to("cuda")
model(torch.ones(1, 2))  # the input is still on the CPU

# %% device-mismatch-fix
device = "cuda" if torch.cuda.is_available() else "cpu"
model = nn.Linear(2, 1).to(device)
x = torch.ones(1, 2, device=device)  # one `device` for model and inputs
print(model(x).device.type == device)

# %% device-mismatch-fix-checks tags=["remove-cell"]
assert model.weight.device == x.device

# %% conv-dtype tags=["raises-exception"]
model = nn.Sequential(  # float32
    nn.Conv2d(3, 8, 3, bias=False), nn.BatchNorm2d(8)
)
images = torch.rand(2, 3, 8, 8).half()  # half precision, e.g. to save memory
model(images)

# %% conv-dtype-checks tags=["remove-cell"]
try:
    nn.Conv2d(3, 8, 3)(images)  # with a bias, the CPU names the bias instead
except RuntimeError as error:
    assert "Input type (c10::Half) and bias type (float) should be the same" \
        in str(error)
else:
    raise AssertionError("a float32 convolution took a float16 input")

# %% conv-dtype-fix
weight = model[0].weight
# the input follows the model, not the other way round
x = images.to(weight.dtype)
print(x.dtype, model(x).shape)

# %% conv-dtype-fix-checks tags=["remove-cell"]
assert x.dtype == torch.float32 and model(x).shape == (2, 8, 6, 6)

# %% conv-device tags=["requires-cuda", "raises-exception"]
model = nn.Conv2d(3, 8, 3, bias=False).to("cuda")
model(torch.rand(2, 3, 8, 8))  # a CPU input, CUDA weights

# %% oom tags=["requires-cuda", "raises-exception"]
torch.empty(1024**4, device="cuda")  # 4 TiB of float32

# %% oom-checks tags=["requires-cuda"]
try:
    torch.empty(1024**4, device="cuda")
except torch.OutOfMemoryError as error:  # a subclass of RuntimeError
    print(type(error).__name__, isinstance(error, RuntimeError))
    assert "CUDA out of memory" in str(error)
stats = torch.cuda.memory_stats()
print("retries:", stats["num_alloc_retries"], "OOMs:", stats["num_ooms"])
assert stats["num_alloc_retries"] >= 1  # freed its cache, tried again
assert stats["num_ooms"] >= 1  # before it gave up

# %% accumulate
model = nn.Linear(4, 1)
x, y = torch.randn(8, 4), torch.randn(8, 1)
# 4 batches of 2 samples: the memory of a batch of 2, the gradient of 8
steps = 4
model.zero_grad()
for x_part, y_part in zip(x.chunk(steps), y.chunk(steps)):
    # each part's share of the mean
    loss = F.mse_loss(model(x_part), y_part) / steps
    loss.backward()  # gradients add up in .grad
accumulated = model.weight.grad.clone()
model.zero_grad()
F.mse_loss(model(x), y).backward()  # the whole batch at once, for comparison
print(torch.allclose(accumulated, model.weight.grad))

# %% accumulate-checks tags=["remove-cell"]
assert torch.allclose(accumulated, model.weight.grad, atol=1e-6)

# %% accumulate-caveats
whole = model.weight.grad.clone()  # the whole batch's gradient, from above


def accumulate(model, parts, weights):
    model.zero_grad()
    for (x_part, y_part), weight in zip(parts, weights):
        (F.mse_loss(model(x_part), y_part) * weight).backward()
    return model.weight.grad.clone()


# unequal parts, 6 + 2 samples (a last, smaller batch)
parts = [(x[:6], y[:6]), (x[6:], y[6:])]
by_count = accumulate(model, parts, [1 / 2, 1 / 2])  # each mean / 2
by_size = accumulate(model, parts, [6 / 8, 2 / 8])  # weighted by its size
print("unequal parts, / steps:", torch.allclose(by_count, whole))
print("unequal parts, weighted by size:", torch.allclose(by_size, whole))
# BatchNorm normalises each part with that part's own statistics
torch.manual_seed(0)
bn_model = nn.Sequential(nn.BatchNorm1d(4), nn.Linear(4, 1))
bn_model.zero_grad()
F.mse_loss(bn_model(x), y).backward()
bn_whole = bn_model[1].weight.grad.clone()
bn_model.zero_grad()
for x_part, y_part in zip(x.chunk(steps), y.chunk(steps)):
    (F.mse_loss(bn_model(x_part), y_part) / steps).backward()
print("equal parts, with BatchNorm:",
      torch.allclose(bn_model[1].weight.grad, bn_whole))

# %% accumulate-caveats-checks tags=["remove-cell"]
assert not torch.allclose(by_count, whole, atol=1e-3)
assert torch.allclose(by_size, whole, atol=1e-6)
assert not torch.allclose(bn_model[1].weight.grad, bn_whole, atol=1e-3)
# a sum-reduced loss divided by the whole batch's size also gives it
model.zero_grad()
for x_part, y_part in parts:
    (F.mse_loss(model(x_part), y_part, reduction="sum") / len(x)).backward()
assert torch.allclose(model.weight.grad, whole, atol=1e-6)

# %% checkpointing
from torch.utils.checkpoint import checkpoint

blocks = nn.Sequential(
    *[nn.Sequential(nn.Linear(64, 64), nn.Tanh()) for _ in range(4)]
)
x = torch.randn(8, 64)


def saved_for_backward(forward):
    """How many tensors the forward pass keeps for the backward pass"""
    saved = []

    def keep(tensor):
        saved.append(tensor)
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(keep, lambda tensor: tensor):
        out = forward()
    return len(saved), out


kept, out = saved_for_backward(lambda: blocks(x))
kept_checkpointed, out_checkpointed = saved_for_backward(
    # recomputed during backward
    lambda: checkpoint(blocks, x, use_reentrant=False)
)
print(kept, "tensors kept without checkpointing,", kept_checkpointed, "with it")

# %% checkpointing-checks tags=["remove-cell"]
assert kept_checkpointed < kept and torch.equal(out, out_checkpointed)
grads = torch.autograd.grad(out.sum(), list(blocks.parameters()))
grads_checkpointed = torch.autograd.grad(
    out_checkpointed.sum(), list(blocks.parameters())
)
# same gradients
assert all(torch.allclose(a, b) for a, b in zip(grads, grads_checkpointed))

# %% device-assert tags=["requires-cuda"]
script = """\
import sys, traceback
import torch
import torch.nn.functional as F

logits = torch.randn(2, 3, device="cuda")
labels = torch.tensor([1, 3], device="cuda")  # 3 classes: no label 3
try:
    loss = F.cross_entropy(logits, labels)  # line 8: the mistake
    total = torch.ones(4, device="cuda").sum()  # line 9: an innocent line
    print(loss.item(), total.item())  # line 10
except RuntimeError as error:
    frames = traceback.extract_tb(error.__traceback__)
    line = [f.lineno for f in frames if f.filename == __file__][-1]
    print(f"line {line}:", type(error).__name__, str(error).splitlines()[0])
try:
    torch.zeros(1, device="cuda")  # any CUDA call after the assert
except RuntimeError as error:
    print("afterwards:", str(error).splitlines()[0])
"""
with open("train.py", "w") as file:
    file.write(script)
env = {k: v for k, v in os.environ.items() if k != "CUDA_LAUNCH_BLOCKING"}
runs = {}
for blocking in ("0", "1"):
    child = subprocess.run(
        [sys.executable, "train.py"],
        env={**env, "CUDA_LAUNCH_BLOCKING": blocking},
        capture_output=True,
        text=True,
    )
    runs[blocking] = child.stdout.splitlines()
    print(f"CUDA_LAUNCH_BLOCKING={blocking}:", *runs[blocking], sep="\n  ")
kernel = [line for line in child.stderr.splitlines() if "Assertion" in line]
if kernel:  # what the kernel printed to stderr, from the word "Assertion" on
    print("the kernel:", kernel[0][kernel[0].index("Assertion"):])
# with blocking launches, the right line
assert runs["1"][0].startswith("line 8:")
# the error surfaces, and CUDA is unusable afterwards
for lines in runs.values():
    assert "device-side assert triggered" in lines[0]
    assert lines[1].startswith("afterwards:")
    assert "device-side assert" in lines[1]

# %% fork-cuda tags=["requires-cuda", "raises-exception"]
class OnTheGpu(torch.utils.data.Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        return torch.tensor(float(index), device="cuda")  # CUDA inside a worker


torch.ones(1, device="cuda")  # CUDA starts in the main process, as in training
loader = DataLoader(OnTheGpu(), batch_size=4, num_workers=2)  # forked workers
next(iter(loader))

# %% fork-cuda-fix
device = "cuda" if torch.cuda.is_available() else "cpu"
# CUDA in use?
started = torch.cuda.is_available() and torch.cuda.is_initialized()
# CPU tensors only
loader = DataLoader(torch.arange(8.0), batch_size=4, num_workers=2)
for batch in loader:
    batch = batch.to(device)  # to the GPU in the main process, where CUDA lives
print(started, batch.device.type == device)

# %% fork-cuda-fix-checks tags=["remove-cell"]
# the default
assert batch.device.type == device and loader.multiprocessing_context is None
if sys.version_info < (3, 14):
    assert mp.get_start_method() == "fork"  # Linux's default up to Python 3.13
if torch.cuda.is_available():
    assert started  # the workers were forked after CUDA had started, and worked

# %% device-mismatch-quoted-checks tags=["remove-cell"] holds=">=2.8" claim="An operation that checks its arguments on entry (`addmm`, a linear layer) says which device the odd argument is on" about="device-mismatch"
# The two wordings the page quotes from source are in the torch this site runs
from pathlib import Path

library = Path(torch.__file__).parent / "lib" / "libtorch_cpu.so"
if library.is_file():  # Linux wheels
    text = library.read_bytes()
    for piece in (
        b"Expected all tensors to be on the same device, but found at least "
        b"two devices, ",
        b"Expected all tensors to be on the same device, but got ",
        b", different from other tensors on ",
        b" (when checking argument in method ",
        b"aten/src/ATen/core/adaption.cpp",
        b"aten/src/ATen/TensorIterator.cpp",
    ):
        assert piece in text, piece
    del text
# what a device-side assert raises, as the page says
assert issubclass(torch.AcceleratorError, RuntimeError)

# %% cublas-quoted-checks tags=["remove-cell"] holds=">=2.10" claim="Deterministic mode needs no `CUBLAS_WORKSPACE_CONFIG` for cuBLAS matrix products"
# The cuBLAS workspace check the page quotes from torch 2.9.1 is gone from this
# torch (since 2.10): use_deterministic_algorithms no longer names the variable,
# and neither the header that declared the check nor the library that raised it
# has it any more. On torch 2.4-2.9 these asserts fail: they name it
root = Path(torch.__file__).parent
library = root / "lib" / "libtorch_cpu.so"
assert "CUBLAS_WORKSPACE_CONFIG" not in torch.use_deterministic_algorithms.__doc__
context = root / "include" / "ATen" / "Context.h"
if context.is_file():  # wheels ship the headers
    assert "alertCuBLASConfigNotDeterministic" not in context.read_text()
if library.is_file():  # Linux wheels
    text = library.read_bytes()
    assert b"it uses CuBLAS and you have CUDA >= 10.2" not in text
    assert b"Deterministic behavior was enabled with either" not in text
    del text

# %% conv-dtype-bias tags=["raises-exception"]
# a layer with a bias (the default): the check that names the bias
nn.Conv2d(3, 8, 3)(images)

# %% arch-list
print(torch.version.cuda, torch.cuda.get_arch_list())  # what it has code for

# %% arch-list-checks tags=["remove-cell"]
import inspect

if torch.version.cuda is None:  # a CPU build has no GPU code at all
    assert torch.cuda.get_arch_list() == []
# torch compares the two itself when CUDA starts, and warns
assert "is not compatible with the current PyTorch installation" in \
    inspect.getsource(torch.cuda._check_cubins)

# %% arch-rule
def has_kernels_for(arch_list, capability):
    """Whether a torch built for `arch_list` runs on a GPU of `capability`"""
    for arch in arch_list:
        kind, number = arch.split("_")
        number = number.rstrip("af")  # sm_90a: built for 9.0
        built = (int(number[:-1]), int(number[-1]))
        if kind == "sm" and built[0] == capability[0] and built <= capability:
            return True  # machine code: same major, this minor or older
        if kind == "compute" and built <= capability:
            return True  # PTX: compiled for any newer GPU when loaded
    return False


wheel = ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]
print(has_kernels_for(wheel, (8, 9)))  # e.g. an RTX 4090: runs sm_86 code
print(has_kernels_for(wheel, (6, 1)))  # e.g. a GTX 1080: nothing for 6.x
print(has_kernels_for(["sm_80", "sm_90"], (12, 0)))  # too new for the build

# %% arch-rule-checks tags=["remove-cell"]
assert has_kernels_for(wheel, (8, 9)) and has_kernels_for(wheel, (9, 0))
assert not has_kernels_for(wheel, (6, 1))
assert not has_kernels_for(["sm_80", "sm_90"], (12, 0))
assert has_kernels_for(["sm_80", "compute_90"], (12, 0))  # PTX serves newer GPUs
assert not has_kernels_for([], (9, 0))  # the CPU build
releases = getattr(torch.cuda, "PYTORCH_RELEASES_CODE_CC", None)
if releases is not None and torch.__version__.startswith("2.13"):
    # the wheel above: torch 2.13's CUDA 12.9 to 13.2 builds for x86-64;
    # only its CUDA 12.6 build still has sm_50, sm_60 and sm_70
    for cuda in ("12.9", "13.0", "13.2"):
        assert releases[cuda]["x86_64"] == {75, 80, 86, 90, 100, 120}
    assert {50, 60, 70} <= releases["12.6"]["x86_64"]
    assert not {100, 120} & releases["12.6"]["x86_64"]
compatible = getattr(torch.cuda, "_code_compatible_with_device", None)
if compatible is not None:  # torch's own rule agrees on these GPUs
    for device_cc in (61, 75, 86, 89, 90, 120):
        ours = has_kernels_for(wheel, (device_cc // 10, device_cc % 10))
        theirs = any(compatible(device_cc, cc) for cc in (75, 80, 86, 90, 100, 120))
        assert ours == theirs, device_cc

# %% arch-vs-capability tags=["requires-cuda"]
capability = torch.cuda.get_device_capability()  # launches no kernel
print(torch.cuda.get_device_name(), capability)
print(torch.cuda.get_arch_list())
print(has_kernels_for(torch.cuda.get_arch_list(), capability))
assert has_kernels_for(torch.cuda.get_arch_list(), capability)

# %% capability-warning holds=">=2.11" claim="When no kernel of the installed torch fits the GPU, its warning lists the compute capabilities it was built for"
import warnings
from unittest import mock

# The warning torch gives at CUDA start when no kernel fits the GPU, written
# here by torch's own function for a made-up GTX 1080 (6.1) and the wheel
# above: only the GPU's name is made up, the text is this torch's
gpu_name = mock.patch.object(
    torch.cuda, "get_device_name", return_value="NVIDIA GeForce GTX 1080"
)
with gpu_name, warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    torch.cuda._warn_unsupported_code(0, 61, [75, 80, 86, 90, 100, 120])
print(caught[0].message)

# %% capability-warning-checks tags=["remove-cell"] holds=">=2.13" claim="That warning gives the `pip install` command of a CUDA build with kernels for the GPU"
message = str(caught[0].message)
assert len(caught) == 1 and caught[0].category is UserWarning
assert message.startswith("Found GPU0 NVIDIA GeForce GTX 1080 which is of "
                          "compute capability (CC) 6.1.")
assert "does not include kernels for this GPU" in message
base = torch.__version__.split("+")[0]
assert (f"pip install torch=={base} --index-url "
        "https://download.pytorch.org/whl/cu126") in message
# torch's rule has an exception to "same major, this minor or newer": code
# for 10.0 does not run on 10.1
compatible = torch.cuda._code_compatible_with_device
assert not compatible(101, 100)
assert compatible(89, 86) and compatible(86, 80) and not compatible(90, 86)
# the older warning, sm_... is not compatible, compares the major version
# only: a build with sm_86 alone on a 8.0 GPU (which cannot run 8.6 code)
# gets no word from it, and the Found GPU0 warning from the newer check
import contextlib


def startup_warnings(check, arch_list, capability):
    with contextlib.ExitStack() as stack:
        for name, value in [("get_arch_list", arch_list), ("device_count", 1),
                            ("get_device_capability", capability),
                            ("get_device_name", "GPU")]:
            stack.enter_context(
                mock.patch.object(torch.cuda, name, return_value=value))
        stack.enter_context(mock.patch.object(torch.version, "cuda", "12.9"))
        caught = stack.enter_context(warnings.catch_warnings(record=True))
        warnings.simplefilter("always")
        check()
    return [str(w.message) for w in caught]


assert startup_warnings(torch.cuda._check_cubins, ["sm_86"], (8, 0)) == []
found = startup_warnings(torch.cuda._check_capability, ["sm_86"], (8, 0))
assert len(found) == 1 and found[0].startswith("Found GPU0 GPU which is")
old_style = startup_warnings(torch.cuda._check_cubins, ["sm_86"], (6, 1))
assert len(old_style) == 1 and "is not compatible" in old_style[0]

# %% capability-exception-checks tags=["remove-cell"] holds=">=2.11,<2.15" claim="Code built for compute capability 8.0 or 8.6 does not run on 8.7 (Jetson Orin)" about="capability-warning"
# up to torch 2.14, code for 8.0 or 8.6 does not run on 8.7 (Jetson Orin)
assert not compatible(87, 86) and not compatible(87, 80)

# %% cublas-on-cpu raises="IndexError: index out of range in self"
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(10, 4)  # token ids 0 to 9
        self.linear = nn.Linear(4, 3)  # a matrix product: cuBLAS on a GPU

    def forward(self, x):
        x = self.embedding(x)
        return self.linear(x)


device = "cpu"  # instead of "cuda": the same model, the same batch
model = Model().to(device)
x = torch.tensor([[1, 2, 10]])  # 10: the table has no row 10
model(x.to(device))

# %% cublas-on-cpu-checks tags=["remove-cell"]
assert x.max() >= model.embedding.num_embeddings  # the id out of range
assert model(x.clamp(max=9)).shape == (1, 3, 3)  # the rest of the batch runs

# %% cublas-message-checks tags=["remove-cell"]
# The cuBLAS message the page quotes is in a CUDA build of torch: the status
# name and the call, as TORCH_CUDABLAS_CHECK writes it for float32 products
import mmap
from pathlib import Path

library = Path(torch.__file__).parent / "lib" / "libtorch_cuda.so"
if library.is_file():  # Linux CUDA wheels
    with open(library, "rb") as file:
        with mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as text:
            assert text.find(b"CUBLAS_STATUS_EXECUTION_FAILED") >= 0
            assert text.find(b"CUBLAS_STATUS_NOT_INITIALIZED") >= 0
            assert text.find(b"CUBLAS_STATUS_INVALID_VALUE") >= 0
            # a float32 product names cublasSgemm, or cublasGemmEx in later releases
            assert text.find(b" when calling `cublasSgemm( handle,") >= 0 or text.find(
                b" when calling `cublasGemmEx( handle, opa, opb, m, n, k, &alpha, a, CUDA_R_32F,"
            ) >= 0

# %% cublas-sgemm-checks tags=["remove-cell"] holds="<2.15" claim="A `float32` matrix product that cuBLAS fails names the call `cublasSgemm( handle, opa, …)` in its message"
if library.is_file():
    with open(library, "rb") as file:
        with mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as text:
            assert text.find(
                b" when calling `cublasSgemm( handle, opa, opb, m, n, k, &alpha,"
                b" a, lda, b, ldb, &beta, c, ldc)`"
            ) >= 0

# %% cudnn-off
device = "cuda" if torch.cuda.is_available() else "cpu"
torch.manual_seed(0)
model = nn.Conv2d(3, 8, 3).to(device)  # a convolution: cuDNN runs it on a GPU
x = torch.randn(2, 3, 16, 16, device=device)
y = model(x)
torch.backends.cudnn.enabled = False  # the test: the same step without cuDNN
y_without = model(x)
torch.backends.cudnn.enabled = True  # the default
print(device, torch.backends.cudnn.is_available(), tuple(y.shape))
print(torch.allclose(y, y_without, atol=1e-2))  # the same result either way

# %% cudnn-off-checks tags=["remove-cell"]
assert torch.backends.cudnn.enabled  # on again, as by default
assert torch.allclose(y, y_without, atol=1e-2)
if torch.version.cuda is None and torch.version.hip is None:
    assert not torch.backends.cudnn.is_available()  # a CPU build has no cuDNN

# %% cudnn-message-checks tags=["remove-cell"]
# The cuDNN messages the page quotes: torch writes cuDNN error: and the name
# that cuDNN gives the status (cudnnGetErrorString), and raises a RuntimeError
import mmap
import re
from pathlib import Path

include = Path(torch.__file__).parent / "include"
macros = include / "ATen" / "cuda" / "Exceptions.h"
if macros.is_file():  # wheels ship the headers
    text = macros.read_text(encoding="utf-8")
    assert re.search(r'"cuDNN error: ",\s*cudnnGetErrorString\(status\)', text)
    assert "class CuDNNError : public c10::Error" in text
    # the advice the message of CUDNN_STATUS_NOT_SUPPORTED adds
    assert ". This error may appear if you passed in a non-contiguous input." in text
    python_errors = (include / "torch" / "csrc" / "Exceptions.h").read_text()
    assert "_CATCH_GENERIC_ERROR(Error, PyExc_RuntimeError" in python_errors
    assert "CuDNNError" not in python_errors  # no Python type of its own
library = Path(torch.__file__).parent / "lib" / "libtorch_cuda.so"
if library.is_file():  # Linux CUDA wheels
    with open(library, "rb") as file:
        with mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as text:
            assert text.find(b"cuDNN error: ") >= 0

# %% bf16-linear raises="RuntimeError: mat1 and mat2 must have the same dtype, but got BFloat16 and Float"
linear = nn.Linear(4, 3)  # float32 weights
x = torch.randn(2, 4, dtype=torch.bfloat16)  # bfloat16 data
linear(x)

# %% bf16-conv raises="RuntimeError: Input type (c10::BFloat16) and bias type (float) should be the same"
conv = nn.Conv1d(4, 3, kernel_size=1)
conv(x.unsqueeze(-1))  # (batch, channels, length)

# %% bf16-rnn raises="ValueError"
lstm = nn.LSTM(4, 3, batch_first=True)
lstm(x.unsqueeze(1))  # (batch, time, features)

# %% bf16-fix
print(linear(x.to(linear.weight.dtype)).dtype)  # the input follows the model
linear_bf16 = nn.Linear(4, 3).bfloat16()  # or the model follows the input
print(linear_bf16(x).dtype)
with torch.autocast("cpu", dtype=torch.bfloat16):  # or autocast casts
    print(linear(x).dtype, conv(x.unsqueeze(-1)).dtype)
print(linear.weight.dtype, conv.weight.dtype)  # the weights stay float32

# %% bf16-fix-checks tags=["remove-cell"]
assert linear(x.float()).dtype == torch.float32
assert linear_bf16(x).dtype == linear_bf16.weight.dtype == torch.bfloat16
with torch.autocast("cpu", dtype=torch.bfloat16):
    assert linear(x).dtype == conv(x.unsqueeze(-1)).dtype == torch.bfloat16
    assert linear(x.float()).dtype == torch.bfloat16  # a float32 input too
assert linear.weight.dtype == conv.weight.dtype == torch.float32
