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

# %% multinomial-overflow raises="RuntimeError: probability tensor contains either `inf`, `nan` or element < 0"
logits = torch.tensor([[9.0, 8.0, 1.0]])  # next-token scores
temperature = 0.1
weights = torch.exp(logits / temperature)  # exp(90.) overflows float32
probs = weights / weights.sum(dim=-1, keepdim=True)  # inf / inf is nan
print(weights)
print(probs)
torch.multinomial(probs, num_samples=1)

# %% multinomial-fix
probs = torch.softmax(logits / temperature, dim=-1)  # stable, sums to 1
print(probs)
print(torch.isfinite(probs).all())
token = torch.multinomial(probs, num_samples=1)
print(token.shape)

# the same distribution, kept as log-probabilities
dist = torch.distributions.Categorical(logits=logits / temperature)
print(f"log-probability of token 2: {dist.logits[0, 2].item():.1f}")
print(dist.sample().shape)

# %% multinomial-fix-checks tags=["remove-cell"]
message = "probability tensor contains either `inf`, `nan` or element < 0"


def multinomial_error(weights):
    try:
        torch.multinomial(weights, num_samples=1)
    except RuntimeError as error:
        return str(error)
    return None


# the three causes give the same message: inf, a nan, a negative weight
probs_nan = weights / weights.sum()
# exp overflows float32 above about 88
assert torch.isfinite(torch.exp(torch.tensor(88.0)))
assert torch.isinf(torch.exp(torch.tensor(89.0)))
assert torch.isinf(weights).any() and torch.isnan(probs_nan).any()
assert message in multinomial_error(weights)
assert message in multinomial_error(probs_nan)
assert message in multinomial_error(torch.tensor([0.5, float("nan"), 0.5]))
assert message in multinomial_error(logits - 5)  # logits are not weights
# all zeros is another error
assert "sum of probabilities <= 0" in multinomial_error(torch.zeros(1, 3))
# multinomial takes weights that need not sum to 1
assert multinomial_error(torch.tensor([[2.0, 6.0, 0.0]])) is None
# softmax subtracts the max first: finite, sums to 1
assert torch.isfinite(probs).all()
assert torch.allclose(probs.sum(dim=-1), torch.ones(1))
shifted = torch.exp(logits / temperature - (logits / temperature).max())
assert torch.allclose(probs, shifted / shifted.sum())
assert token.shape == (1, 1) and 0 <= token.item() < 3
# Categorical keeps log-probabilities: the last one is -80, not log(0)
assert torch.allclose(dist.logits, torch.log_softmax(logits / temperature, -1),
                      atol=1e-4)
assert abs(dist.logits[0, 2].item() + 80) < 1e-3
assert probs[0, 2] > 0 and torch.isfinite(dist.logits).all()
assert torch.allclose(dist.probs, probs)
assert dist.sample().shape == (1,)
# Categorical refuses nan and +inf logits when it checks its arguments
for bad in (float("nan"), float("inf")):
    try:
        torch.distributions.Categorical(logits=torch.tensor([bad, 1.0]))
    except ValueError:
        pass
    else:
        raise AssertionError("Categorical took a non-finite logit")
# -inf, the usual mask, is accepted: that token gets probability 0
masked = torch.distributions.Categorical(logits=torch.tensor([float("-inf"), 1.0]))
assert masked.probs.tolist() == [0.0, 1.0]
# softmax does not repair a nan from the model: check isfinite first
nan_logits = torch.tensor([[1.0, float("nan"), 2.0]])
assert torch.isnan(torch.softmax(nan_logits, dim=-1)).all()
assert not torch.isfinite(nan_logits).all()
# temperature 0 divides by zero: use argmax for greedy decoding
assert torch.isnan(torch.softmax(logits / 0, dim=-1)).all()
assert logits.argmax(dim=-1).item() == 0
# a lower temperature sharpens the distribution
assert torch.softmax(logits / 0.1, -1)[0, 0] > torch.softmax(logits, -1)[0, 0]
