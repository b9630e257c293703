# %% [markdown]
# DataLoader workers: num_workers=0 loads in the main process,
# workers are separate processes with their own copy of the dataset
# and their own seed; dataset tensors must be plain CPU tensors

# %% [markdown] lang="zh"
# `DataLoader` 的 worker：`num_workers=0` 时在主进程中加载数据；worker 是
# 独立的进程，各自持有一份数据集副本和自己的随机种子；数据集里的张量
# 必须是普通的 CPU 张量

# %% setup
import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, TensorDataset, get_worker_info


class WhoLoads(Dataset):
    """Each sample says which process loaded it and what that process's \
RNGs give"""

    def __len__(self):
        return 8

    def __getitem__(self, index):
        info = get_worker_info()  # None in the main process
        return {
            "index": index,
            "worker": -1 if info is None else info.id,
            "pid": os.getpid(),
            # a string: a seed can exceed int64, which collate needs
            "seed": str(torch.initial_seed()),
            "numpy": np.random.randint(1000),
        }


dataset = WhoLoads()

# %% main-process
loader = DataLoader(dataset, batch_size=4)  # num_workers=0 is the default
first = next(iter(loader))
print(get_worker_info())  # here, in the main process
print(first["worker"], first["pid"][0].item() == os.getpid())

# %% two-workers
loader = DataLoader(dataset, batch_size=2, num_workers=2)
batches = list(loader)  # one epoch
for batch in batches:
    print(f"samples {batch['index'].tolist()}"
          f" from worker {batch['worker'][0].item()}")

# %% seeds
for worker in (0, 1):
    b = batches[worker]  # batches alternate between the workers: 0, 1, 0, 1
    seed, draw = int(b["seed"][0]), b["numpy"].tolist()
    print(f"worker {worker}: torch seed {seed}, numpy draws {draw}")
next_seeds = sorted({int(b["seed"][0]) for b in loader})  # another epoch
print("next epoch:", next_seeds)

# %% worker-init
def init_worker(worker_id):
    info = get_worker_info()  # info.dataset is this worker's own copy
    info.dataset.tag = f"configured in worker {worker_id}"


class Tagged(Dataset):
    tag = "not configured"

    def __len__(self):
        return 4

    def __getitem__(self, index):
        return self.tag


tagged = Tagged()
loader = DataLoader(
    tagged, batch_size=2, num_workers=2, worker_init_fn=init_worker
)
tags = list(loader)
print(tags)
print(tagged.tag)  # the main process's dataset is untouched

# %% persistent
def worker_pids(loader):
    return sorted({pid for batch in loader for pid in batch["pid"].tolist()})


loader = DataLoader(dataset, batch_size=2, num_workers=2)
epoch_1, epoch_2 = worker_pids(loader), worker_pids(loader)
print(
    "new workers every epoch:",
    len({*epoch_1, *epoch_2}),
    "processes over 2 epochs"
)
loader = DataLoader(
    dataset, batch_size=2, num_workers=2, persistent_workers=True
)
kept_1, kept_2 = worker_pids(loader), worker_pids(loader)
print(
    "persistent workers:     ",
    len({*kept_1, *kept_2}),
    "processes over 2 epochs"
)

# %% grad-dataset tags=["raises-exception"]
w = torch.ones(6, 2, requires_grad=True)
features = w * 2  # computed from a parameter: requires grad, has a grad_fn
loader = DataLoader(TensorDataset(features), batch_size=3, num_workers=2)
it = iter(loader)
next(it)

# %% close-workers tags=["remove-cell"]
# Shut the failed loader's workers down while their queues still work: the
# exception's reference cycle is collected first, then the iterator by refcount
import gc

gc.collect()
del it

# %% grad-dataset-spawn tags=["raises-exception"]
loader = DataLoader(
    TensorDataset(features),
    batch_size=3,
    num_workers=2,
    multiprocessing_context="spawn"
)
next(iter(loader))

# %% grad-dataset-main
(x,) = next(iter(DataLoader(TensorDataset(features), batch_size=3)))
print(x.requires_grad, x.grad_fn and x.grad_fn.name())

# %% detach-fix
dataset = TensorDataset(features.detach())
loader = DataLoader(dataset, batch_size=3, num_workers=2)
(x,) = next(iter(loader))
print(x.requires_grad, x.grad_fn and x.grad_fn.name())

# %% cuda-fix tags=["requires-cuda"]
device = "cuda"
x_all = torch.randn(8, 2)  # keep the dataset on the CPU
loader = DataLoader(
    TensorDataset(x_all), batch_size=4, num_workers=2, pin_memory=True
)
for (x,) in loader:
    assert x.is_pinned()  # page-locked: ready for an asynchronous copy
    x = x.to(device, non_blocking=True)  # move each batch in the main loop
    print(x.device)

# %% checks tags=["remove-cell"]
# What the page says, checked on every build
import multiprocessing

assert get_worker_info() is None
assert first["worker"].tolist() == [-1] * 4
assert set(first["pid"].tolist()) == {os.getpid()}
assert [b["worker"].tolist() for b in batches] == [
    [0, 0], [1, 1], [0, 0], [1, 1]
]
assert torch.cat([b["index"] for b in batches]).tolist() == list(range(8))
assert os.getpid() not in {p for b in batches for p in b["pid"].tolist()}
seeds = {b["worker"][0].item(): int(b["seed"][0]) for b in batches}
# base seed + worker id: every worker has its own
assert seeds[1] == seeds[0] + 1
draws = {
    w: [d for b in batches if b["worker"][0] == w for d in b["numpy"].tolist()]
    for w in (0, 1)
}
assert draws[0] != draws[1]  # numpy is seeded per worker too
# a new epoch, new workers, new seeds
assert set(next_seeds).isdisjoint(seeds.values())
loader = DataLoader(WhoLoads(), batch_size=4, num_workers=2)
base_seeds = []
for _ in range(2):  # the base seed comes from the main process's generator
    torch.manual_seed(7)
    base_seeds.append([int(b["seed"][0]) for b in loader])
assert base_seeds[0] == base_seeds[1]
assert tags == [["configured in worker 0"] * 2, ["configured in worker 1"] * 2]
assert tagged.tag == "not configured"
assert epoch_1 != epoch_2 and kept_1 == kept_2 and len(kept_1) == 2
assert len({*epoch_1, *epoch_2}) == 4 and os.getpid() not in {*epoch_1, *kept_1}
# batches loaded ahead
assert DataLoader(WhoLoads(), num_workers=2).prefetch_factor == 2
# the default on Linux up to 3.13
assert multiprocessing.get_start_method() == "fork"
runs = [
    (None, features), (None, w), ("spawn", features), ("forkserver", features)
]
for context, data in runs:
    loader = DataLoader(TensorDataset(data), batch_size=3, num_workers=2,
                        multiprocessing_context=context)
    try:
        it = iter(loader)  # spawn fails here, fork in next()
        next(it)
    except RuntimeError as error:
        message = str(error)
        # no reference cycle: workers shut down at once
        error.__traceback__ = None
    else:
        raise AssertionError(
            "a dataset tensor that requires grad went through workers"
        )
    it = None
    if context is None:  # fork: the batch is stacked in the worker, leaf or not
        assert "Caught RuntimeError in DataLoader worker process" in message
        assert "stack(): functions with out=... arguments don't support" \
            in message
    # spawn, forkserver: the main process pickles the dataset for the workers
    else:
        assert "Cowardly refusing to serialize non-leaf tensor" in message
(x,) = next(iter(DataLoader(TensorDataset(features), batch_size=3)))
assert x.requires_grad and x.grad_fn.name() == "StackBackward0"
x.sum().backward()
# into w
assert torch.equal(w.grad, torch.tensor([[2.0, 2.0]] * 3 + [[0.0, 0.0]] * 3))
(x,) = next(iter(DataLoader(TensorDataset(features.detach()), batch_size=3)))
assert not x.requires_grad and x.grad_fn is None
assert torch.equal(x, torch.full((3, 2), 2.0))

# %% persistent-seeds
def epoch_seeds(loader):
    return sorted({int(seed) for batch in loader for seed in batch["seed"]})


def count_start(worker_id):  # a worker_init_fn: it runs in the worker
    with open("starts.txt", "a") as file:
        file.write(f"{worker_id}\n")


for persistent in (False, True):
    open("starts.txt", "w").close()
    loader = DataLoader(WhoLoads(), batch_size=2, num_workers=2,
                        persistent_workers=persistent,
                        worker_init_fn=count_start)
    seeds = [epoch_seeds(loader) for epoch in range(2)]
    with open("starts.txt") as file:
        starts = len(file.read().split())
    print(f"persistent_workers={persistent}:",
          "same seeds in both epochs:", seeds[0] == seeds[1],
          f"| worker_init_fn ran {starts} times")
    del loader  # shuts its workers down

# %% persistent-seeds-checks tags=["remove-cell"]
# the last loader, persistent: one seed per worker, drawn once
assert len(seeds[0]) == 2 and seeds[0] == seeds[1] and starts == 2
loader = DataLoader(WhoLoads(), batch_size=2, num_workers=2,
                    worker_init_fn=count_start)
open("starts.txt", "w").close()
fresh = [epoch_seeds(loader) for epoch in range(2)]
with open("starts.txt") as file:
    assert len(file.read().split()) == 4  # twice per worker
assert fresh[0] != fresh[1] and fresh[0][1] - fresh[0][0] == 1
del loader

# %% pin-memory holds=">=2.6" claim="`torch.accelerator.is_available()` tells whether there is an accelerator"
import warnings

loader = DataLoader(
    TensorDataset(torch.randn(8, 2)), batch_size=4, pin_memory=True
)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    (x,) = next(iter(loader))  # the loader decides here, not when created
print("accelerator:", torch.accelerator.is_available())
print("batch pinned:", x.is_pinned())
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")

# %% pin-memory-checks tags=["remove-cell"] holds=">=2.7" claim="Without an accelerator, `DataLoader(pin_memory=True)` warns that it pins nothing"
# pinned exactly when there is an accelerator; warned exactly when not
assert x.is_pinned() == torch.accelerator.is_available()
assert len(caught) == (0 if torch.accelerator.is_available() else 1)
if caught:
    assert caught[0].category is UserWarning
    assert "no accelerator is found" in str(caught[0].message)
# with workers too: the same batches, pinned or not
loader = DataLoader(TensorDataset(torch.arange(8.0)), batch_size=4,
                    num_workers=2, pin_memory=True)
with warnings.catch_warnings(record=True):
    warnings.simplefilter("always")
    assert torch.equal(torch.cat([b for (b,) in loader]), torch.arange(8.0))
# without an accelerator: one warning per iterator (each epoch), none when
# pin_memory follows torch.accelerator.is_available() or, on every release,
# torch.cuda.is_available()
if not torch.accelerator.is_available():
    runs = [(True, 2), (torch.accelerator.is_available(), 0),
            (torch.cuda.is_available(), 0)]
    for pin, expected in runs:
        loader = DataLoader(TensorDataset(torch.arange(8.0)), batch_size=4,
                            pin_memory=pin)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for epoch in range(2):
                list(loader)
        assert len(caught) == expected

# %% pin-memory-gpu tags=["requires-cuda"]
import time

x = torch.randn(2**25)  # 128 MiB in ordinary (pageable) memory
x_pinned = x.pin_memory()  # a copy in page-locked memory


def copy_ms(src):  # (ms until .to() returns, ms until the copy is done)
    torch.cuda.synchronize()
    start = time.perf_counter()
    src.to("cuda", non_blocking=True)
    returned = time.perf_counter()
    torch.cuda.synchronize()
    return (returned - start) * 1e3, (time.perf_counter() - start) * 1e3


def fastest_copy(src):  # the fastest of 5 copies, after a warm-up
    copy_ms(src)
    return min((copy_ms(src) for _ in range(5)), key=lambda t: t[1])


pageable, pinned = fastest_copy(x), fastest_copy(x_pinned)
assert pageable[0] > pageable[1] / 2  # returned only when (nearly) done
assert pinned[0] < pinned[1] / 10  # returned long before the copy was done
assert pinned[1] < pageable[1] / 2  # and the copy is more than twice as fast
print("pinned:", x.is_pinned(), x_pinned.is_pinned())
print(".to() returned before the copy was done:",
      "pageable", pageable[0] < pageable[1] / 10,
      "| pinned", pinned[0] < pinned[1] / 10)
print("pinned copy more than twice as fast:", pinned[1] < pageable[1] / 2)

# pin_memory=True pins CPU tensors: a dataset that returns CUDA tensors fails
loader = DataLoader(
    TensorDataset(torch.ones(4, 2, device="cuda")), batch_size=2,
    pin_memory=True
)
try:
    next(iter(loader))
except RuntimeError as error:
    assert "only dense CPU tensors can be pinned" in str(error)
    print(f"RuntimeError: {error}")
else:
    raise AssertionError("a CUDA tensor was pinned")

# %% round-robin
import time


class Slow(Dataset):
    """A slow __getitem__ (decoding, augmentation) that says who loaded it"""

    def __len__(self):
        return 16

    def __getitem__(self, index):
        time.sleep(0.01)
        return get_worker_info().id


loader = DataLoader(Slow(), batch_size=2, num_workers=2)
batches = [batch.tolist() for batch in loader]
print(batches)  # the worker id of each sample
print("worker of each batch:", [batch[0] for batch in batches])

# %% round-robin-checks tags=["remove-cell"]
# each worker builds whole batches, handed out in turn: batch k from k % N
assert batches == [[k % 2] * 2 for k in range(8)]
with warnings.catch_warnings():  # more workers than this machine suggests
    warnings.simplefilter("ignore")
    loader = DataLoader(Slow(), batch_size=2, num_workers=3)
    assert [b.tolist() for b in loader] == [[k % 3] * 2 for k in range(8)]
del loader

# %% prefetch
class LoggedBatches(torch.utils.data.Sampler):
    """Hands out batches of indices, counting how many it has handed out"""

    def __init__(self, n, batch_size):
        self.batches = [list(range(i, min(i + batch_size, n)))
                        for i in range(0, n, batch_size)]

    def __len__(self):
        return len(self.batches)

    def __iter__(self):
        self.handed_out = 0
        for batch in self.batches:
            self.handed_out += 1
            yield batch


sampler = LoggedBatches(16, batch_size=1)  # 16 batches of one sample
for prefetch_factor in (2, 4):
    loader = DataLoader(Slow(), batch_sampler=sampler, num_workers=2,
                        prefetch_factor=prefetch_factor)
    it = iter(loader)  # starts the workers and sends them work at once
    asked = sampler.handed_out
    next(it)
    print(f"prefetch_factor={prefetch_factor}: {asked} batches requested",
          f"by iter(), {sampler.handed_out} after the first batch")
    del it  # shuts its workers down

# %% prefetch-checks tags=["remove-cell"]
# prefetch_factor batches per worker asked ahead, then one per batch received
for factor in (1, 2, 3):
    loader = DataLoader(Slow(), batch_sampler=sampler, num_workers=2,
                        prefetch_factor=factor)
    it = iter(loader)
    assert sampler.handed_out == 2 * factor
    for received in range(1, 4):
        next(it)
        assert sampler.handed_out == 2 * factor + received
    del it
assert DataLoader(Slow(), num_workers=2).prefetch_factor == 2  # the default
del loader

# %% resize-storage raises="RuntimeError: Caught RuntimeError in DataLoader worker process 0.…RuntimeError: Trying to resize storage that is not resizable"
sequences = [torch.arange(1.0, n + 1) for n in (3, 2, 4, 1)]
loader = DataLoader(sequences, batch_size=2, num_workers=2)
it = iter(loader)
next(it)

# %% resize-storage-close tags=["remove-cell"]
# shut the failed loader's workers down, as after grad-dataset
gc.collect()
del it

# %% resize-storage-main raises="RuntimeError: stack expects each tensor to be equal size, but got [3] at entry 0 and [2] at entry 1"
loader = DataLoader(sequences, batch_size=2)  # num_workers=0
next(iter(loader))

# %% resize-storage-checks tags=["remove-cell"]
# In a worker the batch's shared storage holds the sum of the samples' sizes,
# shaped as (batch size, *first sample's shape): it fails to fit exactly when
# the first sample is larger than the average; otherwise stack() complains


def worker_error(samples):
    loader = DataLoader(samples, batch_size=len(samples), num_workers=1)
    it = iter(loader)
    try:
        next(it)
    except RuntimeError as error:
        message = str(error)
        error.__traceback__ = None  # no reference cycle: workers shut down
    else:
        raise AssertionError("samples of different sizes were collated")
    it = None
    assert "Caught RuntimeError in DataLoader worker process 0" in message
    return message.strip().splitlines()[-1]


resize = "RuntimeError: Trying to resize storage that is not resizable"
stack = "RuntimeError: stack expects each tensor to be equal size"
assert worker_error([torch.ones(3), torch.ones(2)]) == resize
assert worker_error([torch.ones(2), torch.ones(3)]).startswith(stack)
assert worker_error([torch.ones(4), torch.ones(1), torch.ones(5)]) == resize
assert worker_error([torch.ones(4), torch.ones(5), torch.ones(1)]) == resize
assert worker_error([torch.ones(3), torch.ones(1), torch.ones(5)]).startswith(
    stack  # 3 * 3 == 3 + 1 + 5: the storage fits, stack() fails
)
assert worker_error([torch.ones(2), torch.ones(5), torch.ones(1)]).startswith(
    stack
)
assert worker_error([torch.ones(2, 3), torch.ones(2, 2)]) == resize

# %% pad-collate
from torch.nn.utils.rnn import pad_sequence


def pad_batch(samples):
    """Pad the samples to the longest one; keep their true lengths"""
    lengths = torch.tensor([len(s) for s in samples])
    return pad_sequence(samples, batch_first=True), lengths


loader = DataLoader(sequences, batch_size=2, num_workers=2,
                    collate_fn=pad_batch)
for x, lengths in loader:
    print(x, lengths)

# %% list-collate
loader = DataLoader(sequences, batch_size=2, num_workers=2, collate_fn=list)
for batch in loader:  # a list of tensors of their own lengths
    print(batch)

# %% collate-fix-checks tags=["remove-cell"]
padded = list(DataLoader(sequences, batch_size=2, num_workers=2,
                         collate_fn=pad_batch))
assert [x.shape for x, _ in padded] == [(2, 3), (2, 4)]
assert [n.tolist() for _, n in padded] == [[3, 2], [4, 1]]
assert padded[0][0].tolist() == [[1, 2, 3], [1, 2, 0]]  # zeros fill the end
lists = list(DataLoader(sequences, batch_size=2, num_workers=2,
                        collate_fn=list))
assert all(type(b) is list for b in lists)
assert [len(s) for b in lists for s in b] == [3, 2, 4, 1]

# %% too-many-workers
import warnings

cpus = len(os.sched_getaffinity(0))  # the CPUs this process may run on
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    loader = DataLoader(dataset, batch_size=2, num_workers=cpus + 4)
message = str(caught[0].message)
print(message.replace(str(cpus + 4), "N").replace(f"is {cpus},", "is M,"))

# %% too-many-workers-checks tags=["remove-cell"]
assert len(caught) == 1 and caught[0].category is UserWarning
assert message.startswith(
    f"This DataLoader will create {cpus + 4} worker processes in total. "
    f"Our suggested max number of worker in current system is {cpus}, "
)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    DataLoader(dataset, batch_size=2, num_workers=min(8, cpus))
assert not caught  # at most one worker per CPU: no warning


# %% copy-on-read
def private_mb():
    """Memory this process has written to, not shared with the parent"""
    with open("/proc/self/smaps_rollup") as f:  # Linux only
        for line in f:
            if line.startswith("Private_Dirty:"):
                return int(line.split()[1]) / 1024


class Names(Dataset):
    def __init__(self, names):
        self.names = names

    def __len__(self):
        return len(self.names)

    def __getitem__(self, index):
        name = self.names[index]  # reading a list item writes its refcount
        at_ends = index in (0, len(self.names) - 1)
        return len(name), private_mb() if at_ends else 0.0


def growth(names):
    """How much the worker's own memory grew from the first batch to the last"""
    loader = DataLoader(Names(names), batch_size=50_000, num_workers=1)
    batches = [mb for _, mb in loader]
    return batches[-1][-1].item() - batches[0][0].item()


as_list = [f"id{i:07d}" for i in range(1_000_000)]  # a million Python str
# the same names as one block of bytes
as_array = np.array(as_list).astype("S9")
list_mb, array_mb = growth(as_list), growth(as_array)
# the sizes vary with the machine; the list grows by a copy of its items
print("list grew over 30 MB more than the array:", list_mb - array_mb > 30)

# %% copy-on-read-checks tags=["remove-cell"]
import multiprocessing

assert multiprocessing.get_start_method() == "fork"
assert list_mb - array_mb > 30
assert as_array.dtype == np.dtype("S9") and as_array[7] == b"id0000007"

# %% killed-worker
import re
import signal
import time
import traceback


class Pids(Dataset):
    """Each sample is the id of the process that loaded it"""

    def __len__(self):
        return 8

    def __getitem__(self, index):
        return os.getpid()


loader = DataLoader(Pids(), batch_size=2, num_workers=1)
it = iter(loader)
pid = next(it)[0].item()  # the worker's process id
try:
    os.kill(pid, signal.SIGKILL)  # what the out-of-memory killer does
    time.sleep(1)  # the training step: the main process is busy
except RuntimeError as error:  # the process id changes on every run
    caught = error
    print(f"{type(error).__name__}:", re.sub(r"pid \d+", "pid …", str(error)))
    frames = traceback.extract_tb(error.__traceback__)
    where = os.path.basename(frames[-1].filename)
    print("raised by", frames[-1].name, "in", where)  # torch's handler
del it

# %% killed-worker-checks tags=["remove-cell"]
assert re.fullmatch(r"DataLoader worker \(pid \d+\) is killed by signal: "
                    r"Killed\. ", str(caught)), str(caught)
assert str(pid) in str(caught) and pid != os.getpid()
# raised by torch's SIGCHLD handler in this process, not from the loader's next()
assert frames[-1].filename.endswith(os.path.join("_utils", "signal_handling.py"))
assert not any(f.filename.endswith("dataloader.py") for f in frames)
assert len(frames) == 2  # the cell, then the handler it was interrupted by

# %% sharing-strategy
import torch.multiprocessing

default = torch.multiprocessing.get_sharing_strategy()
print(default, sorted(torch.multiprocessing.get_all_sharing_strategies()))
torch.multiprocessing.set_sharing_strategy("file_system")  # at the top
loader = DataLoader(TensorDataset(torch.arange(8.0)), batch_size=4,
                    num_workers=1)
print(torch.multiprocessing.get_sharing_strategy(),
      [x.tolist() for (x,) in loader])

# %% sharing-strategy-checks tags=["remove-cell"]
assert default == "file_descriptor"  # on Linux
assert torch.multiprocessing.get_sharing_strategy() == "file_system"
assert torch.multiprocessing.get_all_sharing_strategies() == {
    "file_descriptor", "file_system"
}
assert torch.equal(torch.cat([x for (x,) in loader]), torch.arange(8.0))
torch.multiprocessing.set_sharing_strategy("file_descriptor")  # the default
del loader
