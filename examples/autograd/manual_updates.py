# %% [markdown]
# Updating parameters by hand: in place, under torch.no_grad(),
# then reset .grad; the same steps torch.optim.SGD takes

# %% [markdown] lang="zh"
# 手动更新参数：在 `torch.no_grad()` 下原地更新，然后重置 `.grad`；
# 这正是 `torch.optim.SGD` 所执行的步骤

# %% defaults
import warnings

import torch

t = torch.ones(3)
print(t.requires_grad, t.grad)
w = torch.ones(3, requires_grad=True)
print(w.requires_grad, w.is_leaf, w.grad)

# %% defaults-checks tags=["remove-cell"]
# a new tensor does not require grad; .grad is None until a backward reaches it
assert not t.requires_grad and t.grad is None
assert w.requires_grad and w.is_leaf and w.grad is None

# %% zero-none tags=["raises-exception"]
w.grad.zero_()

# %% zero-none-checks tags=["remove-cell"]
try:
    w.grad.zero_()
except AttributeError as error:
    assert "'NoneType' object has no attribute 'zero_'" in str(error)
else:
    raise AssertionError("zero_() on a None grad should fail")

# %% grad-after-backward
(w * 2).sum().backward()
print(w.grad)
w.grad.zero_()
print(w.grad)
w.grad = None
print(w.grad)

# %% grad-after-backward-checks tags=["remove-cell"]
assert w.grad is None
(w * 2).sum().backward()
assert torch.equal(w.grad, torch.full((3,), 2.0))  # what the cell printed first
w.grad.zero_()
assert torch.equal(w.grad, torch.zeros(3))

# %% reassign
w = torch.ones(3, requires_grad=True)
(w * 2).sum().backward()
w = w - 0.1 * w.grad
print(w.is_leaf, w.grad_fn.name())

# %% reassign-checks tags=["remove-cell"]
# w = w - lr * grad: a new non-leaf tensor
assert not w.is_leaf and type(w.grad_fn).__name__ == "SubBackward0"

# %% reassign-zero tags=["raises-exception"]
w.grad.zero_()

# %% reassign-zero-checks tags=["remove-cell"]
# its .grad is None, reading it warns, zero_() fails
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        w.grad.zero_()
    except AttributeError as error:
        assert "'NoneType' object has no attribute 'zero_'" in str(error)
    else:
        raise AssertionError("zero_() on a non-leaf's grad should fail")
messages = [
    str(c.message) for c in caught if issubclass(c.category, UserWarning)
]
assert len(messages) == 1 \
    and "is not a leaf Tensor is being accessed" in messages[0]
# under no_grad the out-of-place update is
# no better: a new tensor that needs no grad
w = torch.ones(3, requires_grad=True)
(w * 2).sum().backward()
with torch.no_grad():
    w2 = w - 0.1 * w.grad
assert not w2.requires_grad and w2.grad is None

# %% inplace-outside tags=["raises-exception"]
w = torch.ones(3, requires_grad=True)
(w * 2).sum().backward()
w.sub_(0.1 * w.grad)

# %% inplace-outside-checks tags=["remove-cell"]
# sub_ and -= alike fail outside no_grad, and leave w untouched
for update in (lambda: w.sub_(0.1 * w.grad), lambda: w.__isub__(0.1 * w.grad)):
    try:
        update()
    except RuntimeError as error:
        message = \
            "a leaf Variable that requires grad is being used in an in-place"
        assert message in str(error)
    else:
        raise AssertionError("an in-place update outside no_grad should fail")
assert torch.equal(w, torch.ones(3))
ptr = w.data_ptr()

# %% inplace-no-grad
with torch.no_grad():
    w.sub_(0.1 * w.grad)
print(w, w.is_leaf)

# %% inplace-no-grad-checks tags=["remove-cell"]
assert w.is_leaf and w.requires_grad and w.grad_fn is None
assert w.data_ptr() == ptr  # the same tensor, new values
assert torch.allclose(w, torch.full((3,), 0.8))

# %% data
true_weight = torch.tensor([[2.0], [-3.0]])
true_bias = 1.0
x = torch.randn(100, 2)
y = x @ true_weight + true_bias + 0.1 * torch.randn(100, 1)
lr = 0.1

# %% note-code
weight = torch.zeros(2, 1, requires_grad=True)
bias = torch.zeros(1, requires_grad=True)
predict = torch.mm(x, weight) + bias.item()
loss = torch.sum(predict - y, dim=0)
loss.backward()
print(weight.grad.view(-1), bias.grad)

# %% note-code-checks tags=["remove-cell"]
# bias.item() cuts bias out of the graph
assert loss.shape == (1,)
assert weight.grad is not None and bias.grad is None

# %% note-bias-update tags=["raises-exception"]
with torch.no_grad():
    weight.sub_(weight.grad * lr)
    bias.sub_(bias.grad * lr)

# %% note-bias-update-checks tags=["remove-cell"]
try:
    bias.sub_(bias.grad * lr)
except TypeError as error:
    assert "unsupported operand type(s) for *: 'NoneType' and 'float'" \
        in str(error)
else:
    raise AssertionError("bias.grad * lr should fail when bias.grad is None")

# %% sum-loss
weight = torch.zeros(2, 1, requires_grad=True)
bias = torch.zeros(1, requires_grad=True)
for step in range(31):
    loss = torch.sum(x @ weight + bias - y, dim=0)
    loss.backward()
    with torch.no_grad():
        weight.sub_(weight.grad * lr)
        bias.sub_(bias.grad * lr)
        weight.grad.zero_()
        bias.grad.zero_()
    if step % 10 == 0:
        mse = ((x @ weight + bias - y) ** 2).mean()
        print(f"step {step:2d}  loss {loss.item():9.1f}  mse {mse.item():9.1f}")

# %% sum-loss-checks tags=["remove-cell"]
# sum(predict - label) keeps falling, far below zero, while the fit gets worse
assert loss.item() < -1000
assert mse.item() > 100 * (y**2).mean().item()  # far worse than predicting 0

# %% manual-loop
weight = torch.zeros(2, 1, requires_grad=True)
bias = torch.zeros(1, requires_grad=True)
losses = []
for step in range(50):
    loss = ((x @ weight + bias - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        weight.sub_(weight.grad * lr)
        bias.sub_(bias.grad * lr)
        weight.grad.zero_()
        bias.grad.zero_()
    losses.append(loss.item())
print(f"loss {losses[0]:.4f} -> {losses[-1]:.4f}")
print(weight, bias)

# %% manual-loop-checks tags=["remove-cell"]
# the loss falls at every step, parameters end close to the true ones
assert losses[-1] < 0.05 < 1 < losses[0]
assert all(b <= a + 1e-6 for a, b in zip(losses, losses[1:]))  # up to rounding
assert torch.allclose(weight, true_weight, atol=0.05)
assert abs(bias.item() - true_bias) < 0.05
assert weight.is_leaf and bias.is_leaf

# zeroing under no_grad matters once .grad
# itself is in a graph (create_graph=True)
with warnings.catch_warnings():
    # create_graph=True on a leaf warns of a ref cycle
    warnings.simplefilter("ignore")
    g = torch.ones(3, requires_grad=True)
    (g**3).sum().backward(create_graph=True)
    v = torch.ones(3, requires_grad=True)
    (v**3).sum().backward(create_graph=True)
assert g.grad.requires_grad and g.grad.grad_fn is not None
before = g.grad.grad_fn
g.grad.zero_()  # outside no_grad: recorded as one more operation
assert g.grad.grad_fn is not before \
    and g.grad.grad_fn.next_functions[0][0] is before
before = v.grad.grad_fn
with torch.no_grad():
    v.grad.zero_()  # not recorded
assert v.grad.grad_fn is before
v.grad = None  # what optimizers do by default
assert v.grad is None

# %% optimizer-loop
manual_weight, manual_bias = weight.detach().clone(), bias.detach().clone()

weight = torch.zeros(2, 1, requires_grad=True)
bias = torch.zeros(1, requires_grad=True)
optimizer = torch.optim.SGD([weight, bias], lr=lr)
for step in range(50):
    optimizer.zero_grad()
    loss = ((x @ weight + bias - y) ** 2).mean()
    loss.backward()
    optimizer.step()
print(weight, bias)
print(torch.allclose(weight, manual_weight), torch.allclose(bias, manual_bias))

# %% optimizer-loop-checks tags=["remove-cell"]
# the same parameters, updated in place on the
# same tensors; zero_grad() sets .grad to None
assert torch.allclose(weight, manual_weight) \
    and torch.allclose(bias, manual_bias)
assert all(
    p is q for p, q in zip(optimizer.param_groups[0]["params"], (weight, bias))
)
assert weight.is_leaf and weight.grad_fn is None
assert not torch.equal(weight, torch.zeros(2, 1))
optimizer.zero_grad()
assert weight.grad is None and bias.grad is None
