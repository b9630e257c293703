# %% [markdown]
# F.one_hot turns class indices into int64 one-hot rows; pass
# num_classes, convert to float for arithmetic, and give
# CrossEntropyLoss the indices themselves

# %% [markdown] lang="zh"
# `F.one_hot` 把类别下标变成 `int64` 的 one-hot 行；要传 `num_classes`，
# 参与浮点运算前先转成浮点数；`CrossEntropyLoss` 直接用类别下标即可

# %% one-hot
import torch
import torch.nn.functional as F
from torch import nn

labels = torch.tensor([0, 2, 1, 2])  # class indices, 3 classes
y = F.one_hot(labels, num_classes=3)
print(y)
print(y.dtype, y.shape)
print(y.argmax(dim=1))  # and back to the indices

# %% one-hot-checks tags=["remove-cell"]
assert y.dtype == torch.int64 and y.shape == (4, 3)
assert torch.equal(y.sum(dim=1), torch.ones(4, dtype=torch.int64))
assert all(y[i, labels[i]] == 1 for i in range(4))
assert torch.equal(y.argmax(dim=1), labels)

# %% one-hot-float
logits = torch.randn(4, 3)
targets = y.float()  # or F.one_hot(...).to(logits.dtype)
print(targets.dtype)
print(torch.equal(targets, torch.eye(3)[labels]))  # the same, float already
print(nn.BCEWithLogitsLoss()(logits, targets))  # multi-label losses want floats

# %% one-hot-float-checks tags=["remove-cell"]
assert targets.dtype == torch.float32
assert torch.eye(3)[labels].dtype == torch.float32
assert torch.equal(targets, torch.eye(3)[labels])

# %% one-hot-long-loss raises="RuntimeError: result type Float can't be cast to the desired output type Long"
nn.BCEWithLogitsLoss()(logits, y)  # y is int64

# %% num-classes
batch = torch.tensor([0, 1, 1])  # no sample of class 2 in this batch
print(F.one_hot(batch).shape)  # the width is guessed: max + 1
print(F.one_hot(batch, num_classes=3).shape)

# %% num-classes-checks tags=["remove-cell"]
assert F.one_hot(batch).shape == (3, 2)  # num_classes=-1: batch.max() + 1
assert F.one_hot(batch, num_classes=3).shape == (3, 3)
assert F.one_hot(torch.tensor([1, 1])).shape == (2, 2)

# %% negative raises="RuntimeError: Class values must be non-negative."
padded = torch.tensor([0, 2, -100])  # -100: the ignore_index of the losses
F.one_hot(padded, num_classes=3)

# %% too-large raises="RuntimeError: Class values must be smaller than num_classes."
F.one_hot(torch.tensor([1, 2, 3]), num_classes=3)  # labels counted from 1

# %% not-long raises="RuntimeError: one_hot is only applicable to index tensor of type LongTensor." holds=">=2.5" claim="`one_hot` names the dtype it wants: `LongTensor`"
F.one_hot(torch.tensor([0.0, 2.0, 1.0]), num_classes=3)

# %% not-long-fix
print(F.one_hot(torch.tensor([0.0, 2.0, 1.0]).long(), num_classes=3))

# %% not-long-checks tags=["remove-cell"] holds=">=2.5" claim="`one_hot` refuses `int32` and `uint8` labels with the message it gives floats: only `LongTensor`"
# int32 and uint8 labels are refused too: only int64
for dtype in (torch.int32, torch.uint8):
    try:
        F.one_hot(labels.to(dtype), num_classes=3)
    except RuntimeError as error:
        assert "only applicable to index tensor of type LongTensor" in str(error)
    else:
        raise AssertionError(f"one_hot accepted {dtype}")

# %% more-dims
mask = torch.tensor([[[0, 1, 1], [2, 2, 0]]])  # (batch, height, width)
m = F.one_hot(mask, num_classes=3)
print(m.shape)  # the classes come last
print(m.permute(0, 3, 1, 2).shape)  # (batch, classes, height, width)

# %% more-dims-checks tags=["remove-cell"]
assert m.shape == (1, 2, 3, 3)
channels = m.permute(0, 3, 1, 2)
assert channels.shape == (1, 3, 2, 3)
for c in range(3):  # channel c is the mask of class c
    assert torch.equal(channels[0, c], (mask[0] == c).long())

# %% cross-entropy
loss_fn = nn.CrossEntropyLoss()
print(loss_fn(logits, labels))  # class indices: no one-hot needed
print(loss_fn(logits, y.float()))  # one-hot floats: read as probabilities

# %% cross-entropy-checks tags=["remove-cell"]
assert torch.allclose(loss_fn(logits, labels), loss_fn(logits, y.float()))
expected = -F.log_softmax(logits, dim=1)[torch.arange(4), labels].mean()
assert torch.allclose(loss_fn(logits, labels), expected)

# %% cross-entropy-long raises="RuntimeError: Expected floating point type for target with class probabilities, got Long"
loss_fn(logits, y)
