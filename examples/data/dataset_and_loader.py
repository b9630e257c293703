# %% [markdown]
# What a DataLoader batch looks like: the index of each
# sample, dicts and tuples through the default collate, a
# custom collate_fn, drop_last, reproducible shuffling, and
# the num_samples=0 error of an empty dataset

# %% [markdown] lang="zh"
# `DataLoader` 给出的 batch 长什么样：每个样本的索引、字典和元组经过默认
# collate 后的结果、自定义 `collate_fn`、`drop_last`、可复现的打乱顺序，
# 以及空数据集引发的 `num_samples=0` 报错

# %% setup
import torch
from torch.utils.data import DataLoader, Dataset, TensorDataset, default_collate

x_all = torch.arange(20.0).reshape(10, 2)  # ten samples of two features
y_all = torch.arange(10) % 3  # and their labels
base = TensorDataset(x_all, y_all)  # any map-style dataset: base[i] == (x, y)


class WithIndex(Dataset):
    """Wrap a dataset; __getitem__ also returns the index it was called with"""

    def __init__(self, dataset):
        self.dataset = dataset

    def __getitem__(self, index):
        x, y = self.dataset[index]
        return x, y, index

    def __len__(self):
        return len(self.dataset)


dataset = WithIndex(base)
print(len(dataset))
print(dataset[3])

# %% with-index
loader = DataLoader(dataset, batch_size=4, shuffle=True)
for batch_idx, (x, y, idx) in enumerate(loader):
    print(f"batch {batch_idx}, dataset index {idx}")
    assert torch.equal(x, x_all[idx]) and torch.equal(y, y_all[idx])

# %% dict-batch
class FakeDataset(Dataset):
    def __init__(self, data):
        self.data = data
    def __len__(self):
        return len(self.data)
    def __getitem__(self, index):
        return {'idx':index, 'data':self.data[index]*10}

fake_dataset = FakeDataset(torch.arange(10))
ld = DataLoader(fake_dataset, batch_size=3)
for item in ld:
    print(item)

# %% tuple-batch
samples = [dataset[3], dataset[4], dataset[5]]  # three (x, y, index) tuples
batch = default_collate(samples)
print(type(batch), len(batch))
print(batch[0])  # the three x, stacked
print(batch[1], batch[2])  # the three labels, the three indices

# %% nested
samples = [
    {"name": "a", "score": 0.5, "pair": (torch.zeros(2), 1), "meta": {"id": 7}},
    {"name": "b", "score": 1.5, "pair": (torch.ones(2), 2), "meta": {"id": 8}},
]
batch = default_collate(samples)
print(batch)
print(batch["score"].dtype)

# %% list-transposed
samples = [{"tokens": [1, 2, 3]}, {"tokens": [4, 5, 6]}]
print(default_collate(samples))

# %% unequal-size tags=["raises-exception"]
sentences = [torch.ones(3), torch.ones(2)]  # two samples of different lengths
loader = DataLoader(sentences, batch_size=2)
next(iter(loader))

# %% custom-collate
def keep_samples(samples):
    """A collate_fn that leaves the batch as a list of samples"""
    return samples


ld = DataLoader(fake_dataset, batch_size=3, collate_fn=keep_samples)
print(next(iter(ld)))

# %% drop-last
loader = DataLoader(dataset, batch_size=4)
print(len(loader), [len(idx) for _, _, idx in loader])
loader = DataLoader(dataset, batch_size=4, drop_last=True)
print(len(loader), [len(idx) for _, _, idx in loader])

# %% generator
def order(loader):
    return torch.cat([idx for _, _, idx in loader]).tolist()


g = torch.Generator().manual_seed(42)
loader = DataLoader(dataset, batch_size=4, shuffle=True, generator=g)
print(order(loader))
print(order(loader))  # the next epoch: a new order

g = torch.Generator().manual_seed(42)  # the same seed again
loader = DataLoader(dataset, batch_size=4, shuffle=True, generator=g)
print(order(loader))

# %% checks tags=["remove-cell"]
# What the page says, checked on every build
everything = list(range(10))
loader = DataLoader(dataset, batch_size=4, shuffle=True)
seen = []
for x, y, idx in loader:
    assert torch.equal(x, x_all[idx]) and torch.equal(y, y_all[idx])
    assert idx.dtype == torch.int64
    seen += idx.tolist()
# shuffled, each sample once
assert sorted(seen) == everything and seen != everything
# a dict sample: ONE dict per batch with
# batched values, exactly the note's output
got = list(DataLoader(fake_dataset, batch_size=3))
assert all(type(b) is dict and list(b) == ["idx", "data"] for b in got)
assert [b["idx"].tolist() for b in got] == [
    [0, 1, 2], [3, 4, 5], [6, 7, 8], [9]
]
assert [b["data"].tolist() for b in got] == [
    [0, 10, 20], [30, 40, 50], [60, 70, 80], [90]
]
assert got[0]["idx"].dtype == torch.int64  # Python ints become an int64 tensor
# tuples are zipped: a list of batched fields
batch = default_collate([dataset[3], dataset[4], dataset[5]])
assert type(batch) is list and len(batch) == 3
assert torch.equal(batch[0], x_all[3:6]) and batch[0].shape == (3, 2)
assert torch.equal(batch[1], y_all[3:6]) and torch.equal(
    batch[2], torch.arange(3, 6)
)
# nested: the structure is kept, the leaves are batched
nested = default_collate([
    {"name": "a", "score": 0.5, "pair": (torch.zeros(2), 1), "meta": {"id": 7}},
    {"name": "b", "score": 1.5, "pair": (torch.ones(2), 2), "meta": {"id": 8}},
])
assert nested["name"] == ["a", "b"]  # strings: a list of str, not a tensor
assert nested["score"].dtype == torch.float64  # Python floats: float64
assert type(nested["pair"]) is list and nested["pair"][0].shape == (2, 2)
assert torch.equal(nested["pair"][1], torch.tensor([1, 2]))
assert torch.equal(nested["meta"]["id"], torch.tensor([7, 8]))
# a list inside a sample is zipped by position, not kept per sample
tokens = default_collate(
    [{"tokens": [1, 2, 3]}, {"tokens": [4, 5, 6]}]
)["tokens"]
assert len(tokens) == 3 and torch.equal(tokens[0], torch.tensor([1, 4]))
try:
    default_collate([torch.ones(3), torch.ones(2)])
except RuntimeError as error:
    assert "stack expects each tensor to be equal size" in str(error)
    assert "[3] at entry 0 and [2] at entry 1" in str(error)  # names the sizes
else:
    raise AssertionError("tensors of different sizes were collated")
try:
    default_collate([[1, 2, 3], [4, 5]])
except RuntimeError as error:
    assert "each element in list of batch should be of equal size" in str(error)
else:
    raise AssertionError("lists of different lengths were collated")
# a custom collate_fn gets the list of samples and returns what it likes
first = next(
    iter(DataLoader(fake_dataset, batch_size=3, collate_fn=keep_samples))
)
assert type(first) is list and len(first) == 3
assert first[1] == {"idx": 1, "data": torch.tensor(10)}
# len(loader) counts batches; drop_last drops the short last batch
assert len(DataLoader(dataset, batch_size=4)) == 3  # ceil(10 / 4)
assert [len(b[2]) for b in DataLoader(dataset, batch_size=4)] == [4, 4, 2]
# floor(10 / 4)
assert len(DataLoader(dataset, batch_size=4, drop_last=True)) == 2
assert [
    len(b[2]) for b in DataLoader(dataset, batch_size=4, drop_last=True)
] == [4, 4]
# a seeded generator: the same orders again; each epoch reshuffles
runs = []
for _ in range(2):
    g = torch.Generator().manual_seed(42)
    loader = DataLoader(dataset, batch_size=4, shuffle=True, generator=g)
    runs.append([order(loader), order(loader)])
assert runs[0] == runs[1]
g = torch.Generator().manual_seed(42)
loader = DataLoader(dataset, batch_size=4, shuffle=True, generator=g)
torch.rand(100)  # other random calls do not change the order drawn from g
assert order(loader) == runs[0][0]
assert runs[0][0] != runs[0][1]
orders = []
# without a generator: the global generator, fixed by manual_seed
for _ in range(2):
    torch.manual_seed(3)
    orders.append(order(DataLoader(dataset, batch_size=4, shuffle=True)))
assert orders[0] == orders[1]
assert sorted(runs[0][0]) == sorted(runs[0][1]) == everything

# %% files
import pathlib

pathlib.Path("data/train").mkdir(parents=True)
for i in range(3):  # three samples, one file each
    torch.save(torch.full((2,), float(i)), f"data/train/{i}.pt")
print(sorted(path.name for path in pathlib.Path("data/train").iterdir()))


class Files(Dataset):
    """One sample per .pt file that the pattern matches"""

    def __init__(self, pattern):
        self.paths = sorted(pathlib.Path().glob(pattern))

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, index):
        return torch.load(self.paths[index], weights_only=True)


# %% empty-dataset raises="ValueError: num_samples should be a positive integer value, but got num_samples=0"
train = Files("data/training/*.pt")  # a typo: the folder is data/train
loader = DataLoader(train, batch_size=2, shuffle=True)

# %% empty-dataset-fix
print(len(train), pathlib.Path("data/training").exists())  # check these first
train = Files("data/train/*.pt")
print(len(train))
loader = DataLoader(train, batch_size=2, shuffle=True)
print(len(loader), next(iter(loader)).shape)

# %% empty-no-shuffle
empty = Files("data/training/*.pt")
loader = DataLoader(empty, batch_size=2)  # shuffle=False: no error
print(len(loader), list(loader))

# %% empty-checks tags=["remove-cell"]
from torch.utils.data import RandomSampler

empty = Files("data/training/*.pt")
assert len(empty) == 0 and empty.paths == []  # glob raises nothing
for make in (
    lambda: DataLoader(empty, batch_size=2, shuffle=True),
    lambda: RandomSampler(empty),  # the sampler shuffle=True uses
):
    try:
        make()
    except ValueError as error:
        assert "but got num_samples=0" in str(error)
    else:
        raise AssertionError("shuffling an empty dataset should fail")
# a relative path is read from the working directory
assert pathlib.Path("data/train").resolve() == pathlib.Path.cwd() / "data/train"
loader = DataLoader(empty, batch_size=2)
assert len(loader) == 0 and list(loader) == []
train = Files("data/train/*.pt")
assert len(train) == 3 and len(DataLoader(train, batch_size=2)) == 2
batches = list(DataLoader(train, batch_size=2, shuffle=True))
assert [b.shape for b in batches] == [(2, 2), (1, 2)]
assert sorted(torch.cat(batches)[:, 0].tolist()) == [0.0, 1.0, 2.0]

# %% csv-files
import csv
import tempfile

import numpy as np
from PIL import Image

tmp = tempfile.TemporaryDirectory()  # removed by tmp.cleanup() or at exit
root = pathlib.Path(tmp.name)
(root / "images").mkdir()
rows = [("images/cat_0.png", 0), ("images/dog_0.png", 1),
        ("images/cat_1.png", 0), ("images/dog_1.png", 1),
        ("images/bird_0.png", 2)]
for i, (path, label) in enumerate(rows):  # tiny 4 x 6 RGB images
    pixels = np.full((4, 6, 3), 50 * i, dtype=np.uint8)
    Image.fromarray(pixels).save(root / path)
with open(root / "labels.csv", "w", newline="") as file:
    writer = csv.writer(file)
    writer.writerow(["path", "label"])
    writer.writerows(rows)
print((root / "labels.csv").read_text())

# %% csv-dataset
class CsvImages(Dataset):
    """Images listed in a CSV file (path,label), read one at a time"""

    def __init__(self, csv_file):
        csv_file = pathlib.Path(csv_file)
        self.root = csv_file.parent  # paths in the CSV are relative to it
        with open(csv_file, newline="") as file:
            rows = list(csv.DictReader(file))
        self.paths = [row["path"] for row in rows]  # names only, no pixels
        self.labels = [int(row["label"]) for row in rows]

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, index):
        with Image.open(self.root / self.paths[index]) as image:
            pixels = np.array(image.convert("RGB"))  # (H, W, 3) uint8
        x = torch.from_numpy(pixels).permute(2, 0, 1) / 255  # (3, H, W)
        return x, torch.tensor(self.labels[index])


dataset = CsvImages(root / "labels.csv")
loader = DataLoader(dataset, batch_size=4)
print(len(dataset), len(loader))
for x, y in loader:
    print(x.shape, x.dtype, y, y.dtype)

# %% csv-dataset-checks tags=["remove-cell"]
with open(root / "labels.csv", newline="") as file:
    expected = [(r["path"], int(r["label"])) for r in csv.DictReader(file)]
assert expected == rows and len(dataset) == 5 and len(loader) == 2
batches = list(loader)
assert [b[0].shape for b in batches] == [(4, 3, 4, 6), (1, 3, 4, 6)]
assert all(b[0].dtype == torch.float32 and b[1].dtype == torch.int64
           for b in batches)
# the labels are the CSV's, in its order
assert torch.cat([b[1] for b in batches]).tolist() == [r[1] for r in rows]
# int64 labels are class indices for cross_entropy
torch.nn.functional.cross_entropy(torch.zeros(4, 3), batches[0][1])
# each sample holds the pixels of its own file, scaled to [0, 1]
for i, (x, y) in enumerate(dataset):
    assert torch.allclose(x, torch.full((3, 4, 6), 50 * i / 255))
# __init__ keeps names, not images
assert all(type(p) is str for p in dataset.paths)
# the CSV's paths are relative to its folder, not to the working directory
assert not pathlib.Path(rows[0][0]).exists()
assert (dataset.root / dataset.paths[0]).is_file()
assert dataset.root == root and root != pathlib.Path.cwd()
tmp.cleanup()

# %% concat
from torch.utils.data import ConcatDataset

x_a = torch.arange(6.0).reshape(3, 2)  # 3 samples
x_b = torch.arange(100.0, 110.0).reshape(5, 2)  # 5 samples
a = TensorDataset(x_a, torch.zeros(3, dtype=torch.long))  # source 0
b = TensorDataset(x_b, torch.ones(5, dtype=torch.long))  # source 1
combined = ConcatDataset([a, b])
print(len(a), len(b), len(combined), combined.cumulative_sizes)
print(combined[2])  # the last sample of a
print(combined[3])  # the first sample of b
print(type(a + b).__name__, len(a + b))

# %% concat-shuffle
g = torch.Generator().manual_seed(0)
loader = DataLoader(combined, batch_size=4, shuffle=True, generator=g)
for x, source in loader:
    print(x[:, 0].tolist(), "from", source.tolist())

# %% concat-checks tags=["remove-cell"]
assert len(combined) == len(a) + len(b) == 8
assert combined.cumulative_sizes == [3, 8]
# index i < 3 reads a[i], index i >= 3 reads b[i - 3]
for i in range(8):
    want = a[i] if i < 3 else b[i - 3]
    assert all(torch.equal(u, v) for u, v in zip(combined[i], want))
both = a + b
assert type(both) is ConcatDataset and both.cumulative_sizes == [3, 8]
g = torch.Generator().manual_seed(0)
batches = list(DataLoader(combined, batch_size=4, shuffle=True, generator=g))
firsts = sorted(torch.cat([x[:, 0] for x, _ in batches]).tolist())
assert firsts == sorted(x_a[:, 0].tolist() + x_b[:, 0].tolist())  # each once
# shuffled across the two: a sample of b comes before one of a
sources = torch.cat([s for _, s in batches]).tolist()
assert sources != sorted(sources)

# %% concat-mismatch raises="RuntimeError: stack expects each tensor to be equal size"
c = TensorDataset(torch.ones(4, 3), torch.full((4,), 2))  # 3 features, not 2
mixed = a + c  # no error here: ConcatDataset checks nothing
loader = DataLoader(mixed, batch_size=4)
for x, source in loader:  # the first batch: 3 samples of a, 1 of c
    pass

# %% concat-mismatch-checks tags=["remove-cell"]
assert len(mixed) == 7
assert mixed[2][0].shape == (2,) and mixed[3][0].shape == (3,)
# a batch of c alone collates: only the mix fails
assert next(iter(DataLoader(c, batch_size=4)))[0].shape == (4, 3)

# %% corrupt-files
tmp = tempfile.TemporaryDirectory()  # removed by tmp.cleanup() or at exit
root = pathlib.Path(tmp.name)
for i in range(6):  # six tiny images, one gray level each
    pixels = np.full((4, 6, 3), 40 * i, dtype=np.uint8)
    Image.fromarray(pixels).save(root / f"{i}.png")
(root / "4.png").write_bytes(b"not a png")  # a broken file: sample 4


class Images(Dataset):
    """The PNG files of a folder; None for a file that cannot be read"""

    def __init__(self, folder):
        self.paths = sorted(pathlib.Path(folder).glob("*.png"))

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, index):
        try:
            with Image.open(self.paths[index]) as image:
                pixels = np.array(image.convert("RGB"))
        except OSError:  # unreadable, truncated or not an image
            return None
        x = torch.from_numpy(pixels).permute(2, 0, 1) / 255
        return x, index


dataset = Images(root)
print(len(dataset), [i for i in range(len(dataset)) if dataset[i] is None])

# %% corrupt-default-collate raises="TypeError: default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found <class 'NoneType'>"
loader = DataLoader(dataset, batch_size=4)
for x, index in loader:  # the second batch starts with sample 4, a None
    print(index)

# %% corrupt-default-collate-checks tags=["remove-cell"]
from PIL import UnidentifiedImageError

assert issubclass(UnidentifiedImageError, OSError)
assert [dataset[i] is None for i in range(6)] == [False] * 4 + [True, False]
# a None that is not first in its batch gives other TypeErrors
for samples, message in (
    ([dataset[3], dataset[4]], "object of type 'NoneType' has no len()"),
    ([torch.ones(2), None], "expected Tensor as element 1"),
):
    try:
        default_collate(samples)
    except TypeError as error:
        assert message in str(error), error
    else:
        raise AssertionError("a None was collated")

# %% skip-none
def skip_none(samples):
    """Collate the samples that loaded; None if none did"""
    samples = [sample for sample in samples if sample is not None]
    return default_collate(samples) if samples else None


loader = DataLoader(dataset, batch_size=4, collate_fn=skip_none)
for batch in loader:
    if batch is None:  # every sample of this batch was broken
        continue
    x, index = batch
    print(x.shape, index)

# %% skip-none-checks tags=["remove-cell"]
from torch.utils.data import Subset

batches = list(loader)
assert [b[0].shape[0] for b in batches] == [4, 1]  # the second batch is smaller
assert torch.cat([b[1] for b in batches]).tolist() == [0, 1, 2, 3, 5]
for x, index in batches:  # each image holds its own file's pixels
    assert torch.allclose(x, (40 * index / 255).view(-1, 1, 1, 1).expand_as(x))
try:  # nothing left: default_collate cannot collate an empty list
    default_collate([])
except IndexError:
    pass
else:
    raise AssertionError("an empty batch was collated")
assert list(DataLoader(Subset(dataset, [4]), collate_fn=skip_none)) == [None]
# a top-level collate_fn also runs in the worker processes
with_workers = DataLoader(dataset, batch_size=4, collate_fn=skip_none,
                          num_workers=2)
assert [b[1].tolist() for b in with_workers] == [[0, 1, 2, 3], [5]]


# the other way: another sample in place of the broken one keeps batches full
class NextIfBroken(Images):
    def __getitem__(self, index):
        sample = super().__getitem__(index)
        return sample if sample is not None else self[(index + 1) % len(self)]


full = list(DataLoader(NextIfBroken(root), batch_size=4))
assert [b[1].tolist() for b in full] == [[0, 1, 2, 3], [5, 5]]
tmp.cleanup()

# %% mixup
import torch.nn.functional as F

torch.manual_seed(0)
x = torch.randn(4, 3, 8, 8)  # a batch of four images
y = torch.tensor([0, 1, 2, 1])  # their classes, out of 3
model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(3 * 8 * 8, 3))

lam = torch.distributions.Beta(0.4, 0.4).sample().item()  # 0 < lam < 1
perm = torch.randperm(len(x))  # each sample's partner in the batch
x_mixed = lam * x + (1 - lam) * x[perm]
y_a, y_b = y, y[perm]
print(f"lam {lam:.4f}, partners {perm.tolist()}, y_b {y_b.tolist()}")

out = model(x_mixed)
loss = lam * F.cross_entropy(out, y_a) + (1 - lam) * F.cross_entropy(out, y_b)
# the same loss from mixed soft targets
target = lam * F.one_hot(y_a, 3).float() + (1 - lam) * F.one_hot(y_b, 3).float()
loss_soft = F.cross_entropy(out, target)
print(target)
print(f"two targets {loss:.4f}, soft targets {loss_soft:.4f}")

# %% mixup-checks tags=["remove-cell"]
assert 0 < lam < 1 and sorted(perm.tolist()) == [0, 1, 2, 3]
assert torch.allclose(x_mixed, lam * x + (1 - lam) * x[perm])
assert torch.allclose(target.sum(dim=1), torch.ones(4))  # rows sum to 1
assert torch.isclose(loss, loss_soft, atol=1e-6)  # the two forms agree
for i in range(4):  # a sample that drew itself stays as it was, one-hot
    if perm[i] == i:
        assert torch.allclose(x_mixed[i], x[i])
        assert torch.isclose(target[i].max(), torch.tensor(1.0))
loss.backward()  # a loss like any other
assert model[1].weight.grad is not None
# with class weights the two forms differ: see the imbalanced page
w = torch.tensor([1.0, 2.0, 4.0])
two = lam * F.cross_entropy(out, y_a, weight=w) + (1 - lam) * F.cross_entropy(
    out, y_b, weight=w)
assert not torch.isclose(two, F.cross_entropy(out, target, weight=w))

# %% cutmix
def cutmix(x, y, lam):
    """Paste a box of each sample's partner; lam becomes the part kept"""
    h, w = x.shape[-2:]
    cut_h, cut_w = int(h * (1 - lam) ** 0.5), int(w * (1 - lam) ** 0.5)
    cy, cx = torch.randint(h, ()).item(), torch.randint(w, ()).item()
    top, bottom = max(cy - cut_h // 2, 0), min(cy + cut_h // 2, h)
    left, right = max(cx - cut_w // 2, 0), min(cx + cut_w // 2, w)
    perm = torch.randperm(len(x))
    x = x.clone()  # keep the loader's batch as it was
    x[..., top:bottom, left:right] = x[perm][..., top:bottom, left:right]
    lam = 1 - (bottom - top) * (right - left) / (h * w)  # the box as cut
    return x, y, y[perm], lam


torch.manual_seed(2)
x = torch.arange(4.0).view(4, 1, 1, 1).expand(4, 1, 6, 6)  # image i is all i
lam = torch.distributions.Beta(1.0, 1.0).sample().item()
x_cut, y_a, y_b, lam_box = cutmix(x, y, lam)
print(f"lam drawn {lam:.4f}, kept {lam_box:.4f}, y_b {y_b.tolist()}")
print(x_cut[0, 0])

# %% cutmix-checks tags=["remove-cell"]
for i in range(4):  # the pixels that are not i came from the partner
    pasted = (x_cut[i] != x[i]).float().mean().item()
    partners = set(x_cut[i].unique().tolist()) - {float(i)}
    assert len(partners) <= 1  # one partner; none if it drew itself
    if partners:
        assert abs(pasted - (1 - lam_box)) < 1e-6
assert 0 < lam_box <= 1 and torch.equal(x[:, 0, 0, 0], torch.arange(4.0))
assert (x_cut[0] != x[0]).any()  # the printed image holds a pasted box
# lam asked for about a third of the image; the box as cut is 2 x 2 of 6 x 6
assert 0.3 < 1 - lam < 0.37
assert int((x_cut[0] != x[0]).sum()) == 4 and abs(lam_box - (1 - 4 / 36)) < 1e-6
# Beta(1, 1) is uniform; with alpha 0.2 most draws lie near 0 or 1
assert torch.allclose(torch.distributions.Beta(1.0, 1.0).log_prob(
    torch.tensor([0.1, 0.5, 0.9])), torch.zeros(3))
draws = torch.distributions.Beta(0.2, 0.2).sample((10000,))
assert ((draws < 0.1) | (draws > 0.9)).float().mean() > 0.6


# mixing in a collate_fn: default_collate, then mix the batch
def mixup_collate(samples):
    x, y = default_collate(samples)
    lam = torch.distributions.Beta(0.4, 0.4).sample().item()
    perm = torch.randperm(len(x))
    target = F.one_hot(y, 3).float()
    return (lam * x + (1 - lam) * x[perm],
            lam * target + (1 - lam) * target[perm])


images = TensorDataset(torch.randn(8, 3, 8, 8), torch.arange(8) % 3)
for xb, tb in DataLoader(images, batch_size=4, collate_fn=mixup_collate):
    assert xb.shape == (4, 3, 8, 8) and torch.allclose(tb.sum(1), torch.ones(4))
    F.cross_entropy(model(xb), tb)


# %% unpack-three raises="ValueError: too many values to unpack (expected 2)"
loader = DataLoader(WithIndex(base), batch_size=4)  # samples are (x, y, index)
for x, y in loader:
    pass

# %% unpack-three-checks tags=["remove-cell"]
assert len(next(iter(loader))) == 3

# %% unpack-one raises="ValueError: not enough values to unpack (expected 2, got 1)"
only_x = TensorDataset(x_all)  # one tensor: each sample is (x,)
for x, y in DataLoader(only_x, batch_size=4):
    pass

# %% unpack-one-checks tags=["remove-cell"]
assert len(only_x[0]) == 1

# %% unpack-fixed
for x, y, idx in loader:  # one name per field of the sample
    print(x.shape, y.shape, idx)
    break
batch = next(iter(loader))  # or keep the batch and index it
print(type(batch).__name__, len(batch), batch[0].shape)

# %% unpack-fixed-checks tags=["remove-cell"]
assert x.shape == (4, 2) and idx.tolist() == [0, 1, 2, 3]
assert isinstance(batch, list) and torch.equal(batch[0], x_all[:4])


# %% unpack-dict
class ImageLabel(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        return {"image": torch.full((3,), float(index)), "label": index % 2}


for x, y in DataLoader(ImageLabel(), batch_size=4):
    print(repr(x), repr(y))  # no error: the two keys of the dict
    break
batch = next(iter(DataLoader(ImageLabel(), batch_size=4)))
x, y = batch["image"], batch["label"]  # take the values by key
print(x.shape, y)

# %% unpack-dict-checks tags=["remove-cell"]
for a, b in DataLoader(ImageLabel(), batch_size=4):
    assert (a, b) == ("image", "label")
assert x.shape == (4, 3) and y.tolist() == [0, 1, 0, 1]


# %% numpy-loader
import numpy as np

rng = np.random.default_rng(0)
X = rng.random((10, 3))  # NumPy features: float64
y = rng.integers(0, 2, size=10)  # NumPy labels: int64
print(X.dtype, y.dtype)
ds = TensorDataset(torch.from_numpy(X).float(), torch.from_numpy(y).long())
loader = DataLoader(ds, batch_size=4, shuffle=True)
model = torch.nn.Linear(3, 2)
for xb, yb in loader:
    loss = torch.nn.functional.cross_entropy(model(xb), yb)
    print(xb.shape, xb.dtype, yb.shape, yb.dtype)

# %% numpy-loader-checks tags=["remove-cell"]
assert X.dtype == np.float64 and y.dtype == np.int64
assert len(ds) == 10 and len(loader) == 3
batches = list(loader)
assert [tuple(b[0].shape) for b in batches] == [(4, 3), (4, 3), (2, 3)]
assert all(b[0].dtype == torch.float32 and b[1].dtype == torch.int64
           for b in batches)
# from_numpy keeps NumPy's dtypes: float64 and int64
assert torch.from_numpy(X).dtype == torch.float64
assert torch.from_numpy(y).dtype == torch.int64
# a float target for regression, with the output's shape
reg = torch.nn.Linear(3, 1)
target = torch.from_numpy(X[:, :1]).float()  # (10, 1), like reg's output
assert torch.nn.functional.mse_loss(reg(ds.tensors[0]), target).dim() == 0
# class indices in another integer type are refused by cross_entropy
try:
    torch.nn.functional.cross_entropy(model(xb), yb.int())
except RuntimeError:
    pass
else:
    raise AssertionError("int32 targets were accepted")

# %% numpy-float64 raises="RuntimeError: mat1 and mat2 must have the same dtype, but got Double and Float"
ds = TensorDataset(torch.from_numpy(X), torch.from_numpy(y))  # no .float()
xb, yb = next(iter(DataLoader(ds, batch_size=4)))
print(xb.dtype)
model(xb)

# %% numpy-float64-checks tags=["remove-cell"]
assert xb.dtype == torch.float64 and model.weight.dtype == torch.float32
assert model(xb.float()).dtype == torch.float32  # the fix: .float()

# %% numpy-raw raises="TypeError: 'int' object is not callable"
ds = TensorDataset(X, y)  # NumPy arrays, not tensors

# %% numpy-raw-checks tags=["remove-cell"]
assert isinstance(X.size, int) and X.size == 30  # size is an int in NumPy

# %% numpy-length raises="AssertionError: Size mismatch between tensors" holds="!=2.10" claim="`TensorDataset` refuses tensors of different lengths"
ds = TensorDataset(torch.from_numpy(X).float(), torch.from_numpy(y[:9]))

# %% numpy-length-checks tags=["remove-cell"]
assert len(X) == 10 and len(y[:9]) == 9

# %% batch-to raises="AttributeError: 'list' object has no attribute 'to'"
device = torch.device("meta")  # write "cuda"; meta runs on any machine
loader = DataLoader(base, batch_size=4)  # samples are (x, y) tuples
batch = next(iter(loader))
print(type(batch).__name__, len(batch))
batch = batch.to(device)

# %% batch-to-checks tags=["remove-cell"]
assert type(batch) is list and len(batch) == 2
# a dict sample gives a dict batch, which has no .to() either
try:
    next(iter(DataLoader(ImageLabel(), batch_size=4))).to(device)
except AttributeError as error:
    assert str(error) == "'dict' object has no attribute 'to'", error
else:
    raise AssertionError("a dict batch was moved")

# %% batch-unpack
for x, y in loader:
    x, y = x.to(device), y.to(device)  # each tensor of the batch
print(x.device, y.device)

# %% batch-unpack-checks tags=["remove-cell"]
assert x.device.type == y.device.type == "meta" and x.shape == (2, 2)


# %% to-device
def to_device(batch, device):
    """Move every tensor of a batch of lists, tuples and dicts to device"""
    if isinstance(batch, torch.Tensor):
        return batch.to(device, non_blocking=True)
    if isinstance(batch, dict):
        return {key: to_device(value, device) for key, value in batch.items()}
    if isinstance(batch, (list, tuple)):
        return type(batch)(to_device(value, device) for value in batch)
    return batch  # strings, numbers: as they are


samples = [{"image": torch.ones(3), "label": 1, "name": "a.png"},
           {"image": torch.zeros(3), "label": 0, "name": "b.png"}]
batch = to_device(default_collate(samples), device)
print(batch)

# %% to-device-checks tags=["remove-cell"]
assert list(batch) == ["image", "label", "name"]
assert batch["image"].device.type == batch["label"].device.type == "meta"
assert batch["image"].shape == (2, 3) and batch["name"] == ["a.png", "b.png"]
moved = to_device((torch.ones(1), [torch.ones(2), {"k": torch.ones(3)}]), device)
assert type(moved) is tuple and type(moved[1]) is list
assert moved[1][1]["k"].device.type == "meta"
cpu = to_device(default_collate(samples), "cpu")  # on the same device: no copy
assert torch.equal(cpu["image"], torch.stack([s["image"] for s in samples]))


# %% collate-to-device
def collate_to_device(samples):
    """The default collate, then the move: with num_workers=0 only"""
    return to_device(default_collate(samples), device)


loader = DataLoader(base, batch_size=4, collate_fn=collate_to_device)
x, y = next(iter(loader))
print(x.device, y.device)

# %% collate-to-device-checks tags=["remove-cell"]
assert x.device.type == y.device.type == "meta" and x.shape == (4, 2)


# %% label-lookup raises="KeyError: Caught KeyError in DataLoader worker process 0."
# rows found by label, like the index of a DataFrame
table = {label: (torch.tensor([float(label)]), label % 2)
         for label in range(10)}
val = {label: row for label, row in table.items() if label >= 7}  # a split


class ByLabel(Dataset):
    def __init__(self, table):
        self.table = table

    def __len__(self):
        return len(self.table)

    def __getitem__(self, index):
        return self.table[index]  # like df.loc[index]: a label, not a position


loader = DataLoader(ByLabel(val), batch_size=2, num_workers=2)
print(len(val), list(val))
it = iter(loader)
next(it)

# %% label-lookup-close tags=["remove-cell"]
# shut the failed loader's workers down
import gc

gc.collect()
del it

# %% label-lookup-main raises="KeyError: 0"
loader = DataLoader(ByLabel(val), batch_size=2)  # num_workers=0 to debug
next(iter(loader))

# %% label-lookup-checks tags=["remove-cell"]
assert list(val) == [7, 8, 9] and 0 not in val and len(ByLabel(val)) == 3
# the worker's error: the wrapped message, and the worker's traceback as text
loader = DataLoader(ByLabel(val), batch_size=2, num_workers=1)
it = iter(loader)
try:
    next(it)
except KeyError as error:
    message = str(error)
    error.__traceback__ = None  # no reference cycle: the worker shuts down
else:
    raise AssertionError("position 0 was found among labels 7, 8, 9")
it = None
assert message.startswith("Caught KeyError in DataLoader worker process 0.")
assert "Original Traceback" in message
assert message.strip().splitlines()[-1] == "KeyError: 0"


# %% label-lookup-fix
class ByPosition(Dataset):
    def __init__(self, table):
        self.table = table
        self.labels = list(table)  # position i: the i-th label

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, index):
        return self.table[self.labels[index]]  # like df.iloc[index]


loader = DataLoader(ByPosition(val), batch_size=2, num_workers=2)
for x, y in loader:
    print(x.flatten(), y)

# %% label-lookup-fix-checks tags=["remove-cell"]
rows = list(DataLoader(ByPosition(val), batch_size=2, num_workers=2))
assert torch.cat([x for x, _ in rows]).flatten().tolist() == [7.0, 8.0, 9.0]
assert torch.cat([y for _, y in rows]).tolist() == [1, 0, 1]
# renumbering the rows 0..n-1 (pandas: reset_index(drop=True)) works too
renumbered = dict(enumerate(val.values()))
assert [renumbered[i][1] for i in range(3)] == [1, 0, 1]
