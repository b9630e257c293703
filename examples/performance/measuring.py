# %% [markdown]
# Measuring speed and memory: torch.utils.benchmark.Timer against
# time.time(), CUDA's asynchronous launches, torch.profiler's table on CPU

# %% [markdown] lang="zh"
# 测量速度与内存：`torch.utils.benchmark.Timer` 与 `time.time()` 的对比、
# CUDA 的异步执行、CPU 上 `torch.profiler` 的统计表

# %% one-shot tags=["varies"]
import time

import torch
from torch import nn
from torch.utils import benchmark

x = torch.randn(64, 64)
y = torch.randn(64, 64)

times = []
for _ in range(5):
    start = time.time()
    x @ y
    times.append(time.time() - start)
print([f"{t * 1e6:.0f} µs" for t in times])

# %% one-shot-checks tags=["remove-cell"]
assert len(times) == 5 and max(times) > min(times)

# %% clocks
for name in ("time", "perf_counter"):
    info = time.get_clock_info(name)
    print(f"{name:13} monotonic={info.monotonic}, resolution={info.resolution}")

# %% clocks-checks tags=["remove-cell"]
assert not time.get_clock_info("time").monotonic \
    and time.get_clock_info("time").adjustable
assert time.get_clock_info("perf_counter").monotonic
assert not time.get_clock_info("perf_counter").adjustable

# %% timer tags=["varies"]
timer = benchmark.Timer(stmt="x @ y", globals={"x": x, "y": y})
measurement = timer.blocked_autorange(min_run_time=0.2)
print(f"median {measurement.median * 1e6:.1f} µs")
runs = measurement.number_per_run
print(f"{len(measurement.times)} measurements of {runs} runs each")
threads = torch.get_num_threads()
print(f"{measurement.num_threads} thread, of {threads} torch may use")

# %% timer-checks tags=["remove-cell"]
assert isinstance(measurement, benchmark.Measurement)
assert measurement.number_per_run > 1  # many calls per measurement, not one
assert len(measurement.times) >= 1 and measurement.median > 0
# it measured for at least min_run_time
assert sum(measurement.times) * measurement.number_per_run >= 0.2
# Timer's default, whatever torch.get_num_threads() says
assert measurement.num_threads == 1
assert timer._task_spec.num_threads == 1

# %% compare tags=["varies"]
def broadcast_matmul(x, y):
    return (x.unsqueeze(-1) * y.unsqueeze(0)).sum(dim=1)


results = []
for n in (16, 64):
    a, b = torch.randn(n, n), torch.randn(n, n)
    statements = (("x @ y", "x @ y"), ("broadcast", "broadcast_matmul(x, y)"))
    for label, stmt in statements:
        t = benchmark.Timer(
            stmt=stmt,
            globals={"x": a, "y": b, "broadcast_matmul": broadcast_matmul},
            label="matrix product",
            sub_label=f"{n}x{n}",
            description=label,
        )
        results.append(t.blocked_autorange(min_run_time=0.1))
benchmark.Compare(results).print()

# %% compare-checks tags=["remove-cell"]
# the same product
assert torch.allclose(broadcast_matmul(x, y), x @ y, atol=1e-4)
# the n x n x n temporary
assert (x.unsqueeze(-1) * y.unsqueeze(0)).shape == (64, 64, 64)
assert len(results) == 4 and all(m.median > 0 for m in results)
# no assert on which is faster: on a busy
# machine one slow block can swap the medians

# %% cuda-async tags=["requires-cuda", "varies"]
x = torch.randn(4096, 4096, device="cuda")
x @ x  # warm up: the first call loads the kernels
torch.cuda.synchronize()

start = time.perf_counter()
for _ in range(10):
    y = x @ x
launched = time.perf_counter() - start  # the launches only
torch.cuda.synchronize()  # wait until the GPU has finished
finished = time.perf_counter() - start
print(f"without synchronize: {launched * 1e3:.2f} ms")
print(f"with synchronize:    {finished * 1e3:.2f} ms")

# %% cuda-async-checks tags=["requires-cuda", "remove-cell"]
assert finished > 3 * launched  # the loop returned long before the GPU was done

# %% cuda-events tags=["requires-cuda", "varies"]
begin = torch.cuda.Event(enable_timing=True)
end = torch.cuda.Event(enable_timing=True)
begin.record()
for _ in range(10):
    y = x @ x
end.record()
torch.cuda.synchronize()
print(f"events: {begin.elapsed_time(end):.2f} ms")  # measured on the GPU
gpu_timer = benchmark.Timer("x @ x", globals={"x": x})
timed = gpu_timer.blocked_autorange(min_run_time=0.2)
print(f"Timer:  {timed.median * 1e3:.2f} ms per product")

# %% cuda-events-checks tags=["requires-cuda", "remove-cell"]
assert begin.elapsed_time(end) > 0 and timed.median > 0
# Timer synchronises: its time per product
# is of the events' order, not a launch's
assert timed.median * 1e3 > 0.3 * begin.elapsed_time(end) / 10

# %% cuda-memory tags=["requires-cuda"]
del y
torch.cuda.reset_peak_memory_stats()
before = torch.cuda.memory_allocated()
y = x @ x
z = (y * 2).sum()
allocated = (torch.cuda.memory_allocated() - before) / 2**20
peak = (torch.cuda.max_memory_allocated() - before) / 2**20
print(f"allocated now: {allocated:.0f} MiB")
print(f"peak:          {peak:.0f} MiB")

# %% cuda-memory-checks tags=["requires-cuda", "remove-cell"]
one = 4096 * 4096 * 4  # bytes of one 4096x4096 float32 tensor: 64 MiB
assert one == 64 * 2**20
# y stays, y * 2 is gone
assert one <= torch.cuda.memory_allocated() - before < 2 * one
# y and y * 2 at once
assert torch.cuda.max_memory_allocated() - before >= 2 * one

# %% profiler tags=["varies"]
import os

# no profiler_start/stop lines from the profiler
os.environ["KINETO_LOG_LEVEL"] = "6"

model = nn.Sequential(nn.Linear(128, 256), nn.ReLU(), nn.Linear(256, 10))
x = torch.randn(64, 128)
model(x).sum().backward()  # a first pass outside the profile: one-time setup
model.zero_grad()

with torch.profiler.profile(
    activities=[torch.profiler.ProfilerActivity.CPU], profile_memory=True
) as prof:
    with torch.profiler.record_function("forward"):
        loss = model(x).logsumexp(dim=1).mean()
    with torch.profiler.record_function("backward"):
        loss.backward()

table = prof.key_averages().table(
    sort_by="cpu_time_total", row_limit=8, max_name_column_width=24
)
print(table)

# %% profiler-checks tags=["remove-cell"]
events = {e.key: e for e in prof.key_averages()}
assert {"forward", "backward", "aten::addmm", "aten::relu"} <= set(events)
assert events["aten::addmm"].count == 2  # one per Linear in the forward pass
# its outputs
assert events["aten::addmm"].cpu_memory_usage == (64 * 256 + 64 * 10) * 4
assert events["forward"].cpu_time_total \
    >= events["aten::addmm"].cpu_time_total / 2

# %% item-every-n
import math

import torch.nn.functional as F

torch.manual_seed(0)
batches = [(torch.randn(32, 16), torch.randn(32, 1)) for _ in range(100)]


def train(item_every_step):
    torch.manual_seed(0)
    model = nn.Linear(16, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    running = torch.zeros(())  # on a GPU: torch.zeros((), device=device)
    total, means = 0.0, []
    for step, (x, y) in enumerate(batches, start=1):
        loss = F.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if item_every_step:
            total += loss.item()  # on a GPU: waits for the GPU every step
        else:
            running += loss.detach()  # stays on the device: no waiting
        if step % 25 == 0:
            if not item_every_step:
                total = running.item()  # one wait every 25 steps
                running.zero_()
            means.append(total / 25)
            total = 0.0
    return means


every_step, every_25 = train(True), train(False)
print("item() every step:", [round(m, 4) for m in every_step])
print("item() every 25:  ", [round(m, 4) for m in every_25])

# %% item-every-n-checks tags=["remove-cell"]
assert len(every_step) == len(every_25) == 4
# the same means: float32 on the device against Python floats
pairs = zip(every_step, every_25, strict=True)
assert all(math.isclose(a, b, rel_tol=1e-5) for a, b in pairs)
assert [round(m, 4) for m in every_step] == [round(m, 4) for m in every_25]
# detach(): the running total holds no graph
running = torch.zeros(())
running += F.mse_loss(nn.Linear(16, 1)(batches[0][0]), batches[0][1]).detach()
assert running.grad_fn is None and not running.requires_grad

# %% sync-debug tags=["requires-cuda"]
import warnings

loss = torch.randn(1000, device="cuda").square().mean()
running = torch.zeros((), device="cuda")
torch.cuda.set_sync_debug_mode("warn")  # warn at each call that waits
found = {}
for name, call in [("running += loss", lambda: running.add_(loss.detach())),
                   ("loss.item()", lambda: loss.item()),
                   ("loss.cpu()", lambda: loss.cpu()),
                   ("loss.tolist()", lambda: loss.tolist())]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    found[name] = sorted({str(w.message).split(" (Triggered")[0]
                          for w in caught})
    print(f"{name:16}", found[name] or "no warning")
torch.cuda.set_sync_debug_mode("default")

# %% sync-debug-checks tags=["requires-cuda", "remove-cell"]
assert torch.cuda.get_sync_debug_mode() == 0  # back to the default
assert found["running += loss"] == []
assert all(found[name] for name in ("loss.item()", "loss.cpu()", "loss.tolist()"))
torch.cuda.set_sync_debug_mode("error")  # or raise instead of warning
try:
    loss.item()
except RuntimeError as error:
    assert "synchroniz" in str(error)
else:
    raise AssertionError("item() did not synchronise")
torch.cuda.set_sync_debug_mode("default")
