# %% [markdown]
# NLLLoss picks -input[i, target[i]] (times the class weight) and averages it;
# CrossEntropyLoss is log_softmax followed by NLLLoss

# %% [markdown] lang="zh"
# `NLLLoss` 取出 `-input[i, target[i]]`（再乘以类别权重）并求平均；
# `CrossEntropyLoss` 就是先做 `log_softmax`，再算 `NLLLoss`

# %% log-prob
import torch
import torch.nn as nn
import torch.nn.functional as F

a = torch.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]], dtype=torch.float32)
target = torch.tensor([0, 1, 2])  # class indices, not one-hot
# one weight per class; the weights need not sum to 1
weight = torch.tensor([0.2, 0.4, 1.0])

log_prob = F.log_softmax(a, dim=1)
print(log_prob)

# %% one-hot-target tags=["raises-exception"]
nn.NLLLoss()(log_prob, F.one_hot(target, num_classes=3))

# %% nll-more-dims
x3 = torch.randn(2, 3, 4).log_softmax(dim=1)  # (N, C, d): classes in dim 1
t3 = torch.randint(0, 3, (2, 4))  # (N, d)
print(nn.NLLLoss(reduction="none")(x3, t3).shape)

# %% nll-none
criterion = nn.NLLLoss(weight=weight, reduction="none")
loss = criterion(log_prob, target)
print(loss)
print(-weight[target] * log_prob[torch.arange(3), target])

# %% nll-mean
# reduction="mean" is the default
print(nn.NLLLoss(weight=weight)(log_prob, target))
print(loss.sum() / weight[target].sum())

# %% nll-sum
print(nn.NLLLoss(weight=weight, reduction="sum")(log_prob, target), loss.sum())

# %% mean-repeated-class
target2 = torch.tensor([2, 2, 0])
loss2 = nn.NLLLoss(weight=weight, reduction="none")(log_prob, target2)
mean2 = nn.NLLLoss(weight=weight)(log_prob, target2)
print(mean2)
print(loss2.sum() / weight[target2].sum())  # right: the targets' weights
print(loss2.sum() / weight.sum())  # wrong: all class weights

# %% nll-picks
x = torch.tensor([[0.5, -1.0, 2.0], [3.0, 0.0, -4.0]])  # not log-probabilities
t = torch.tensor([2, 0])
print(nn.NLLLoss(reduction="none")(x, t))
print(-x[torch.arange(2), t])

# %% one-hot
logits = torch.randn(5, 3)
labels = torch.tensor([0, 2, 1, 1, 0])
mask = torch.tensor([True, False, True, True, False])

loss_nll = nn.NLLLoss(reduction="sum")(logits[mask], labels[mask])
one_hot = F.one_hot(labels, num_classes=3)
per_sample = -(logits * one_hot).sum(dim=1)[mask]
print(loss_nll)
print(per_sample, per_sample.sum())

# %% ce-equals
ce = nn.CrossEntropyLoss(weight=weight, reduction="none")
print(ce(a, target))  # raw logits in
print(nn.CrossEntropyLoss(weight=weight)(a, target))

# %% ce-prob-target
probs = torch.tensor([[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.0, 0.0, 1.0]])
print(nn.CrossEntropyLoss()(a, probs))
print(-(probs * log_prob).sum(dim=1).mean())

# %% label-smoothing
z = torch.randn(4, 3)
tz = torch.tensor([0, 2, 1, 2])
eps = 0.1
smoothed = (1 - eps) * F.one_hot(tz, num_classes=3).float() + eps / 3
print(smoothed[0])
print(nn.CrossEntropyLoss(label_smoothing=eps)(z, tz))
print(nn.CrossEntropyLoss()(z, smoothed))
print(nn.CrossEntropyLoss()(z, tz))

# %% ignore-index
padded = torch.tensor([0, -100, 1])  # -100: the default ignore_index
print(nn.CrossEntropyLoss(reduction="none")(a, padded))
print(nn.CrossEntropyLoss()(a, padded))
# as if the row were not there
print(nn.CrossEntropyLoss()(a[[0, 2]], padded[[0, 2]]))

# %% double-softmax
y_hat = torch.tensor([[8.0, 0.0, 0.0], [0.0, 8.0, 0.0]])  # confident and right
t_right = torch.tensor([0, 1])
print(nn.CrossEntropyLoss()(y_hat, t_right))  # right: logits
# wrong: softmax twice
print(nn.CrossEntropyLoss()(y_hat.softmax(dim=1), t_right))

# %% double-softmax-grad
# confident and wrong
y_bad = torch.tensor([[0.0, 8.0, 0.0]], requires_grad=True)
t_bad = torch.tensor([0])
nn.CrossEntropyLoss()(y_bad, t_bad).backward()
print(y_bad.grad)  # right: a strong push towards class 0
y_bad.grad = None
nn.CrossEntropyLoss()(y_bad.softmax(dim=1), t_bad).backward()
print(y_bad.grad)  # softmax twice: almost no gradient

# %% float-target tags=["raises-exception"]
# e.g. labels read from a float array
float_target = torch.tensor([0.0, 1.0, 2.0])
nn.CrossEntropyLoss()(a, float_target)

# %% float-target-fixed
print(nn.CrossEntropyLoss()(a, float_target.long()))

# %% byte-target-nd tags=["raises-exception"]
pixels = torch.randn(2, 3, 4, 4)  # (N, C, H, W): a class score for every pixel
# (N, H, W): a class mask per image
mask = torch.randint(0, 3, (2, 4, 4), dtype=torch.uint8)
nn.CrossEntropyLoss()(pixels, mask)

# %% byte-target-nd-fixed
print(nn.CrossEntropyLoss()(pixels, mask.long()))

# %% float-target-checks tags=["remove-cell"] holds=">=2.12" claim="A target of another integer dtype is refused with an error saying that class indices must be `Long` or `Byte`" about="float-target"
# class indices: int64 or uint8 only; int32 and other integers are refused
assert mask.shape == (2, 4, 4) and mask.dtype == torch.uint8
for loss_class, scores in (
    (nn.CrossEntropyLoss, pixels), (nn.NLLLoss, pixels.log_softmax(1))
):
    try:  # uint8 indices with more than (N, C): refused, by both losses
        loss_class()(scores, mask)
    except RuntimeError as error:
        assert "expected scalar type Long but found Byte" in str(error)
    else:
        raise AssertionError("uint8 targets accepted for an (N, C, H, W) input")
    try:  # (N, C, d) too
        loss_class()(scores[..., 0], mask[..., 0])
    except RuntimeError as error:
        assert "expected scalar type Long but found Byte" in str(error)
    else:
        raise AssertionError("uint8 targets accepted for an (N, C, d) input")
fixed = nn.CrossEntropyLoss()(a, float_target.long())
assert torch.equal(
    nn.CrossEntropyLoss()(a, float_target.to(torch.uint8)), fixed
)
assert torch.equal(
    nn.NLLLoss()(a.log_softmax(1), float_target.to(torch.uint8)),
    nn.NLLLoss()(a.log_softmax(1), float_target.long())
)
for dtype, name in (
    (torch.int32, "Int"), (torch.int16, "Short"), (torch.int8, "Char")
):
    for loss_class in (nn.CrossEntropyLoss, nn.NLLLoss):
        try:
            loss_class()(a, float_target.to(dtype))
        except RuntimeError as error:
            assert f"expected target dtype to be Long or Byte, but got {name}" \
                in str(error)
        else:
            raise AssertionError(f"{dtype} accepted")

# %% checks tags=["remove-cell"] holds=">=2.12" claim="`CrossEntropyLoss` refuses float class indices with an error that names the dtypes it takes, `Long` or `Byte`"
# What the page says, checked on every build
import math

rows = torch.tensor([-2.4076, -1.4076, -0.4076])
# the note's log_prob
assert torch.allclose(log_prob, rows.expand(3, 3), atol=1e-4)
assert torch.allclose(loss, torch.tensor([0.4815, 0.5630, 0.4076]), atol=1e-4)
assert torch.allclose(loss, -weight[target] * log_prob[torch.arange(3), target])
mean = nn.NLLLoss(weight=weight)(log_prob, target)
assert abs(mean.item() - 0.9076) < 1e-4
assert torch.allclose(mean, loss.sum() / weight[target].sum())
# only because each class is once
assert torch.allclose(mean, loss.sum() / weight.sum())
total = nn.NLLLoss(weight=weight, reduction="sum")(log_prob, target)
assert torch.allclose(total, loss.sum())
unweighted = nn.NLLLoss(reduction="none")(log_prob, target)
assert torch.allclose(nn.NLLLoss()(log_prob, target), unweighted.mean())

# with a repeated class only weight[target].sum() is right
assert torch.allclose(mean2, loss2.sum() / weight[target2].sum())
assert not torch.allclose(mean2, loss2.sum() / weight.sum(), atol=1e-2)

try:
    nn.NLLLoss()(log_prob, F.one_hot(target, num_classes=3))
except RuntimeError as error:
    assert "multi-target not supported" in str(error)
else:
    raise AssertionError("NLLLoss accepted a one-hot target")

nll_x = nn.NLLLoss(reduction="none")(x, t)
assert torch.equal(nll_x, -x[torch.arange(2), t])  # just picks and negates
assert (nll_x < 0).any()  # no check that the input is a log-probability
assert torch.allclose(loss_nll, per_sample.sum())
# the one-hot line alone is per sample, not summed
assert per_sample.shape == (3,)
assert nn.NLLLoss(reduction="none")(x3, t3).shape == (2, 4)

assert torch.allclose(ce(a, target), criterion(F.log_softmax(a, dim=1), target))
assert torch.allclose(ce(a, target), loss)
assert abs(nn.CrossEntropyLoss(weight=weight)(a, target).item() - 0.9076) < 1e-4
assert torch.allclose(
    nn.CrossEntropyLoss()(a, probs), -(probs * log_prob).sum(1).mean()
)
assert torch.allclose(
    nn.CrossEntropyLoss()(a, F.one_hot(target, 3).float()),
    nn.CrossEntropyLoss()(a, target),
)
smooth = nn.CrossEntropyLoss(label_smoothing=eps)(z, tz)
assert torch.allclose(smooth, nn.CrossEntropyLoss()(z, smoothed))
assert not torch.allclose(smooth, nn.CrossEntropyLoss()(z, tz))

assert nn.CrossEntropyLoss().ignore_index == -100 \
    and nn.NLLLoss().ignore_index == -100
per_item = nn.CrossEntropyLoss(reduction="none")(a, padded)
assert per_item[1] == 0
assert torch.allclose(nn.CrossEntropyLoss()(a, padded), per_item[[0, 2]].mean())
assert not torch.allclose(nn.CrossEntropyLoss()(a, padded), per_item.mean())
dropped = nn.CrossEntropyLoss()(a[[0, 2]], padded[[0, 2]])
assert torch.allclose(nn.CrossEntropyLoss()(a, padded), dropped)

right = nn.CrossEntropyLoss()(y_hat, t_right)
twice = nn.CrossEntropyLoss()(y_hat.softmax(dim=1), t_right)
assert right < 0.01 and twice > 0.5
# lowest possible loss after a double softmax, C = 3
floor = math.log(1 + 2 / math.e)
assert twice >= floor > 0.55
# a confidently wrong prediction: the double softmax nearly kills the gradient
y_bad = torch.tensor([[0.0, 8.0, 0.0]], requires_grad=True)
right_grad = torch.autograd.grad(nn.CrossEntropyLoss()(y_bad, t_bad), y_bad)[0]
twice_loss = nn.CrossEntropyLoss()(y_bad.softmax(dim=1), t_bad)
twice_grad = torch.autograd.grad(twice_loss, y_bad)[0]
assert right_grad.abs().max() > 0.9 and twice_grad.abs().max() < 0.01

try:
    nn.CrossEntropyLoss()(a, float_target)
except RuntimeError as error:
    assert "expected target dtype to be Long" in str(error) \
        and "got Float" in str(error)
else:
    raise AssertionError("CrossEntropyLoss accepted float class indices")

# %% one-hot-labels
y = F.one_hot(target, num_classes=3)  # labels stored as one-hot rows
print(y.dtype, y.shape)  # (N, C) instead of (N,)
soft = nn.CrossEntropyLoss()(a, y.float())  # float: read as probabilities
hard = nn.CrossEntropyLoss()(a, target)  # class indices
print(round(soft.item(), 4), round(hard.item(), 4))  # the same loss

# %% one-hot-labels-checks tags=["remove-cell"]
assert y.dtype == torch.int64 and y.shape == (3, 3)
assert torch.allclose(soft, hard)

# %% one-hot-long raises="RuntimeError: Expected floating point type for target with class probabilities, got Long"
nn.CrossEntropyLoss()(a, y)  # int64 one-hot rows

# %% one-hot-nll raises="RuntimeError: 0D or 1D target tensor expected, multi-target not supported"
nn.NLLLoss()(log_prob, y.float())  # NLLLoss takes no probabilities

# %% one-hot-fix
labels = y.argmax(dim=1)  # one-hot rows back to class indices
print(labels)
print(round(nn.NLLLoss()(log_prob, labels).item(), 4))
print(round(nn.CrossEntropyLoss()(a, labels).item(), 4))

# %% one-hot-fix-checks tags=["remove-cell"]
assert torch.equal(labels, target) and labels.dtype == torch.int64
assert torch.allclose(
    nn.NLLLoss()(log_prob, labels), nn.CrossEntropyLoss()(a, labels)
)
assert torch.equal(
    nn.CrossEntropyLoss()(a, labels), nn.CrossEntropyLoss()(a, target)
)
for one_hot_target in (y, y.float()):  # F.nll_loss refuses both, as NLLLoss
    try:
        F.nll_loss(log_prob, one_hot_target)
    except RuntimeError as error:
        assert "multi-target not supported" in str(error)
    else:
        raise AssertionError("F.nll_loss accepted a one-hot target")

# %% mask-channel raises="RuntimeError: only batches of spatial targets supported (3D tensors) but got targets of dimension: 4"
torch.manual_seed(0)
logits = torch.randn(2, 3, 4, 4)  # (N, C, H, W): 3 classes per pixel
mask = torch.randint(0, 3, (2, 1, 4, 4))  # class ids, with a channel dimension
nn.CrossEntropyLoss()(logits, mask)

# %% mask-channel-fix
mask = mask.squeeze(1)  # (N, H, W): one class id per pixel
print(tuple(logits.shape), tuple(mask.shape), mask.dtype)
print(round(nn.CrossEntropyLoss()(logits, mask).item(), 4))

# %% mask-channel-fix-checks tags=["remove-cell"]
assert mask.shape == (2, 4, 4) and mask.dtype == torch.int64
per_pixel = -F.log_softmax(logits, dim=1).gather(1, mask[:, None]).squeeze(1)
assert torch.allclose(nn.CrossEntropyLoss()(logits, mask), per_pixel.mean())
try:  # NLLLoss checks the same
    nn.NLLLoss()(F.log_softmax(logits, dim=1), mask[:, None])
except RuntimeError as error:
    assert "only batches of spatial targets supported (3D tensors)" in str(error)
else:
    raise AssertionError("NLLLoss took a 4-D target")

# %% sequence-target raises="RuntimeError: Expected target size [2, 7], got [2, 5]"
torch.manual_seed(0)
# (batch, seq_len, vocab): a sequence model's output
logits = torch.randn(2, 5, 7)
target = torch.randint(0, 7, (2, 5))  # (batch, seq_len): one token id per step
nn.CrossEntropyLoss()(logits, target)

# %% sequence-target-fix
# the classes go in dimension 1: (batch, vocab, seq_len)
loss = nn.CrossEntropyLoss()(logits.transpose(1, 2), target)
# or one row per token: (batch * seq_len, vocab) against (batch * seq_len,)
flat = nn.CrossEntropyLoss()(logits.reshape(-1, 7), target.reshape(-1))
print(round(loss.item(), 4), round(flat.item(), 4))

# %% sequence-target-fix-checks tags=["remove-cell"]
assert torch.allclose(loss, flat)
by_hand = -F.log_softmax(logits, dim=-1).gather(-1, target[..., None]).mean()
assert torch.allclose(loss, by_hand)

# %% sequence-silent
# seq_len equal to the number of classes: no error, and a wrong loss
square = torch.randn(2, 7, 7)  # (batch, seq_len=7, vocab=7)
steps = torch.randint(0, 7, (2, 7))
wrong = nn.CrossEntropyLoss()(square, steps)  # reads the steps as the classes
right = nn.CrossEntropyLoss()(square.transpose(1, 2), steps)
print(round(wrong.item(), 4), round(right.item(), 4))

# %% sequence-silent-checks tags=["remove-cell"]
assert not torch.allclose(wrong, right)
by_hand = -F.log_softmax(square, dim=-1).gather(-1, steps[..., None]).mean()
assert torch.allclose(right, by_hand)
