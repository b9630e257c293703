# %% [markdown]
# softmax(x, dim) makes the values sum to 1 along dim,
# separately for every index of the other dimensions

# %% [markdown] lang="zh"
# `softmax(x, dim)` 让数值沿 `dim` 维加起来等于 1，
# 对其他维度的每个索引位置分别计算

# %% along-dim
import torch
import torch.nn.functional as F

logits = torch.randn(10, 10, 2, requires_grad=True)
alpha = F.softmax(logits, dim=0)
print(alpha[:, 1, 1])
print(alpha[:, 1, 1].sum())

# %% sums
print(alpha.sum(dim=0).shape)
print(alpha.sum(dim=0))
print(alpha.view(10, -1).sum(0))

# %% not-the-other-dims
print(alpha[0].sum())  # fix dim 0, sum over the other dims: not 1
print(alpha.sum(dim=(1, 2)))

# %% batch-classes
# (batch=2, classes=3)
scores = torch.tensor([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]])
probs = F.softmax(scores, dim=-1)
print(probs)
print(probs.sum(dim=-1))

# %% wrong-dim
# columns sum to 1: samples compete with each other
print(F.softmax(scores, dim=0))

# %% implicit-dim
print(F.softmax(scores))

# %% implicit-dim-3d
z = torch.randn(2, 3, 4)  # (batch, positions, classes)
implicit = F.softmax(z)
print(torch.allclose(implicit, F.softmax(z, dim=0)))
print(torch.allclose(implicit, F.softmax(z, dim=-1)))

# %% log-softmax
big = torch.tensor([[0.0, 100.0, 200.0]])
print(torch.log(F.softmax(big, dim=-1)))
print(F.log_softmax(big, dim=-1))

# %% naive-softmax
huge = torch.tensor([1000.0, 0.0])
print(huge.exp() / huge.exp().sum())
print(F.softmax(huge, dim=0))

# %% checks tags=["remove-cell"]
# What the page says, checked on every build
import warnings

ones = torch.ones(10, 2)
assert alpha[:, 1, 1].grad_fn.name() == "SelectBackward0"
assert torch.allclose(alpha.sum(dim=0), ones)
assert torch.allclose(alpha.view(10, -1).sum(0), torch.ones(20))
assert not torch.allclose(alpha.sum(dim=(1, 2)), torch.ones(10))
assert abs(alpha[0].sum().item() - 1) > 0.1
assert torch.allclose(probs.sum(dim=-1), torch.ones(2))
assert torch.allclose(probs[1], torch.full((3,), 1 / 3))
assert torch.allclose(F.softmax(scores, dim=1), probs)
wrong = F.softmax(scores, dim=0)
assert torch.allclose(wrong.sum(dim=0), torch.ones(3))
assert not torch.allclose(wrong.sum(dim=1), torch.ones(2))
# equal scores, unequal probabilities
assert wrong[1, 0] > wrong[1, 1] > wrong[1, 2]
target = torch.tensor([2, 0])
assert torch.allclose(
    F.cross_entropy(scores, target),
    F.nll_loss(F.log_softmax(scores, dim=-1), target)
)
for t, expected_dim in [
    (torch.tensor(2.0), 0),
    (torch.randn(5), 0),
    (scores, 1),
    (z, 0),
    (torch.randn(2, 3, 4, 5), 1),
]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = F.softmax(t)
    assert len(caught) == 1 and caught[0].category is UserWarning
    assert "Implicit dimension choice for softmax has been deprecated" in str(
        caught[0].message
    )
    assert torch.allclose(result, F.softmax(t, dim=expected_dim))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    torch.nn.Softmax()(scores)  # the module without dim warns as well
assert len(caught) == 1 \
    and "Implicit dimension choice" in str(caught[0].message)
assert not torch.allclose(F.softmax(z, dim=0), F.softmax(z, dim=-1))
for call in (lambda: torch.softmax(scores), lambda: scores.softmax()):
    try:
        call()
    except TypeError as error:
        assert "dim" in str(error)
    else:
        raise AssertionError("torch.softmax without dim should fail")
assert torch.equal(torch.softmax(scores, -1), probs) and torch.equal(
    scores.softmax(-1), probs
)
naive_log = torch.log(F.softmax(big, dim=-1))
assert torch.isinf(naive_log[0, 0]) and naive_log[0, 0] < 0
assert torch.allclose(
    F.log_softmax(big, dim=-1), torch.tensor([[-200.0, -100.0, 0.0]])
)
assert naive_log[0, 1] != -100.0
assert torch.isinf(huge.exp()[0])
assert torch.isnan(huge.exp() / huge.exp().sum()).any()
assert torch.equal(F.softmax(huge, dim=0), torch.tensor([1.0, 0.0]))
