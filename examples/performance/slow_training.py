# %% [markdown]
# Why training is slow, step by step: measure where the time goes first
# (loading or compute), then DataLoader workers, pin_memory and
# non_blocking, mixed precision, torch.compile, channels_last and the
# batch size, each measured before and after. The CPU cells run on the
# build machine; the CUDA cells are recorded on a GPU

# %% [markdown] lang="zh"
# 训练为什么慢，逐项排查：先测量时间花在哪里（加载数据还是计算），再看
# `DataLoader` 的 worker、`pin_memory` 与 `non_blocking`、混合精度、
# `torch.compile`、`channels_last` 和 batch 大小，每一项都测量前后对比。
# CPU 单元在构建机器上运行，CUDA 单元在 GPU 上录制

# %% setup
import time

import torch
from torch import nn
from torch.nn import functional as F
from torch.utils.data import DataLoader, Dataset


class SlowDataset(Dataset):
    """Samples that take 1 ms each to load, as reading a file does"""

    def __init__(self, n=256):
        self.x = torch.randn(n, 128)
        self.y = torch.randint(0, 10, (n,))

    def __len__(self):
        return len(self.x)

    def __getitem__(self, index):
        time.sleep(0.001)  # stands for reading and decoding a sample
        return self.x[index], self.y[index]


def make_model():
    return nn.Sequential(nn.Linear(128, 256), nn.ReLU(), nn.Linear(256, 10))


def train_epoch(loader, model, optimizer):
    """Seconds spent waiting for batches, and seconds spent computing"""
    waiting = computing = 0.0
    start = time.perf_counter()
    for x, y in loader:
        loaded = time.perf_counter()
        waiting += loaded - start
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        start = time.perf_counter()
        computing += start - loaded
    return waiting, computing


def fastest(fn, repeat=5):  # the best of a few runs: the least disturbed
    fn()  # a warm-up run
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


model = make_model()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

# %% measure tags=["varies"]
loader = DataLoader(SlowDataset(), batch_size=32, shuffle=True)
train_epoch(loader, model, optimizer)  # a warm-up epoch
waiting, computing = train_epoch(loader, model, optimizer)
share = waiting / (waiting + computing)
print(f"waiting for data: {share:.0%} of the epoch")

# %% measure-checks tags=["remove-cell"]
# 256 samples of 1 ms: at least a quarter of a second of waiting
assert waiting >= 0.256 and share > 0.5

# %% workers tags=["varies"]
def epoch(loader):
    return lambda: train_epoch(loader, model, optimizer)


plain = DataLoader(SlowDataset(), batch_size=32, shuffle=True)
workers = DataLoader(SlowDataset(), batch_size=32, shuffle=True,
                     num_workers=2, persistent_workers=True)
before, after = fastest(epoch(plain), 3), fastest(epoch(workers), 3)
print(f"num_workers=2: the epoch is {before / after:.1f}x as fast")
waiting, computing = train_epoch(workers, model, optimizer)
print(f"waiting for data: {waiting / (waiting + computing):.0%} of the epoch")
del workers  # shuts its workers down

# %% workers-checks tags=["remove-cell"]
# faster, on a machine that runs other work beside it too (1.2x while two
# other recordings ran on these two cores)
assert before / after > 1.1
assert waiting / (waiting + computing) > 0.5  # still waiting most of the time

# %% pin-memory tags=["requires-cuda"]
device = "cuda"
images = torch.randn(64, 3, 224, 224)  # 37 MiB, a batch of images


def copy_batches(pinned):
    source = images.pin_memory() if pinned else images  # pin_memory=True
    def run():
        for _ in range(5):
            x = source.to(device, non_blocking=pinned)
            x.mul_(2)  # work on the GPU that needs the batch
        torch.cuda.synchronize()
    return run


pageable_s = fastest(copy_batches(False))
pinned_s = fastest(copy_batches(True))
print(f"pin_memory + non_blocking: {pageable_s / pinned_s:.1f}x as fast")

# %% mixed-precision tags=["varies"]
wide = nn.Sequential(nn.Linear(256, 1024), nn.ReLU(), nn.Linear(1024, 256))
x = torch.randn(64, 256)


def step(autocast):
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
        out = wide(x)
    out.float().sum().backward()
    return out.dtype


fp32_s = fastest(lambda: step(False), 3)
bf16_s = fastest(lambda: step(True), 3)
print("CPU:", torch.backends.cpu.get_cpu_capability())
print(f"bfloat16 autocast: {fp32_s / bf16_s:.2f}x as fast as float32")

# %% mixed-precision-checks tags=["remove-cell"]
assert step(True) == torch.bfloat16 and step(False) == torch.float32
if torch.backends.cpu.get_cpu_capability() == "AVX2":  # no bfloat16 in it
    assert bf16_s > 2 * fp32_s

# %% mixed-precision-gpu tags=["requires-cuda"]
wide_gpu = wide.to("cuda")
x_gpu = torch.randn(8192, 256, device="cuda")


def gpu_step(autocast):
    with torch.autocast("cuda", dtype=torch.bfloat16, enabled=autocast):
        out = wide_gpu(x_gpu)
    out.float().sum().backward()
    torch.cuda.synchronize()


fp32_s = fastest(lambda: [gpu_step(False) for _ in range(10)])
bf16_s = fastest(lambda: [gpu_step(True) for _ in range(10)])
print(f"bfloat16 autocast on the GPU: {fp32_s / bf16_s:.1f}x as fast")

# %% compile-gpu tags=["requires-cuda"]
compiled = torch.compile(wide_gpu)
start = time.perf_counter()
compiled(x_gpu).sum().backward()  # the first call compiles
torch.cuda.synchronize()
first_s = time.perf_counter() - start


def steps(module):
    def run():
        for _ in range(10):
            module(x_gpu).sum().backward()
        torch.cuda.synchronize()
    return run


eager_s, compiled_s = fastest(steps(wide_gpu)), fastest(steps(compiled))
print(f"torch.compile: {eager_s / compiled_s:.1f}x as fast, after a first "
      f"call as long as {first_s / (eager_s / 10):.0f} eager steps")

# %% channels-last tags=["varies"]
conv = nn.Sequential(
    nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(),
    nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(),
)
images = torch.randn(16, 3, 64, 64)
conv_last = conv.to(memory_format=torch.channels_last)  # the same module
images_last = images.to(memory_format=torch.channels_last)
conv_first = nn.Sequential(
    nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(),
    nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(),
)
first_s = fastest(lambda: conv_first(images).sum().backward())
last_s = fastest(lambda: conv_last(images_last).sum().backward())
print(f"channels_last: {first_s / last_s:.2f}x as fast")

# %% channels-last-checks tags=["remove-cell"]
out = conv_last(images_last)
assert out.is_contiguous(memory_format=torch.channels_last)
assert conv_last[0].weight.is_contiguous(memory_format=torch.channels_last)
assert conv_first(images).is_contiguous()  # the default layout, NCHW

# %% batch-size tags=["varies"]
data = torch.randn(2048, 128)
labels = torch.randint(0, 10, (2048,))


def samples_per_second(batch_size):
    def one_epoch():
        for i in range(0, len(data), batch_size):
            x, y = data[i:i + batch_size], labels[i:i + batch_size]
            loss = F.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    return len(data) / fastest(one_epoch, 3)


small, large = samples_per_second(8), samples_per_second(256)
print(f"batch size 256: {large / small:.1f}x the samples per second of 8")

# %% batch-size-checks tags=["remove-cell"]
assert large / small > 3

# %% threads tags=["varies"]
import os
import subprocess
import sys


def threads_of_a_new_process(**env):
    code = "import torch; print(torch.get_num_threads())"
    environ = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True,
                          text=True, env={**environ, **env}, check=True)
    return int(done.stdout)


now = torch.get_num_threads()
print("threads now:", now)
torch.set_num_threads(1)  # this process, from here on
print("after set_num_threads(1):", torch.get_num_threads())
torch.set_num_threads(now)
print("a new process:", threads_of_a_new_process())
# for a whole run, set before torch starts: OMP_NUM_THREADS=1 python train.py
print("with OMP_NUM_THREADS=1:", threads_of_a_new_process(OMP_NUM_THREADS="1"))

# %% threads-checks tags=["remove-cell"]
assert torch.get_num_threads() == now
assert 1 <= threads_of_a_new_process() <= os.cpu_count()
assert threads_of_a_new_process(OMP_NUM_THREADS="1") == 1

# %% batch-size-lr
torch.manual_seed(0)
x = torch.randn(4096, 8)
y = x[:, :3].argmax(dim=1)  # 3 classes


def train(batch_size, lr, warmup_steps=0, epochs=5):
    torch.manual_seed(1)
    model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 3))
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    if warmup_steps:  # from lr / 10 up to lr, over warmup_steps steps
        warmup = torch.optim.lr_scheduler.LinearLR(
            optimizer, start_factor=0.1, total_iters=warmup_steps)
    steps = 0
    for epoch in range(epochs):
        order = torch.randperm(len(x))
        for i in range(0, len(x), batch_size):
            batch = order[i:i + batch_size]
            loss = F.cross_entropy(model(x[batch]), y[batch])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if steps < warmup_steps:
                warmup.step()
            steps += 1
    with torch.no_grad():
        accuracy = (model(x).argmax(dim=1) == y).float().mean().item()
    return steps, accuracy


results = {}
for batch_size, lr, warmup_steps in [(32, 0.01, 0), (512, 0.01, 0),
                                     (512, 0.16, 8)]:  # 0.16 = 0.01 * 16
    steps, accuracy = train(batch_size, lr, warmup_steps)
    results[batch_size, lr] = accuracy
    print(f"batch {batch_size:3}, lr {lr}: {steps:3} steps, "
          f"accuracy {accuracy:.2f}")

# %% batch-size-lr-checks tags=["remove-cell"]
assert results[512, 0.01] < results[32, 0.01] - 0.05
assert results[512, 0.16] > results[512, 0.01] + 0.05
assert abs(results[512, 0.16] - results[32, 0.01]) < 0.03

# %% interop-threads raises="RuntimeError: Error: cannot set number of interop threads after parallel work has started or set_num_interop_threads called"
default = torch.get_num_interop_threads()  # reading it starts nothing
torch.set_num_interop_threads(4)  # the first call, before any inter-op work
print("inter-op threads:", torch.get_num_interop_threads())
torch.set_num_threads(2)  # intra-op threads: change them any time
print("intra-op threads:", torch.get_num_threads())
torch.set_num_threads(now)  # and back
torch.set_num_interop_threads(2)  # a second call

# %% interop-threads-checks tags=["remove-cell"]
assert torch.get_num_interop_threads() == 4  # the second call changed nothing
try:
    torch.set_num_interop_threads(4)  # even to the same number
except RuntimeError as error:
    assert "cannot set number of interop threads" in str(error)
else:
    raise AssertionError("set_num_interop_threads worked twice")
torch.set_num_threads(3)  # set_num_threads still works, as often as needed
assert torch.get_num_threads() == 3
torch.set_num_threads(now)
assert torch.get_num_threads() == now
# a new process with OMP_NUM_THREADS=1: the inter-op pool keeps its default
# size, and a first call after TorchScript's fork has run raises too
FIRST_CALL_AFTER_FORK = """
import os

import torch

print(torch.get_num_interop_threads(), flush=True)


@torch.jit.script
def fork_neg(x):
    return torch.jit.wait(torch.jit.fork(torch.neg, x))


fork_neg(torch.ones(2))
try:
    torch.set_num_interop_threads(1)
except RuntimeError as error:
    print(error, flush=True)
os._exit(0)  # skips the pool's teardown, which can abort at exit
"""
with open("fork_first.py", "w") as file:  # TorchScript reads the source
    file.write(FIRST_CALL_AFTER_FORK)
environ = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}
done = subprocess.run([sys.executable, "fork_first.py"], capture_output=True,
                      text=True, env={**environ, "OMP_NUM_THREADS": "1"})
assert done.returncode == 0, done.stderr
size, error = done.stdout.splitlines()
assert int(size) == default, (size, default)
assert error.startswith("Error: cannot set number of interop threads"), error

# %% worker-threads tags=["varies"]
import numpy as np


def os_threads():  # Linux: one entry per thread of this process
    return len(os.listdir("/proc/self/task"))


class ThreadReport(Dataset):
    """Each sample says how many threads its worker runs"""

    def __len__(self):
        return 2

    def __getitem__(self, index):
        before = os_threads()
        a = np.ones((300, 300))
        a @ a  # numpy's matrix product runs on its own BLAS threads
        return torch.get_num_threads(), before, os_threads()


main_threads = torch.get_num_threads()
torch.set_num_threads(4)  # the main process asks for 4 threads
reports = list(DataLoader(ThreadReport(), batch_size=None, num_workers=2))
for torch_threads, before, after in reports:
    print(f"worker: {torch_threads} torch thread, OS threads: "
          f"{before} before numpy's product, {after} after")
print("main process:", torch.get_num_threads(), "torch threads")
torch.set_num_threads(main_threads)

# %% worker-threads-checks tags=["remove-cell"]
assert len(reports) == 2
assert all(torch_threads == 1 for torch_threads, _, _ in reports)
assert torch.get_num_threads() == main_threads
limits = [os.environ.get(name) for name in
          ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")]
if sys.platform == "linux" and os.cpu_count() > 1 and not any(limits):
    # numpy's BLAS started threads of its own in each worker
    assert all(after > before for _, before, after in reports), reports
