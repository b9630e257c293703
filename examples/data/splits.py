# %% [markdown]
# Train/validation splits: random_split, a stratified split with torch only,
# Subset and SubsetRandomSampler

# %% [markdown] lang="zh"
# 划分训练集与验证集：`random_split`、只用 torch 实现的分层划分、
# `Subset` 与 `SubsetRandomSampler`

# %% setup
import torch
from torch.utils.data import DataLoader, Subset, SubsetRandomSampler, \
    TensorDataset
from torch.utils.data import random_split

x = torch.randn(100, 2)
# 75 samples of class 0, 25 of class 1
labels = torch.cat([torch.zeros(75), torch.ones(25)]).long()
dataset = TensorDataset(x, labels)
print(len(dataset), torch.bincount(labels))

# %% random-split
train_set, val_set = random_split(dataset, [80, 20])
print(type(train_set).__name__, len(train_set), len(val_set))
print(val_set.indices[:5])

train_set, val_set = random_split(dataset, [0.8, 0.2])  # fractions work too
print(len(train_set), len(val_set))

# %% fraction-rounding
parts = random_split(range(11), [0.8, 0.2])
print([len(p) for p in parts])

# %% wrong-lengths tags=["raises-exception"]
random_split(dataset, [80, 25])

# %% seeded-split
def split_indices(seed):
    g = torch.Generator().manual_seed(seed)
    train_set, val_set = random_split(dataset, [0.8, 0.2], generator=g)
    return val_set.indices


print(split_indices(0)[:5])
print(split_indices(0)[:5])  # the same seed: the same split
print(split_indices(1)[:5])

# %% imbalance
for seed in range(5):
    val_labels = labels[split_indices(seed)]
    counts = torch.bincount(val_labels, minlength=2).tolist()
    print(f"seed {seed}: validation has {counts}")

# %% stratified
def stratified_split(labels, fraction, generator=None):
    """Split indices in two; every class is divided in the same proportion"""
    first, second = [], []
    for c in labels.unique():
        idx = torch.nonzero(labels == c).squeeze(1)  # the indices of class c
        idx = idx[torch.randperm(len(idx), generator=generator)]
        n = round(len(idx) * fraction)
        first.append(idx[:n])
        second.append(idx[n:])
    return torch.cat(first), torch.cat(second)


g = torch.Generator().manual_seed(0)
train_idx, val_idx = stratified_split(labels, 0.8, generator=g)
print(len(train_idx), torch.bincount(labels[train_idx]).tolist())
print(len(val_idx), torch.bincount(labels[val_idx]).tolist())

# %% three-way
g = torch.Generator().manual_seed(0)
rest_idx, test_idx = stratified_split(labels, 0.8, generator=g)
# split the rest again; rest_idx maps the positions back to the dataset
train_pos, val_pos = stratified_split(labels[rest_idx], 0.75, generator=g)
train_idx, val_idx = rest_idx[train_pos], rest_idx[val_pos]
for name, idx in [("train", train_idx), ("val", val_idx), ("test", test_idx)]:
    print(name, len(idx), torch.bincount(labels[idx]).tolist())

# %% subset
train_set = Subset(dataset, train_idx.tolist())
val_set = Subset(dataset, val_idx.tolist())
print(len(train_set), len(val_set))
xb, yb = val_set[0]  # position 0 of the subset is dataset[val_idx[0]]
print(torch.equal(xb, x[val_idx[0]]))
train_loader = DataLoader(train_set, batch_size=16, shuffle=True)
print(len(train_loader))

# %% sampler
g = torch.Generator().manual_seed(0)
sampler = SubsetRandomSampler(val_idx.tolist(), generator=g)
epoch_1, epoch_2 = list(sampler), list(sampler)  # what two epochs draw
print(epoch_1[:6], "...")
print(epoch_2[:6], "...")
print(sorted(epoch_1) == sorted(epoch_2) == sorted(val_idx.tolist()))

val_loader = DataLoader(dataset, batch_size=8, sampler=sampler)
drawn = torch.cat([yb for _, yb in val_loader])
print(len(val_loader), len(drawn), torch.bincount(drawn).tolist())

# %% sampler-and-shuffle tags=["raises-exception"]
DataLoader(dataset, batch_size=8, sampler=sampler, shuffle=True)

# %% checks tags=["remove-cell"]
# What the page says, checked on every build
assert isinstance(train_set, Subset)
a, b = random_split(dataset, [80, 20])
assert isinstance(a, Subset) and (len(a), len(b)) == (80, 20)
# disjoint, covers everything
assert sorted(a.indices + b.indices) == list(range(100))
a, b = random_split(dataset, [0.8, 0.2])
assert (len(a), len(b)) == (80, 20)
# remainder first
assert [len(p) for p in random_split(range(11), [0.8, 0.2])] == [9, 2]
# 13 samples: 6, 3 and 2, plus the 2 left over for the first two parts
assert [len(p) for p in random_split(range(13), [0.5, 0.3, 0.2])] == [7, 4, 2]
# without a generator: the global generator,
# so torch.manual_seed fixes the split too
torch.manual_seed(5)
first = random_split(dataset, [0.8, 0.2])[1].indices
torch.manual_seed(5)
assert random_split(dataset, [0.8, 0.2])[1].indices == first
try:
    random_split(dataset, [80, 25])
except ValueError as error:
    assert "Sum of input lengths does not equal the length of the input" \
        in str(error)
else:
    raise AssertionError("random_split accepted lengths that do not add up")
# a seeded generator gives the same split; another seed a different one
assert split_indices(0) == split_indices(0) \
    and split_indices(0) != split_indices(1)
# random_split ignores classes: the validation
# share of class 1 varies, not always 25 %
minority = [int(labels[split_indices(s)].sum()) for s in range(5)]
assert len(set(minority)) > 1 and any(m != 5 for m in minority)
assert torch.nonzero(labels == 1).shape == (25, 1)  # hence squeeze(1)
# stratified: each part keeps the 3:1 ratio exactly
g = torch.Generator().manual_seed(0)
tr, va = stratified_split(labels, 0.8, generator=g)
assert torch.bincount(labels[tr]).tolist() == [60, 20]
assert torch.bincount(labels[va]).tolist() == [15, 5]
assert sorted(torch.cat([tr, va]).tolist()) == list(range(100))
parts = {"train": train_idx, "val": val_idx, "test": test_idx}
assert torch.bincount(labels[train_idx]).tolist() == [45, 15]
assert torch.bincount(labels[val_idx]).tolist() == [15, 5]
assert torch.bincount(labels[test_idx]).tolist() == [15, 5]
# disjoint
assert sorted(torch.cat(list(parts.values())).tolist()) == list(range(100))
# Subset renumbers: position i of the subset is dataset[indices[i]]
assert len(Subset(dataset, val_idx.tolist())) == 20
for i in range(len(val_set)):
    assert torch.equal(val_set[i][0], x[val_idx[i]])
assert len(DataLoader(Subset(dataset, train_idx.tolist()), batch_size=16)) == 4
# SubsetRandomSampler draws exactly the
# given indices, in a new order every epoch
g = torch.Generator().manual_seed(0)
sampler = SubsetRandomSampler(val_idx.tolist(), generator=g)
orders = [list(sampler) for _ in range(3)]
assert sorted(epoch_1) == sorted(epoch_2) == sorted(val_idx.tolist())
assert epoch_1 != epoch_2
for o in orders:
    assert sorted(o) == sorted(val_idx.tolist())
assert orders[0] != orders[1] or orders[1] != orders[2]
assert len(sampler) == 20
assert len(DataLoader(dataset, batch_size=8, sampler=sampler)) == 3
drawn = torch.cat(
    [yb for _, yb in DataLoader(dataset, batch_size=8, sampler=sampler)]
)
assert torch.bincount(drawn).tolist() == [15, 5]
try:
    DataLoader(dataset, batch_size=8, sampler=sampler, shuffle=True)
except ValueError as error:
    assert "sampler option is mutually exclusive with shuffle" in str(error)
else:
    raise AssertionError("sampler and shuffle=True were accepted together")

# %% shared-transform
from torch.utils.data import Dataset


class Numbers(Dataset):
    """Items 0 to 9, each passed through the transform if there is one"""

    def __init__(self, transform=None):
        self.transform = transform

    def __len__(self):
        return 10

    def __getitem__(self, index):
        if self.transform is None:
            return index
        return self.transform(index)


def augment(x):  # stands for the random augmentation of the training data
    return x + 100


g = torch.Generator().manual_seed(0)
train_part, val_part = random_split(Numbers(), [0.6, 0.4], generator=g)
print(train_part.dataset is val_part.dataset)
print("validation before:", [val_part[i] for i in range(4)])
train_part.dataset.transform = augment  # meant for the training part only
print("validation after: ", [val_part[i] for i in range(4)])

# %% shared-transform-checks tags=["remove-cell"]
# one dataset object behind both parts: the transform reaches validation
assert train_part.dataset is val_part.dataset
assert all(val_part[i] == val_part.indices[i] + 100 for i in range(4))
assert sorted(train_part.indices + val_part.indices) == list(range(10))
first_split = list(val_part.indices)

# %% per-split-datasets
train_part = Subset(Numbers(transform=augment), train_part.indices)
val_part = Subset(Numbers(), val_part.indices)  # no augmentation
print(train_part.dataset is val_part.dataset)
print("train:     ", [train_part[i] for i in range(4)])
print("validation:", [val_part[i] for i in range(4)])

# %% per-split-datasets-checks tags=["remove-cell"]
# two dataset objects, the same split: each part has its own transform
assert train_part.dataset is not val_part.dataset
assert [val_part[i] for i in range(4)] == val_part.indices
assert [train_part[i] for i in range(6)] == [i + 100 for i in train_part.indices]

# %% transformed-subset
class Transformed(Dataset):
    """A dataset, often a Subset, with a transform applied to its items"""

    def __init__(self, dataset, transform):
        self.dataset = dataset
        self.transform = transform

    def __len__(self):
        return len(self.dataset)

    def __getitem__(self, index):
        return self.transform(self.dataset[index])


g = torch.Generator().manual_seed(0)
train_part, val_part = random_split(Numbers(), [0.6, 0.4], generator=g)
train_part = Transformed(train_part, augment)
print("train:     ", [train_part[i] for i in range(4)])
print("validation:", [val_part[i] for i in range(4)])

# %% transformed-subset-checks tags=["remove-cell"]
# the seeded generator gives the split of the cells above again
assert val_part.indices == first_split
assert [val_part[i] for i in range(4)] == val_part.indices
assert val_part.dataset.transform is None
assert [train_part[i] for i in range(6)] == \
    [i + 100 for i in train_part.dataset.indices]

# %% eval-shuffle
def predict(xb):  # a fixed classifier: class 1 where the first feature > 0.5
    return (xb[:, 0] > 0.5).long()


def evaluate(loader):
    correct, total, batch_means, order = 0, 0, [], []
    for xb, yb, ids in loader:
        hits = (predict(xb) == yb).float()
        correct += hits.sum().item()
        total += len(yb)
        batch_means.append(hits.mean().item())
        order.append(ids)
    mean_of_means = sum(batch_means) / len(batch_means)
    return correct / total, round(mean_of_means, 4), torch.cat(order)


# each sample also returns its index in the dataset: its id
with_ids = TensorDataset(x, labels, torch.arange(100))
val_set = Subset(with_ids, val_idx.tolist())  # the 20 stratified samples
print("ids in dataset order:", val_idx[:6].tolist())
for shuffle in (False, True):
    g = torch.Generator().manual_seed(4)
    loader = DataLoader(val_set, batch_size=8, shuffle=shuffle, generator=g)
    accuracy, mean_of_means, order = evaluate(loader)
    print(type(loader.sampler).__name__, accuracy, mean_of_means)
    print("  ids in loader order:", order[:6].tolist())

# %% eval-shuffle-checks tags=["remove-cell"]
from torch.utils.data import RandomSampler, SequentialSampler

plain = DataLoader(val_set, batch_size=8)
assert isinstance(plain.sampler, SequentialSampler)
g = torch.Generator().manual_seed(4)
mixed = DataLoader(val_set, batch_size=8, shuffle=True, generator=g)
assert isinstance(mixed.sampler, RandomSampler)
acc_plain, mom_plain, order_plain = evaluate(plain)
acc_mixed, mom_mixed, order_mixed = evaluate(mixed)
# the same accuracy over the whole set, shuffled or not
hits = predict(x[val_idx]) == labels[val_idx]
assert acc_plain == acc_mixed == hits.sum().item() / len(val_idx)
# shuffle=False: predictions line up with the dataset's order
assert torch.equal(order_plain, val_idx)
assert not torch.equal(order_mixed, val_idx)
assert sorted(order_mixed.tolist()) == sorted(val_idx.tolist())
# batches of 8, 8 and 4: the mean of batch means is off, and depends on order
assert [len(b[0]) for b in plain] == [8, 8, 4]
assert mom_plain != acc_plain and mom_mixed != acc_plain
assert mom_plain != mom_mixed
