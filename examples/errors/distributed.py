# %% [markdown]
# Errors of distributed training, on CPU with the gloo backend and
# two processes: a collective that never returns, collectives that
# differ between ranks, a process group without a backend for CPU

# %% [markdown] lang="zh"
# 分布式训练的报错，在 CPU 上用 gloo 后端和两个进程重现：
# 永远不返回的集合通信、各 rank 调用的集合通信不一致、
# 进程组里没有为 CPU 准备后端

# %% setup
import contextlib
import os
import re
import time
from datetime import timedelta

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def launch(worker, *args):
    """Run worker(rank, store, *args) in 2 processes, return their records"""
    store = os.path.abspath(f"store-{worker.__name__}")
    if os.path.exists(store):  # left by an earlier run of the cell
        os.remove(store)
    ready = mp.get_context("fork").Barrier(2)
    mp.start_processes(
        started, args=(ready, worker, store, *args), nprocs=2,
        start_method="fork",
    )
    return [torch.load(f"{worker.__name__}-{rank}.pt") for rank in range(2)]


def started(rank, ready, worker, *args):
    ready.wait()  # both ranks connect at once: timeout= bounds connecting too
    worker(rank, *args)


@contextlib.contextmanager
def stderr_off():
    """c10d's log lines carry the time of day: keep them off the page"""
    saved = os.dup(2)
    with open(os.devnull, "w") as devnull:
        os.dup2(devnull.fileno(), 2)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


# %% barrier-hang raises="RuntimeError: […] Timed out waiting 2000ms for recv operation to complete"
def skips_barrier(rank, store, done):
    dist.init_process_group(
        "gloo", init_method=f"file://{store}", rank=rank, world_size=2,
        timeout=timedelta(seconds=2),  # bounds every collective's wait
    )
    record = {}
    if rank == 0:
        start = time.monotonic()
        try:
            dist.barrier()  # only rank 0 calls it
        except RuntimeError as error:
            record["error"] = str(error)
        record["waited"] = time.monotonic() - start
        done.set()
    else:
        done.wait()  # rank 1 is alive, busy elsewhere
    torch.save(record, f"skips_barrier-{rank}.pt")
    dist.destroy_process_group()


done = mp.get_context("fork").Event()
records = launch(skips_barrier, done)
raise RuntimeError(records[0]["error"]) from None  # what rank 0 raised

# %% barrier-hang-checks tags=["remove-cell"]
assert re.fullmatch(
    r"\[\S+/gloo/transport/tcp/\S+\] Timed out waiting 2000ms "
    r"for recv operation to complete",
    records[0]["error"],
), records[0]["error"]
assert 2.0 <= records[0]["waited"] < 10, records[0]["waited"]
assert records[1] == {}
assert dist.default_pg_timeout == timedelta(minutes=30)  # without timeout=

# %% barrier-exit-checks tags=["remove-cell"]
# when the rank that skipped the barrier exits instead, the waiting rank fails
# at once: its peer closed the connection (which of the two words, closed or
# reset, depends on timing)
def leaves_early(rank, store, connected):
    dist.init_process_group(
        "gloo", init_method=f"file://{store}", rank=rank, world_size=2,
        timeout=timedelta(seconds=30),  # the failure comes first, not the timeout
    )
    record = {}
    if rank == 1:
        connected.wait()  # leaving during rank 0's connecting fails its init
    else:
        connected.set()
        start = time.monotonic()
        try:
            dist.barrier()
        except RuntimeError as error:
            record["error"] = str(error)
        record["waited"] = time.monotonic() - start
    torch.save(record, f"leaves_early-{rank}.pt")
    dist.destroy_process_group()  # rank 1 is done, and its process exits


early = launch(leaves_early, mp.get_context("fork").Event())
assert re.match(
    r"\[\S+/gloo/transport/tcp/\S+\] (Connection closed by peer|Read error) "
    r"\[[\d.]+\]:\d+(: Connection reset by peer)?",
    early[0]["error"],
), early[0]["error"]
assert early[0]["waited"] < 2.0, early[0]
assert early[1] == {}

# %% monitored raises="RuntimeError: [Rank 0]: Rank 1 failed to pass monitoredBarrier in 2000 ms"
def monitored(rank, store, done):
    dist.init_process_group(
        "gloo", init_method=f"file://{store}", rank=rank, world_size=2,
        timeout=timedelta(seconds=30),  # the group's own bound, not reached
    )
    record = {}
    if rank == 0:
        start = time.monotonic()
        try:
            with stderr_off():  # gloo also logs the error
                dist.monitored_barrier(timeout=timedelta(seconds=2))
        except RuntimeError as error:
            record["error"] = str(error)
        record["waited"] = time.monotonic() - start
        done.set()
    else:
        done.wait()  # rank 1 never reaches the barrier
    torch.save(record, f"monitored-{rank}.pt")
    dist.destroy_process_group()


done = mp.get_context("fork").Event()
records = launch(monitored, done)
# gloo's own message under it says the milliseconds left, which vary: …
message = re.sub(r"waiting \d+ms", "waiting …ms", records[0]["error"])
raise RuntimeError(message) from None

# %% monitored-checks tags=["remove-cell"]
assert records[0]["error"].startswith(
    "[Rank 0]: Rank 1 failed to pass monitoredBarrier in 2000 ms"
), message
assert re.search(r"Original exception: \n\[\S+/gloo/transport/tcp/\S+\] "
                 r"Timed out waiting \d+ms for recv operation to complete$",
                 records[0]["error"]), records[0]["error"]
assert 2.0 <= records[0]["waited"] < 10, records[0]["waited"]  # not 30 s
doc = " ".join(dist.monitored_barrier.__doc__.split())
assert "only supported with the GLOO backend" in doc
assert "it can have a performance impact and should only be used for debugging" in doc
assert "will throw on the first failed rank it encounters" in doc
assert "By setting ``wait_all_ranks=True`` ``monitored_barrier`` will collect all " \
    "failed ranks" in doc

# %% mismatch raises="RuntimeError: Detected mismatch between collectives on ranks. Rank 0 is running collective: CollectiveFingerPrint(SequenceNumber=0, OpType=ALLREDUCE"
def mismatch(rank, store):
    # torch reads the variable when torch.distributed is imported: set it in
    # the shell, or read it again as here
    os.environ["TORCH_DISTRIBUTED_DEBUG"] = "DETAIL"
    dist.set_debug_level_from_env()
    dist.init_process_group(
        "gloo", init_method=f"file://{store}", rank=rank, world_size=2,
        timeout=timedelta(seconds=2),
    )
    x = torch.ones(3)
    record = {}
    try:
        if rank == 0:
            dist.all_reduce(x)
        else:
            dist.broadcast(x, src=0)  # another collective
    except RuntimeError as error:
        record["error"] = str(error)
    record["backend"] = type(dist.group.WORLD._get_backend(x.device)).__name__
    torch.save(record, f"mismatch-{rank}.pt")
    dist.destroy_process_group()


records = launch(mismatch)
raise RuntimeError(records[0]["error"]) from None

# %% mismatch-checks tags=["remove-cell"]
zero, one = records[0]["error"], records[1]["error"]
assert zero.startswith("Detected mismatch between collectives on ranks. "
                       "Rank 0 is running collective: "), zero
assert "OpType=ALLREDUCE, TensorShape=[3], TensorDtypes=Float" in zero
assert "but Rank 1 is running collective: " \
       "CollectiveFingerPrint(SequenceNumber=0, OpType=BROADCAST" in zero
assert re.search(r"Op type: ALLREDUCE ?vs BROADCAST", zero), zero
# rank 1 raised the same error, from its side
assert one.startswith("Detected mismatch between collectives on ranks. "
                      "Rank 1 is running collective: "), one
assert "but Rank 0 is running collective" in one
# DETAIL wraps the group's backend in a checking one
assert records[0]["backend"] == records[1]["backend"] == "_ProcessGroupWrapper"
# ... which runs its checks on a helper gloo group of its own
import inspect

wrapper = inspect.getsource(dist.distributed_c10d._create_process_group_wrapper)
assert "helper_pg = ProcessGroupGloo(" in wrapper
assert "_ProcessGroupWrapper(wrapped_pg, helper_pg)" in wrapper
# the parent's debug level was left alone
assert dist.get_debug_level() == dist.DebugLevel.OFF


# without DETAIL: no check, the group has gloo itself, and the same two
# calls wait until the timeout
def mismatch_off(rank, store, done):
    os.environ["TORCH_DISTRIBUTED_DEBUG"] = "DETAIL"  # too late: not read
    dist.init_process_group(
        "gloo", init_method=f"file://{store}", rank=rank, world_size=2,
        timeout=timedelta(seconds=1),
    )
    x = torch.ones(3)
    record = {"level": dist.get_debug_level().name}
    start = time.monotonic()
    try:
        if rank == 0:
            dist.all_reduce(x)
        else:
            dist.broadcast(x, src=0)
    except RuntimeError as error:
        record["error"] = str(error)
    record["waited"] = time.monotonic() - start
    record["backend"] = type(dist.group.WORLD._get_backend(x.device)).__name__
    if rank == 0:
        done.set()
    else:
        done.wait()
    torch.save(record, f"mismatch_off-{rank}.pt")
    dist.destroy_process_group()


off = launch(mismatch_off, mp.get_context("fork").Event())
# the first to time out closes its connection: the other may say so instead
assert any("Timed out waiting 1000ms" in record["error"] for record in off), off
for record in off:
    assert record["level"] == "OFF" and record["backend"] == "ProcessGroupGloo"
    assert record["waited"] >= 0.95, record
    assert "mismatch" not in record["error"] and "ALLREDUCE" not in record["error"]

# %% no-backend raises="RuntimeError: No backend type associated with device type cpu"
def cuda_only(rank, store, connected):
    dist.init_process_group(
        "cuda:gloo",  # a backend for CUDA tensors only
        init_method=f"file://{store}", rank=rank, world_size=2,
        timeout=timedelta(seconds=2),
    )
    record = {"config": str(dist.get_backend_config())}
    try:
        dist.all_reduce(torch.ones(3))  # a CPU tensor
    except RuntimeError as error:
        record["error"] = str(error)
    connected.wait()  # leaving first cuts the other's connecting short
    torch.save(record, f"cuda_only-{rank}.pt")
    with stderr_off():  # a log line about hooks of a backend it lacks
        dist.destroy_process_group()


records = launch(cuda_only, mp.get_context("fork").Barrier(2))
print(records[0]["config"])
raise RuntimeError(records[0]["error"]) from None

# %% no-backend-checks tags=["remove-cell"]
for record in records:
    assert record["config"] == "cuda:gloo", record
    assert record["error"] == "No backend type associated with device type cpu"
# "nccl" alone names a backend for CUDA only, like "cuda:gloo"
from torch.distributed.distributed_c10d import BackendConfig

assert BackendConfig("nccl").get_device_backend_map() == {"cuda": "nccl"}
assert BackendConfig("cuda:gloo").get_device_backend_map() == {"cuda": "gloo"}
assert dist.Backend.backend_capability["nccl"] == ["cuda"]
both = BackendConfig("cpu:gloo,cuda:nccl").get_device_backend_map()
assert both == {"cpu": "gloo", "cuda": "nccl"}
assert set(dist.Backend.backend_capability["gloo"]) == {"cpu", "cuda"}

# %% no-backend-fix
def per_device(rank, store):
    dist.init_process_group(
        "cpu:gloo,cuda:gloo",  # with NCCL: "cpu:gloo,cuda:nccl"
        init_method=f"file://{store}", rank=rank, world_size=2,
        timeout=timedelta(seconds=2),
    )
    x = torch.ones(3)
    dist.all_reduce(x)  # the CPU tensor goes to gloo
    torch.save({"config": str(dist.get_backend_config()), "x": x},
               f"per_device-{rank}.pt")
    with stderr_off():
        dist.destroy_process_group()


records = launch(per_device)
print(records[0]["config"])
print(records[0]["x"], records[1]["x"])

# %% no-backend-fix-checks tags=["remove-cell"]
for record in records:
    assert record["config"] == "cpu:gloo,cuda:gloo"
    assert torch.equal(record["x"], torch.full((3,), 2.0))
