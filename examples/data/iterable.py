# %% [markdown]
# Endless loaders: restart a DataLoader's iterator, or write an IterableDataset;
# IterableDataset has no shuffle, and every worker gets a full copy of it

# %% [markdown] lang="zh"
# 无限循环的数据加载：重新创建 `DataLoader` 的迭代器，或者写一个
# `IterableDataset`；`IterableDataset` 不支持 shuffle，而且每个 worker
# 都会拿到它的一份完整副本

# %% setup
import itertools

import torch
from torch.utils.data import DataLoader, IterableDataset, get_worker_info

# a tensor is a map-style dataset: dataset[i], len(dataset)
dataset = torch.arange(6)
loader = DataLoader(dataset, batch_size=2, shuffle=True)
print(len(loader))

# %% iter-next
it = iter(loader)
batches = []
for step in range(7):
    try:
        batch = next(it)
    except StopIteration:  # the epoch is over: start a new one
        it = iter(loader)
        batch = next(it)
    batches.append(batch)
    print(step, batch)

# %% infinite
def infinite(loader):
    """Yield batches forever, one epoch after another"""
    while True:
        yield from loader


stream = infinite(loader)
pass_1 = torch.cat([next(stream) for _ in range(3)])
pass_2 = torch.cat([next(stream) for _ in range(3)])
print(pass_1)
print(pass_2)

# %% cycle
cycled = itertools.cycle(loader)
epoch_1 = torch.cat([next(cycled) for _ in range(3)])
epoch_2 = torch.cat([next(cycled) for _ in range(3)])
epoch_3 = torch.cat([next(cycled) for _ in range(3)])
print(epoch_1)
print(epoch_2)
print(epoch_3)

# %% no-iter tags=["raises-exception"]
class Stream(IterableDataset):
    def __init__(self, data):
        self.data = data


Stream(torch.arange(10))

# %% fake-iterable
class FakeIterableDataset(IterableDataset):
    def __init__(self, data):
        self.data = data
        self.count = 0
    def __iter__(self):
        print('Count:{}'.format(self.count))
        self.count+=1
        return iter(torch.cat([self.data, self.data]))

fake_dataset = FakeIterableDataset(torch.arange(10))
ld = DataLoader(fake_dataset, batch_size=3)
for item in ld:
    print(item)

# %% one-iter-per-epoch
for epoch in range(2):
    n = sum(len(item) for item in ld)
    print(f"epoch {epoch}: {n} samples")
print(fake_dataset.count)

# %% no-shuffle tags=["raises-exception"]
DataLoader(fake_dataset, batch_size=3, shuffle=True)

# %% endless-iterable
class RandomStream(IterableDataset):
    """An endless stream of random samples: __iter__ never stops"""
    def __iter__(self):
        while True:
            yield torch.rand(2)


stream_loader = DataLoader(RandomStream(), batch_size=4)
for step, batch in zip(range(3), stream_loader):
    print(step, batch.shape)

# %% workers-duplicate
class Numbers(IterableDataset):
    def __init__(self, n):
        self.n = n
    def __iter__(self):
        info = get_worker_info()
        worker = -1 if info is None else info.id  # -1: the main process
        return iter([(worker, i) for i in range(self.n)])


loader = DataLoader(Numbers(6), batch_size=2, num_workers=2)
for worker, batch in loader:
    print("worker", worker[0].item(), "batch", batch)
duplicated = torch.cat([batch for _, batch in loader])
print(len(duplicated), "samples from a dataset of 6")

# %% workers-sharded
class ShardedNumbers(IterableDataset):
    def __init__(self, n):
        self.n = n
    def __iter__(self):
        info = get_worker_info()
        if info is None:  # num_workers=0: the main process reads everything
            return iter(range(self.n))
        # worker k of w takes every w-th sample, starting at k
        return iter(range(info.id, self.n, info.num_workers))


loader = DataLoader(ShardedNumbers(6), batch_size=2, num_workers=2)
sharded = torch.cat(list(loader))
print(sharded)
print(len(sharded), "samples from a dataset of 6")
# no workers
print(torch.cat(list(DataLoader(ShardedNumbers(6), batch_size=2))))

# %% checks tags=["remove-cell"]
# What the page says, checked on every build
import contextlib
import io

everything = torch.arange(6)
assert len(DataLoader(dataset, batch_size=2)) == 3
# restarting the iterator: every epoch is a full, reshuffled pass
assert torch.equal(torch.cat(batches[:3]).sort().values, everything)
assert torch.equal(torch.cat(batches[3:6]).sort().values, everything)
assert not torch.equal(torch.cat(batches[:3]), torch.cat(batches[3:6]))
for p in (pass_1, pass_2):
    assert torch.equal(p.sort().values, everything)
assert not torch.equal(pass_1, pass_2)
# itertools.cycle replays the first epoch: the same order, even the same tensors
cycled = itertools.cycle(DataLoader(dataset, batch_size=2, shuffle=True))
first = [next(cycled) for _ in range(3)]
again = [next(cycled) for _ in range(3)]
assert all(a is b for a, b in zip(first, again))
assert torch.equal(epoch_1, epoch_2) and torch.equal(epoch_2, epoch_3)
# an IterableDataset without __iter__ cannot even be created
try:
    Stream(torch.arange(10))
except TypeError as error:
    assert "abstract" in str(error) and "__iter__" in str(error)
else:
    raise AssertionError("an IterableDataset without __iter__ was created")
# the note's FakeIterableDataset: one __iter__
# call per epoch, batches of 3, last of 2
expected = torch.cat([torch.arange(10), torch.arange(10)]).split(3)
fresh = FakeIterableDataset(torch.arange(10))
with contextlib.redirect_stdout(io.StringIO()) as printed:
    got = list(DataLoader(fresh, batch_size=3))
assert printed.getvalue() == "Count:0\n" and fresh.count == 1
assert len(got) == 7 and all(torch.equal(a, b) for a, b in zip(got, expected))
assert [len(b) for b in got] == [3, 3, 3, 3, 3, 3, 2]
assert fake_dataset.count == 3  # one for the first loop, one per epoch after it
try:
    DataLoader(fake_dataset, batch_size=3, shuffle=True)
except ValueError as error:
    assert "expected unspecified shuffle option" in str(error)
else:
    raise AssertionError("shuffle=True was accepted for an IterableDataset")
try:
    len(ld)
except TypeError as error:
    assert "has no len()" in str(error)
else:
    raise AssertionError(
        "a loader over an IterableDataset without __len__ has a length"
    )
# two workers, two full copies: every sample twice
assert len(duplicated) == 12
assert torch.equal(torch.bincount(duplicated), torch.full((6,), 2))
per_worker = {0: [], 1: []}
for worker, batch in DataLoader(Numbers(6), batch_size=2, num_workers=2):
    per_worker[worker[0].item()].append(batch.tolist())
assert per_worker[0] == per_worker[1] == [[0, 1], [2, 3], [4, 5]]
# sharded with get_worker_info(): every sample once, with or without workers
assert torch.equal(sharded.sort().values, everything)
# batches alternate: worker 0, 1, 0, 1
assert sharded.tolist() == [0, 2, 1, 3, 4, 5]
no_workers = torch.cat(list(DataLoader(ShardedNumbers(6), batch_size=2)))
assert torch.equal(no_workers, everything)

# %% next-loader raises="TypeError: 'DataLoader' object is not an iterator"
loader = DataLoader(dataset, batch_size=2, shuffle=True)
next(loader)

# %% next-iter
print(next(iter(loader)))  # one batch: the first of a new epoch
it = iter(loader)  # keep the iterator to go on through the epoch
print(next(it), next(it), next(it))

# %% next-iter-workers
import os

from torch.utils.data import Dataset


class Pids(Dataset):
    """Each sample is the id of the process that loaded it"""

    def __len__(self):
        return 6

    def __getitem__(self, index):
        return os.getpid()


loader = DataLoader(Pids(), batch_size=2, num_workers=2)
restarted = [next(iter(loader))[0].item() for _ in range(3)]
print("next(iter(loader)) 3 times:", len(set(restarted)), "worker processes")
it = iter(loader)
kept = [next(it)[0].item() for _ in range(3)]
print("one iterator, 3 batches:   ", len(set(kept)), "worker processes")
del it

# %% next-iter-checks tags=["remove-cell"]
# a DataLoader is iterable, not an iterator: iter() gives a new iterator
loader = DataLoader(dataset, batch_size=2, shuffle=True)
assert not hasattr(loader, "__next__") and iter(loader) is not iter(loader)
# each iter() starts a new epoch: a new shuffled order of all 6 samples
torch.manual_seed(0)
epochs = [torch.cat(list(iter(loader))).tolist() for _ in range(3)]
assert all(sorted(e) == list(range(6)) for e in epochs)
assert len({tuple(e) for e in epochs}) > 1
# one iterator walks the epoch: 3 batches, each sample once, then StopIteration
it = iter(loader)
walked = torch.cat([next(it), next(it), next(it)])
assert sorted(walked.tolist()) == list(range(6))
try:
    next(it)
except StopIteration:
    pass
else:
    raise AssertionError("an epoch of 3 batches gave a 4th")
# with workers: every iter() starts new worker processes
assert len(set(restarted)) == 3 and len(set(kept)) == 2
assert os.getpid() not in {*restarted, *kept}

# %% dot-next raises="AttributeError: '_SingleProcessDataLoaderIter' object has no attribute 'next'"
loader = DataLoader(dataset, batch_size=2, shuffle=True)
it = iter(loader)
batch = it.next()  # Python 2's spelling, still in old tutorials

# %% dot-next-workers raises="AttributeError: '_MultiProcessingDataLoaderIter' object has no attribute 'next'"
loader = DataLoader(dataset, batch_size=2, num_workers=2)
it = iter(loader)
batch = it.next()

# %% dot-next-close tags=["remove-cell"]
# shut the workers of the failed iterator down
import gc

gc.collect()
del it

# %% dot-next-fix
loader = DataLoader(dataset, batch_size=2, shuffle=True)
for epoch in range(2):
    it = iter(loader)  # once per epoch
    first, second = next(it), next(it)  # the built-in next()
    print(epoch, first, second)

# %% dot-next-fix-checks tags=["remove-cell"]
from torch.utils.data.dataloader import (
    _MultiProcessingDataLoaderIter,
    _SingleProcessDataLoaderIter,
)

for kind in (_SingleProcessDataLoaderIter, _MultiProcessingDataLoaderIter):
    assert hasattr(kind, "__next__") and not hasattr(kind, "next")
assert type(it) is _SingleProcessDataLoaderIter
assert torch.cat([first, second, next(it)]).sort().values.tolist() \
    == list(range(6))

# %% zip-shorter
g = torch.Generator().manual_seed(0)
labeled = DataLoader(torch.arange(10), batch_size=2)  # 5 batches
unlabeled = DataLoader(torch.arange(100, 104), batch_size=2, shuffle=True,
                       generator=g)  # 2 batches
for step, (a, b) in enumerate(zip(labeled, unlabeled)):
    print(step, a, b)
print(len(labeled), len(unlabeled), len(list(zip(labeled, unlabeled))))

# %% zip-restart
for step, (a, b) in enumerate(zip(labeled, infinite(unlabeled))):
    print(step, a, b)

# %% zip-restart-checks tags=["remove-cell"]
# zip stops at the shorter loader: 2 steps, the last 3 labeled batches unused
assert len(list(zip(labeled, unlabeled))) == 2
pairs = list(zip(labeled, infinite(unlabeled)))
assert len(pairs) == 5  # the whole of the longer loader
assert torch.equal(torch.cat([a for a, _ in pairs]), torch.arange(10))
# every 2 steps a full, newly shuffled epoch of the shorter loader
b_epochs = [torch.cat([b for _, b in pairs[i:i + 2]]) for i in (0, 2)]
for epoch in b_epochs:
    assert sorted(epoch.tolist()) == [100, 101, 102, 103]
g = torch.Generator().manual_seed(0)
check = DataLoader(torch.arange(100, 104), batch_size=2, shuffle=True,
                   generator=g)
epochs = [torch.cat(list(check)).tolist() for _ in range(4)]
assert len({tuple(e) for e in epochs}) > 1  # the order changes between epochs

# %% zip-longest
for step, (a, b) in enumerate(itertools.zip_longest(labeled, unlabeled)):
    print(step, a, b)

# %% zip-longest-checks tags=["remove-cell"]
# zip_longest pads the exhausted loader with None (or fillvalue)
longest = list(itertools.zip_longest(labeled, unlabeled))
assert len(longest) == 5 and all(b is None for _, b in longest[2:])
assert all(b is not None for _, b in longest[:2])
filled = list(itertools.zip_longest(labeled, unlabeled, fillvalue="x"))
assert filled[4][1] == "x"

# %% fixed-steps
steps = 4  # an "epoch" of a fixed number of steps, whatever the loaders' sizes
both = zip(infinite(labeled), infinite(unlabeled))
for step, (a, b) in zip(range(steps), both):
    print(step, a, b)

# %% fixed-steps-checks tags=["remove-cell"]
both = zip(infinite(labeled), infinite(unlabeled))
taken = [pair for _, pair in zip(range(12), both)]
assert len(taken) == 12  # as many steps as asked, past both loaders' ends
# the labeled loader starts its second epoch at step 5
assert torch.equal(taken[5][0], torch.tensor([0, 1]))
