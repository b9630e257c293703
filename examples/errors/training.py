# %% [markdown]
# Errors of the training loop: checkpoints,
# data loading (a worker killed by the system), modules,
# targets and devices, a distributed collective timing out,
# a distributed job's port already in use

# %% [markdown] lang="zh"
# 训练循环中的报错：检查点、数据加载（被系统杀掉的 worker）、模块、
# 目标（target）与设备，分布式集合通信超时，以及分布式任务的端口已被占用

# %% setup
import torch
from torch import nn
import torch.nn.functional as F
from torch.utils.data import DataLoader
import re

# %% module-prefix tags=["raises-exception"]
model = nn.Linear(2, 1)
wrapped = nn.DataParallel(model)  # DistributedDataParallel does the same
torch.save(wrapped.state_dict(), "checkpoint.pt")
nn.Linear(2, 1).load_state_dict(torch.load("checkpoint.pt"))

# %% module-prefix-fix
state = torch.load("checkpoint.pt")
print(list(state))
fresh = nn.Linear(2, 1)
fresh.load_state_dict(
    {key.removeprefix("module."): value for key, value in state.items()}
)
# better: save the inner model
torch.save(wrapped.module.state_dict(), "checkpoint.pt")
print(list(torch.load("checkpoint.pt")))

# %% module-prefix-fix-checks tags=["remove-cell"]
# on a GPU machine DataParallel moves `model` to
# cuda:0, and the checkpoint holds CUDA tensors
assert torch.equal(fresh.weight, model.weight.cpu()) and list(
    torch.load("checkpoint.pt")
) == ["weight", "bias"]

# %% module-prefix-compile tags=["remove-cell"]
# compiles nothing until called
compiled = torch.compile(nn.Linear(2, 1), backend="eager")
assert list(compiled.state_dict()) == ["_orig_mod.weight", "_orig_mod.bias"]

# %% module-prefix-compile-fix
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(2, 1)

    def forward(self, x):
        return self.linear(x)


model = Model()
model.compile()  # compiles in place, at its first call: no wrapper
print(type(model).__name__, list(model.state_dict()))

# %% module-prefix-compile-fix-checks tags=["remove-cell"]
assert type(model) is Model
compiled_graphs = []


def counting(graph, example_inputs):
    compiled_graphs.append(graph)
    return graph.forward


model.compile(backend=counting)
model(torch.randn(3, 2))
assert len(compiled_graphs) == 1  # it does compile
fresh = Model()
fresh.load_state_dict(model.state_dict())  # into a plain model, as saved
torch._dynamo.reset()

# %% state-dict-model tags=["raises-exception"]
# a state_dict, not a model
torch.save(nn.Linear(2, 1).state_dict(), "checkpoint.pt")
model = torch.load("checkpoint.pt")
model.eval()

# %% state-dict-model-fix
model = nn.Linear(2, 1)  # build the model in code, then fill in its tensors
model.load_state_dict(torch.load("checkpoint.pt"))
print(model.eval())

# %% state-dict-model-fix-checks tags=["remove-cell"]
assert type(torch.load("checkpoint.pt")).__name__ == "OrderedDict" \
    and not model.training

# %% size-mismatch tags=["raises-exception"]
# trained with 4 outputs
torch.save(nn.Linear(2, 4).state_dict(), "checkpoint.pt")
nn.Linear(2, 3).load_state_dict(torch.load("checkpoint.pt"))  # rebuilt with 3

# %% size-mismatch-fix
state = torch.load("checkpoint.pt")
# the shapes it was trained with
print({key: tuple(value.shape) for key, value in state.items()})
model = nn.Linear(2, state["weight"].shape[0])
model.load_state_dict(state)

# %% size-mismatch-fix-checks tags=["remove-cell"]
assert model.out_features == 4

# %% weights-only tags=["raises-exception"] holds=">=2.6" claim="`torch.load` defaults to `weights_only=True`: a checkpoint holding an object of your own class raises `UnpicklingError`"
class Config:
    def __init__(self, hidden):
        self.hidden = hidden


torch.save(
    {"config": Config(hidden=8), "state": model.state_dict()}, "checkpoint.pt"
)
torch.load("checkpoint.pt")  # weights_only=True by default since torch 2.6

# %% weights-only-fix
torch.serialization.add_safe_globals([Config])  # trust this one class
checkpoint = torch.load("checkpoint.pt")
print(checkpoint["config"].hidden)
# loads anything: only files you trust
# torch.load("checkpoint.pt", weights_only=False)

# %% weights-only-fix-checks tags=["remove-cell"]
assert isinstance(checkpoint["config"], Config) and torch.load(
    "checkpoint.pt", weights_only=False
)["config"].hidden == 8

# %% stack-sizes tags=["raises-exception"]
sentences = [torch.tensor([1, 2, 3]), torch.tensor([4, 5])]
next(iter(DataLoader(sentences, batch_size=2)))

# %% stack-sizes-fix
from torch.nn.utils.rnn import pad_sequence


def pad(batch):
    lengths = torch.tensor([len(s) for s in batch])
    return pad_sequence(batch, batch_first=True), lengths


loader = DataLoader(sentences, batch_size=2, collate_fn=pad)
padded, lengths = next(iter(loader))
print(padded, lengths)

# %% stack-sizes-fix-checks tags=["remove-cell"]
assert torch.equal(padded, torch.tensor([[1, 2, 3], [4, 5, 0]])) \
    and lengths.tolist() == [3, 2]

# %% collate-type tags=["raises-exception"]
class Sample:  # e.g. a PIL image or a custom record
    def __init__(self, value):
        self.value = value


next(iter(DataLoader([Sample(1), Sample(2)], batch_size=2)))

# %% collate-type-fix
def collate_samples(batch):  # a function of the module, not a lambda: see below
    return torch.tensor([sample.value for sample in batch])


loader = DataLoader([Sample(1), Sample(2)], batch_size=2,
                    collate_fn=collate_samples)
batch = next(iter(loader))
print(batch)

# %% collate-type-fix-checks tags=["remove-cell"]
assert batch.tolist() == [1, 2]

# %% pickle-local tags=["raises-exception"]
def make_loader(samples):
    return DataLoader(samples, batch_size=2, num_workers=2,
                      collate_fn=lambda b: torch.tensor([s.value for s in b]),
                      # forkserver fails the same way
                      multiprocessing_context="spawn")


next(iter(make_loader([Sample(1), Sample(2)])))

# %% pickle-local-fix
import pickle

loader = DataLoader([Sample(1), Sample(2)], batch_size=2, num_workers=2,
                    collate_fn=collate_samples, multiprocessing_context="spawn")
print(len(pickle.dumps(loader.collate_fn)) > 0, loader.collate_fn.__qualname__)

# %% pickle-local-fix-checks tags=["remove-cell"]
def local_function():
    def collate(batch):
        return batch

    return collate


# a lambda anywhere, a local function
for unnamed in (lambda batch: batch, local_function()):
    try:
        pickle.dumps(unnamed)
    except (pickle.PicklingError, AttributeError) as error:
        assert "lambda" in str(error) \
            or "Can't pickle local object" in str(error)
    else:
        raise AssertionError(f"{unnamed} was pickled")
# pickled by name
assert pickle.loads(pickle.dumps(collate_samples)) is collate_samples
# what Python 3.14 raises instead: no AttributeError, named as the page says,
# raised by the C pickler that multiprocessing's subclasses
assert not issubclass(pickle.PicklingError, AttributeError)
assert pickle.PicklingError.__module__ == "_pickle"
from multiprocessing.reduction import ForkingPickler

assert issubclass(ForkingPickler, pickle.Pickler)
assert pickle.Pickler.__module__ == "_pickle"
import warnings

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # the warning the page shows once
    # forkserver, Linux's default from Python 3.14
    def forkserver_loader(samples):
        return DataLoader(
            samples,
            batch_size=2,
            num_workers=2,
            collate_fn=lambda b: b,
            multiprocessing_context="forkserver"
        )

    try:
        next(iter(forkserver_loader([Sample(1), Sample(2)])))
    except AttributeError as error:
        assert "Can't pickle local object" in str(error) \
            and "<lambda>" in str(error)
    else:
        raise AssertionError("forkserver pickled a lambda")

# %% batchnorm-one tags=["raises-exception"]
bn = nn.BatchNorm1d(4)
bn(torch.randn(1, 4))  # training mode, a batch of one sample

# %% batchnorm-one-fix
# 4 + 4, the ninth dropped
loader = DataLoader(torch.randn(9, 4), batch_size=4, drop_last=True)
print([batch.shape[0] for batch in loader])
bn.eval()
print(bn(torch.randn(1, 4)).shape)  # in eval mode one sample is fine

# %% batchnorm-one-fix-checks tags=["remove-cell"]
assert [b.shape[0] for b in loader] == [4, 4]

# %% batchnorm-one-image
bn2d = nn.BatchNorm2d(3)  # training mode
x = torch.randn(1, 3, 8, 8)  # one image: 8 * 8 values per channel
print(bn2d(x).shape, bn2d.training)

# %% batchnorm-one-image-checks tags=["remove-cell"]
assert bn2d.training and bn2d.num_batches_tracked == 1
# normalised over the 64 values of each channel
assert torch.allclose(bn2d(x).mean(dim=(0, 2, 3)), torch.zeros(3), atol=1e-5)
for shape in [(1, 3, 1, 1), (1, 3)]:  # one value per channel
    layer = nn.BatchNorm2d(3) if len(shape) == 4 else nn.BatchNorm1d(3)
    try:
        layer(torch.randn(shape))
    except ValueError as error:
        assert "Expected more than 1 value per channel when training" \
            in str(error)
    else:
        raise AssertionError(f"{shape} should be refused")
nn.BatchNorm1d(3)(torch.randn(1, 3, 5))  # (N, C, L): 5 values per channel

# %% empty-params tags=["raises-exception"]
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        # a plain list: not registered
        self.layers = [nn.Linear(2, 2), nn.Linear(2, 1)]


torch.optim.SGD(Net().parameters(), lr=0.1)

# %% empty-params-fix
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 1)])


print(sum(p.numel() for p in Net().parameters()))

# %% empty-params-fix-checks tags=["remove-cell"]
class Plain(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = [nn.Linear(2, 2), nn.Linear(2, 1)]


# the plain list is invisible to state_dict() too
assert Plain().state_dict() == {}
assert len(list(Net().parameters())) == 4 and sum(
    p.numel() for p in Net().parameters()
) == 9

# %% missing-forward tags=["raises-exception"]
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(2, 1)

    def foward(self, x):  # a typo: nn.Module looks for `forward`
        return self.linear(x)


Model()(torch.ones(1, 2))

# %% missing-forward-fix
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(2, 1)

    def forward(self, x):
        return self.linear(x)


print(Model()(torch.ones(1, 2)).shape)

# %% missing-forward-fix-checks tags=["remove-cell"]
assert Model()(torch.ones(1, 2)).shape == (1, 1)

# %% target-bounds tags=["raises-exception"]
logits = torch.randn(2, 3)  # 3 classes: 0, 1, 2
F.cross_entropy(logits, torch.tensor([1, 3]))  # labels counted from 1: 1, 2, 3

# %% target-bounds-fix
labels = torch.tensor([1, 3])  # the same 1-based labels, from a file
print(F.cross_entropy(logits, labels - 1))

# %% target-bounds-fix-checks tags=["remove-cell"]
assert (labels - 1).tolist() == [0, 2] and (labels - 1).max() < logits.shape[1]

# %% embedding-range tags=["raises-exception"]
embedding = nn.Embedding(num_embeddings=10, embedding_dim=3)  # token ids 0 to 9
embedding(torch.tensor([3, 10]))

# %% embedding-range-fix
vocabulary_size = 11  # the largest id + 1
embedding = nn.Embedding(vocabulary_size, 3)
print(embedding(torch.tensor([3, 10])).shape)

# %% embedding-range-fix-checks tags=["remove-cell"]
assert embedding(torch.tensor([3, 10])).shape == (2, 3)

# %% bus-error
import mmap


class Truncated(torch.utils.data.Dataset):
    """Reads memory no file backs, as a worker does when /dev/shm is full"""

    def __len__(self):
        return 4

    def __getitem__(self, index):
        with open(f"sample-{index}.bin", "w+b") as file:
            file.truncate(4096)
            memory = mmap.mmap(file.fileno(), 4096)  # the file's pages, mapped
            file.truncate(0)  # the pages are gone: reading them is a bus error
            return memory[0]


loader = DataLoader(Truncated(), batch_size=2, num_workers=1)
try:
    next(iter(loader))
except RuntimeError as error:  # the worker's process id changes on every run
    message = re.sub(r"\d+", "<pid>", str(error))
    print(type(error).__name__ + ":", message)
    cause = error.__cause__  # what it was raised from, if anything
    if cause is not None:
        print("  raised from", type(cause).__name__ + ":",
              re.sub(r"\d+", "<pid>", str(cause)))

# %% bus-error-checks tags=["remove-cell"]
assert message.startswith("DataLoader worker (pid"), message
if "exited unexpectedly" in message:  # raised from the signal's error
    assert "is killed by signal: Bus error" in str(cause), cause
else:  # the signal's error itself, when it came outside the wait for data
    assert "is killed by signal: Bus error" in message, message
# The NUL before the output's RuntimeError: the worker's signal handler writes
# its message with sizeof(), which counts the C string's terminating NUL
import os
import resource
import signal

read_end, write_end = os.pipe()
child = os.fork()
if child == 0:  # torch's worker signal handlers, then a bus error
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    os.dup2(write_end, 2)
    torch._C._set_worker_signal_handlers()
    os.kill(os.getpid(), signal.SIGBUS)
    os._exit(0)
os.close(write_end)
_, status = os.waitpid(child, 0)
with os.fdopen(read_end, "rb") as pipe:
    written = pipe.read()
assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGBUS
assert written == b"ERROR: Unexpected bus error encountered in worker. " \
    b"This might be caused by insufficient shared memory (shm).\n\x00", written

# %% ancdata tags=["raises-exception"]
import os
import resource


class Many(torch.utils.data.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, index):
        return [torch.ones(1) for _ in range(100)]  # 100 tensors in each sample


soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
# the worker starts
it = iter(DataLoader(Many(), batch_size=None, num_workers=1))
# this process: 64 files more than it has open (a Jupyter kernel holds ~70)
limit = len(os.listdir("/dev/fd")) + 64
resource.setrlimit(resource.RLIMIT_NOFILE, (limit, hard))
kept = list(it)  # every tensor received keeps a file descriptor open

# %% ancdata-fix
import torch.multiprocessing

# by file name, not descriptor
torch.multiprocessing.set_sharing_strategy("file_system")
it = iter(DataLoader(Many(), batch_size=None, num_workers=1))
kept = list(it)
print(len(kept), "samples of", len(kept[0]),
      "tensors kept with 64 more open files allowed")

# %% ancdata-fix-checks tags=["remove-cell"]
import gc

assert resource.getrlimit(resource.RLIMIT_NOFILE)[0] == limit and len(kept) == 4
assert all(len(sample) == 100 for sample in kept)
resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
# free the shared memory now: its files in /dev/shm outlive a killed process
del kept, it
gc.collect()

# %% killed-worker tags=["raises-exception"]
import os
import signal


class Killed(torch.utils.data.Dataset):
    """A worker killed with SIGKILL, as the kernel's out-of-memory killer"""

    def __len__(self):
        return 4

    def __getitem__(self, index):
        os.kill(os.getpid(), signal.SIGKILL)  # no Python exception: gone


loader = DataLoader(Killed(), batch_size=2, num_workers=1)
try:
    next(iter(loader))
except RuntimeError as error:
    # raised first by the main process: the cause of "exited unexpectedly"
    cause, outer = error.__cause__, str(error)
    # its process id changes on every run: shown as …
    raise RuntimeError(re.sub(r"pid \d+", "pid …", str(cause))) from None

# %% killed-worker-checks tags=["remove-cell"]
assert isinstance(cause, RuntimeError)
assert re.fullmatch(r"DataLoader worker \(pid \d+\) is killed by signal: Killed. ",
                    str(cause)), str(cause)
assert re.fullmatch(r"DataLoader worker \(pid\(s\) \d+\) exited unexpectedly",
                    outer), outer

# %% dist-timeout tags=["raises-exception"]
import time
from datetime import timedelta

import torch.distributed as dist


def one_rank_missing(rank, store, ready, done):
    ready.wait()  # start together: the 2 s bound the rendezvous too
    dist.init_process_group(
        "gloo", init_method=f"file://{store}", rank=rank, world_size=2,
        timeout=timedelta(seconds=2),  # the default is 30 min (NCCL: 10)
    )
    dist.barrier()  # both processes are in the group
    if rank == 0:
        start = time.monotonic()
        try:
            dist.all_reduce(torch.ones(3))  # rank 1 never calls it
        except RuntimeError as error:
            waited = time.monotonic() - start
            torch.save({"error": str(error), "waited": waited}, "rank0.pt")
        finally:
            done.set()
    else:
        done.wait()  # alive but elsewhere, like a rank stuck in its data
    dist.destroy_process_group()


context = torch.multiprocessing.get_context("fork")
ready, done = context.Barrier(2), context.Event()
store = os.path.abspath("timeout-store")
if os.path.exists(store):  # left by an earlier run of this cell
    os.remove(store)
torch.multiprocessing.start_processes(
    one_rank_missing, args=(store, ready, done), nprocs=2,
    start_method="fork",
)
record = torch.load("rank0.pt")
raise RuntimeError(record["error"]) from None  # what rank 0 raised

# %% dist-timeout-checks tags=["remove-cell"] holds=">=2.12" claim="torch reads the flight recorder's size from `TORCH_FR_BUFFER_SIZE` as well as from its older name `TORCH_NCCL_TRACE_BUFFER_SIZE`" about="dist-timeout"
# rank 0 waited the whole timeout, then raised gloo's own message
assert re.fullmatch(
    r"\[\S+/gloo/transport/tcp/\S+\] Timed out waiting 2000ms "
    r"for recv operation to complete",
    record["error"],
), record["error"]
assert record["waited"] >= 2.0, record["waited"]
assert dist.default_pg_timeout == timedelta(minutes=30)
assert "Default value is 10 minutes for NCCL and 30 minutes for other" \
    in dist.init_process_group.__doc__
# the environment variables the page names are read by this torch
from pathlib import Path

root = Path(torch.__file__).parent
library = root / "lib" / "libtorch_cpu.so"
if library.is_file():  # Linux wheels
    text = library.read_bytes()
    for name in (
        b"TORCH_NCCL_ASYNC_ERROR_HANDLING", b"TORCH_NCCL_BLOCKING_WAIT",
        b"TORCH_DISTRIBUTED_DEBUG", b"TORCH_NCCL_TRACE_BUFFER_SIZE",
        b"NCCL_SOCKET_IFNAME", b"NCCL_DEBUG", b"GLOO_SOCKET_IFNAME",
    ):
        assert name in text, name
    del text
# DDP lists these among the variables it logs (the rest are NCCL's own)
ddp = (root / "nn" / "parallel" / "distributed.py").read_text()
for name in ("NCCL_DEBUG_SUBSYS", "NCCL_P2P_DISABLE", "NCCL_IB_DISABLE"):
    assert f'"{name}"' in ddp, name
c10d = (root / "distributed" / "distributed_c10d.py").read_text()
assert '"TORCH_FR_BUFFER_SIZE"' in c10d and "TORCH_NCCL_TRACE_BUFFER_SIZE" in c10d
assert dist.DebugLevel.DETAIL.name == "DETAIL"
# the CPU build has no NCCL code: this one is named in its tests only
tests = root / "testing" / "_internal" / "distributed" / "distributed_test.py"
if tests.is_file():
    tests = tests.read_text()
    assert "TORCH_NCCL_DUMP_ON_TIMEOUT" in tests
    # what its NCCL tests expect the watchdog's timeout error to contain
    assert '"caught collective operation timeout"' in tests
    # ... from a wait() that timed out, as a RuntimeError
    at = tests.index('"caught collective operation timeout"')
    assert "assertRaisesRegex(RuntimeError, err_regex)" in tests[at:at + 300]
    assert ".wait(timedelta(" in tests[at:at + 400]
# The watchdog's message the page quotes from ProcessGroupNCCL.cpp: what wait()
# raises it as, and the fields it prints, declared in this torch's header
assert issubclass(dist.DistBackendError, RuntimeError)
header = root / "include/torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp"
if header.is_file():  # wheels ship the headers
    header = header.read_text()
    work = header[header.index("class WorkNCCL"):]
    for declared in (
        "uint64_t seq_;", "size_t numelIn_", "size_t numelOut_",
        "std::chrono::milliseconds opTimeout_", "bool checkTimeout(",
        "const std::string& logPrefix() const;",
        "friend std::ostream& operator<<(",
    ):
        assert declared in work, declared

# %% flight-recorder-checks tags=["remove-cell"] holds=">=2.11" claim="The flight recorder is on by default, keeping the last 2000 collectives of each rank" about="dist-timeout"
# The flight recorder as the page describes it in this torch: on by default
# (2000 entries), dumped as comm_lib_trace_rank_<rank> under
# $XDG_CACHE_HOME/torch or ~/.cache/torch, read by torchfrtrace
from importlib.metadata import entry_points

recorder = root / "include/torch/csrc/distributed/c10d/FlightRecorder.hpp"
if recorder.is_file():  # wheels ship the headers
    declared = " ".join(recorder.read_text().split())
    assert 'getCvarInt( {"TORCH_FR_BUFFER_SIZE", "TORCH_NCCL_TRACE_BUFFER_SIZE"}, ' \
        '2000);' in declared
if library.is_file():
    text = library.read_bytes()
    assert b"\0TORCH_FR_DUMP_TEMP_FILE\0" in text
    assert b"\0TORCH_NCCL_DEBUG_INFO_TEMP_FILE\0" in text
    # the parts of the default path, as the library holds them
    for part in (b"\0XDG_CACHE_HOME\0", b"\0/.cache\0", b"\0/torch\0"):
        assert part in text, part
    assert b"comm_lib_trace_r" in text and b"nccl_trace_rank_" not in text
    del text
scripts = {e.name: e.value for e in entry_points(group="console_scripts")}
assert scripts["torchfrtrace"] == "torch.distributed.flight_recorder.fr_trace:main"

# %% assign-before-init raises="AttributeError: cannot assign module before Module.__init__() call"
class Model(nn.Module):
    def __init__(self):
        self.linear = nn.Linear(2, 1)  # super().__init__() never called

    def forward(self, x):
        return self.linear(x)


model = Model()

# %% no-init-attribute raises="AttributeError: 'Scale' object has no attribute …"
class Scale(nn.Module):
    def __init__(self, factor):
        self.factor = factor  # a plain number: no error yet

    def forward(self, x):
        return x * self.factor


Scale(2.0)(torch.ones(3))

# %% assign-before-init-fix
class Model(nn.Module):
    def __init__(self):
        super().__init__()  # first: it sets up the registries
        self.linear = nn.Linear(2, 1)

    def forward(self, x):
        return self.linear(x)


model = Model()
print(model)
print([name for name, _ in model.named_parameters()])

# %% assign-before-init-fix-checks tags=["remove-cell"]
assert [name for name, _ in model.named_parameters()] == ["linear.weight", "linear.bias"]
# Module.__init__ creates the dictionaries that __setattr__ registers into
assert {"_parameters", "_buffers", "_modules"} <= set(vars(nn.Module()))
assert not hasattr(Scale.__new__(Scale), "_modules")
# a parameter or a buffer before it: the same error, named for what it is


class Early(nn.Module):
    def __init__(self, what):
        if what == "parameters":
            self.weight = nn.Parameter(torch.ones(1))
        else:
            self.register_buffer("mean", torch.zeros(1))
        super().__init__()


for what, message in (
    ("parameters", "cannot assign parameters before Module.__init__() call"),
    ("buffer", "cannot assign buffer before Module.__init__() call"),
):
    try:
        Early(what)
    except AttributeError as error:
        assert str(error) == message, error
    else:
        raise AssertionError(f"{what} assigned before Module.__init__()")
# the plain number was kept: what failed is the call, which needs the hooks
scale = Scale.__new__(Scale)
scale.__init__(2.0)
assert scale.factor == 2.0

# %% address-in-use raises="torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address" holds=">=2.7" claim="A port already in use raises `torch.distributed.DistNetworkError`"
import os
from datetime import timedelta

import torch.distributed as dist


def training_job(port, started, finish):
    # silence a log line of this site's sandbox, which has no DNS
    os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=0, world_size=1)
    started.set()
    finish.wait()  # still training
    dist.destroy_process_group()


context = torch.multiprocessing.get_context("fork")
started, finish = context.Event(), context.Event()
job = context.Process(target=training_job, args=(29500, started, finish))
job.start()
assert started.wait(timeout=30)  # the first job holds port 29500
saved_environ = dict(os.environ)
# a second job on the same machine, with the same port
os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="29500")
try:
    dist.init_process_group(
        "gloo", rank=0, world_size=1, timeout=timedelta(seconds=5)
    )
finally:
    finish.set()
    job.join()
    os.environ.clear()
    os.environ.update(saved_environ)

# %% address-in-use-fix
jobs, finish = [], context.Event()
for port in (29500, 29501):  # a port for each job
    started = context.Event()
    job = context.Process(target=training_job, args=(port, started, finish))
    job.start()
    assert started.wait(timeout=30)  # in its group, and still running
    jobs.append(job)
print(sum(job.is_alive() for job in jobs), "jobs running at once")
finish.set()
for job in jobs:
    job.join()
print("exit codes:", [job.exitcode for job in jobs])

# %% address-in-use-fix-checks tags=["remove-cell"]
assert [job.exitcode for job in jobs] == [0, 0]
assert not dist.is_initialized()  # the failed second job joined no group
assert os.environ == saved_environ
# torchrun takes the port as --master-port (or --master_port)
from torch.distributed.run import get_args_parser

for flag in ("--master-port", "--master_port"):
    assert get_args_parser().parse_args([flag, "29501", "train.py"]).master_port == 29501

# %% truncated-file tags=["raises-exception"]
model = nn.Linear(2, 1)
torch.save(model.state_dict(), "model.pt")
with open("model.pt", "rb") as f:
    whole = f.read()
# a download or a copy cut short: half of the file
with open("model.pt", "wb") as f:
    f.write(whole[: len(whole) // 2])
torch.load("model.pt")

# %% truncated-file-fix
import os
import zipfile

# torch.save writes a zip archive: a cut one is not a zip file
print(zipfile.is_zipfile("model.pt"), len(whole) // 2, "bytes")
torch.save(model.state_dict(), "model.pt")  # saved again, whole
print(zipfile.is_zipfile("model.pt"), len(whole), "bytes")
print(model.load_state_dict(torch.load("model.pt")))

# %% truncated-file-fix-checks tags=["remove-cell"]
assert os.path.getsize("model.pt") == len(whole)
assert whole[:4] == b"PK\x03\x04"  # a zip archive's first bytes

# %% not-a-checkpoint tags=["raises-exception"]
# what `git clone` leaves without Git LFS:
# a small text file that points at the weights
with open("weights.pt", "w") as f:
    f.write("version https://git-lfs.github.com/spec/v1\n"
            "oid sha256:4d7a2147\nsize 46830571\n")
torch.load("weights.pt", weights_only=False)

# %% not-a-checkpoint-fix
# the first bytes say what the file is
with open("weights.pt", "rb") as f:
    print(f.read(40))
print(os.path.getsize("weights.pt"), "bytes")

# %% not-a-checkpoint-checks tags=["remove-cell"]
# the same file with weights_only=True: still an UnpicklingError, worded as a weights-only failure
import pickle

try:
    torch.load("weights.pt", weights_only=True)
except pickle.UnpicklingError as error:
    assert "Unsupported operand 118" in str(error) and ord("v") == 118
else:
    raise AssertionError("a Git LFS pointer loaded")
# an HTML page saved in place of the file: the load key is its first character
with open("page.pt", "w") as f:
    f.write("<!DOCTYPE html>")
try:
    torch.load("page.pt", weights_only=False)
except pickle.UnpicklingError as error:
    assert str(error) == "invalid load key, '<'."
else:
    raise AssertionError("an HTML page loaded")

# %% forward-extra-argument raises="TypeError: …forward() takes 2 positional arguments but 3 were given"
from torch.utils.data import TensorDataset


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(2, 3)

    def forward(self, x):  # one input, after self
        return self.linear(x)


model = Classifier()
labels = torch.tensor([0, 1, 2, 0, 1, 2, 0, 1])
dataset = TensorDataset(torch.randn(8, 2), labels)
loader = DataLoader(dataset, batch_size=4)
for batch in loader:  # each batch is [inputs, labels]
    output = model(*batch)  # model(inputs, labels): forward gets the labels too

# %% forward-extra-argument-fix
for x, y in loader:  # inputs to the model, labels to the loss
    output = model(x)
    loss = F.cross_entropy(output, y)
print(tuple(x.shape), tuple(output.shape), tuple(y.shape))

# %% forward-extra-argument-fix-checks tags=["remove-cell"]
import inspect

# the counts include self: 2 = self and x, 3 = self, inputs and labels
assert list(inspect.signature(Classifier.forward).parameters) == ["self", "x"]
assert len(batch) == 2
x, y = next(iter(loader))
try:
    model(x, y)  # the same call, written out
except TypeError as error:
    assert "forward() takes 2 positional arguments but 3 were given" in str(error)
else:
    raise AssertionError("model(x, y) was accepted")
# the class called with the input: the same words, about __init__
try:
    Classifier(x)
except TypeError as error:
    assert "__init__() takes 1 positional argument but 2 were given" in str(error)
else:
    raise AssertionError("Classifier(x) was accepted")

# %% forward-missing-input raises="TypeError: …forward() missing 1 required positional argument: 'x'"
model = Classifier  # the class itself: the () that builds a model is missing
output = model.forward(torch.randn(4, 2))  # the batch is taken as self

# %% forward-missing-input-fix
model = Classifier()  # a model
output = model(torch.randn(4, 2))  # call the model: it calls forward
print(tuple(output.shape))

# %% forward-missing-input-fix-checks tags=["remove-cell"]
# calling the model runs its hooks; calling forward skips them
calls = []
handle = model.register_forward_hook(lambda module, args, out: calls.append(1))
model(torch.randn(4, 2))
model.forward(torch.randn(4, 2))
handle.remove()
assert calls == [1]
# a model called with nothing: the same message
try:
    model()
except TypeError as error:
    assert "forward() missing 1 required positional argument: 'x'" in str(error)
else:
    raise AssertionError("model() was accepted")


# a forward of two inputs given one names the second: nn.Sequential
# passes each module the one output of the module before it
class Masked(nn.Module):
    def forward(self, x, mask):
        return x * mask


try:
    nn.Sequential(nn.Linear(2, 2), Masked())(torch.randn(4, 2))
except TypeError as error:
    assert "forward() missing 1 required positional argument: 'mask'" in str(error)
else:
    raise AssertionError("Masked got its mask")

# %% sequential-two-inputs raises="TypeError: …forward() takes 2 positional arguments but 3 were given"
model = nn.Sequential(nn.Linear(2, 4), nn.ReLU(), nn.Linear(4, 3))
x, mask = torch.randn(4, 2), torch.ones(4, 3)
output = model(x, mask)  # Sequential.forward takes one input

# %% sequential-two-inputs-fix
class MaskedHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(2, 4), nn.ReLU(), nn.Linear(4, 3))

    def forward(self, x, mask):  # a forward of its own takes both
        return self.body(x) * mask


print(tuple(MaskedHead()(x, mask).shape))

# %% sequential-two-inputs-fix-checks tags=["remove-cell"]
try:
    model(x, mask)
except TypeError as error:
    assert "forward() takes 2 positional arguments but 3 were given" in str(error)
else:
    raise AssertionError("Sequential took two inputs")
assert MaskedHead()(x, torch.zeros(4, 3)).abs().sum() == 0

# %% tensor-not-callable raises="TypeError: 'Tensor' object is not callable"
model = nn.Linear(2, 3)
loss = nn.CrossEntropyLoss()
x, y = torch.randn(4, 2), torch.tensor([0, 1, 2, 0])
batches = [(x, y), (x, y)]
for step, (x, y) in enumerate(batches):
    loss = loss(model(x), y)  # from now on, loss is a tensor
    loss.backward()
    print("step", step, "done")

# %% tensor-not-callable-checks tags=["remove-cell"]
assert step == 1  # the first step ran, the second failed
assert isinstance(loss, torch.Tensor) and loss.dim() == 0

# %% tensor-not-callable-fix
criterion = nn.CrossEntropyLoss()  # the loss function gets a name of its own
for step, (x, y) in enumerate(batches):
    loss = criterion(model(x), y)
    loss.backward()
    print("step", step, "done")

# %% tensor-not-callable-fix-checks tags=["remove-cell"]
assert step == 1 and isinstance(criterion, nn.CrossEntropyLoss)
assert isinstance(loss, torch.Tensor) and loss.dim() == 0

# %% not-callable-attributes
attempts = {
    "x.shape()": lambda: x.shape(),  # shape is a torch.Size, not a method
    "x.T()": lambda: x.T(),  # T is the transposed tensor itself
    "model.weight(x)": lambda: model.weight(x),  # a Parameter, not a layer
}
messages = {}
for code, attempt in attempts.items():
    try:
        attempt()
    except TypeError as error:
        messages[code] = str(error)
        print(f"{code:16} TypeError: {error}")

# %% not-callable-attributes-checks tags=["remove-cell"]
assert messages == {
    "x.shape()": "'torch.Size' object is not callable",
    "x.T()": "'Tensor' object is not callable",
    "model.weight(x)": "'Parameter' object is not callable",
}
# the right spellings
assert x.shape == x.size() == (4, 2) and x.size(0) == 4
assert torch.equal(x.T, x.t())
assert torch.equal(model(x), F.linear(x, model.weight, model.bias))
# a builtin shadowed by a result: the same error
max = torch.tensor(3.0)
try:
    max(1, 2)
except TypeError as error:
    assert str(error) == "'Tensor' object is not callable"
else:
    raise AssertionError("a tensor was called")
del max
assert max(1, 2) == 2  # the builtin is back


# a tensor attribute named like a method hides the method
class Gate(nn.Module):
    def __init__(self):
        super().__init__()
        self.mask = torch.ones(2)  # a tensor, stored on the instance

    def mask(self, x):  # the method of the same name is out of reach
        return x * 0


try:
    Gate().mask(x)
except TypeError as error:
    assert str(error) == "'Tensor' object is not callable"
else:
    raise AssertionError("the method was reached")

# %% file-too-new raises="RuntimeError: … Attempted to read a PyTorch file with version 99, but the maximum supported version for reading is …"
import zipfile

torch.save(nn.Linear(2, 1).state_dict(), "model.pt")
with zipfile.ZipFile("model.pt") as archive:
    records = {name: archive.read(name) for name in archive.namelist()}
print("model/version:", records["model/version"])
# a file from a future release: the same archive, a higher format version
with zipfile.ZipFile("future.pt", "w") as archive:
    for name, data in records.items():
        archive.writestr(name, b"99\n" if name == "model/version" else data)
torch.load("future.pt")

# %% file-too-new-fix
model = nn.Linear(2, 1)
# in the newer release: the legacy format, which old releases read too
torch.save(model.state_dict(), "legacy.pt",
           _use_new_zipfile_serialization=False)
print("zip archive:", zipfile.is_zipfile("legacy.pt"))
print(model.load_state_dict(torch.load("legacy.pt")))

# %% file-too-new-fix-checks tags=["remove-cell"]
assert records["model/version"] == b"3\n"
with open("legacy.pt", "rb") as f:
    assert f.read(2) == b"\x80\x02"  # a pickle stream, protocol 2
loaded = torch.load("legacy.pt")
assert all(torch.equal(loaded[k], v) for k, v in model.state_dict().items())
