# %% [markdown]
# Autograd errors: backward twice, no graph, non-scalar outputs, in-place changes, non-leaf tensors

# %% setup
import torch
from torch import nn

# %% backward-twice tags=["raises-exception"]
w = torch.tensor([1.0, 2.0], requires_grad=True)
loss = (w * w).sum()  # mul saves w for its backward pass
loss.backward()
loss.backward()  # that saved w was freed by the first backward

# %% backward-twice-fix
w.grad = None
loss = (w * w).sum()
loss.backward(retain_graph=True)  # keep the saved tensors for a second pass
loss.backward()
print(w.grad)  # 2 * w, twice

# %% backward-twice-fix-checks tags=["remove-cell"]
assert torch.equal(w.grad, 2 * (2 * w.detach()))

# %% no-grad-fn tags=["raises-exception"]
model = nn.Linear(2, 1)
with torch.no_grad():  # e.g. an evaluation block around the training step
    loss = model(torch.ones(1, 2)).sum()
loss.backward()

# %% no-grad-fn-fix
loss = model(torch.ones(1, 2)).sum()  # computed with gradient tracking on
loss.backward()
print(loss.grad_fn is not None, model.weight.grad)

# %% no-grad-fn-fix-checks tags=["remove-cell"]
assert torch.equal(model.weight.grad, torch.ones(1, 2))

# %% scalar-outputs tags=["raises-exception"]
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x ** 2  # three outputs
y.backward()

# %% scalar-outputs-fix
y.sum().backward()  # one number to differentiate
print(x.grad)

# %% scalar-outputs-fix-checks tags=["remove-cell"]
assert torch.equal(x.grad, 2 * x.detach())
x.grad = None
(x ** 2).backward(gradient=torch.ones(3))  # the same, with the weights of each output given
assert torch.equal(x.grad, 2 * x.detach())

# %% inplace-saved tags=["raises-exception"]
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a.sigmoid()  # sigmoid saves its output for backward
b.mul_(2)  # and this changes it in place
b.sum().backward()

# %% inplace-saved-fix
b = a.sigmoid()
c = b * 2  # a new tensor: the saved one is untouched
c.sum().backward()
print(a.grad)

# %% inplace-saved-fix-checks tags=["remove-cell"]
s = torch.sigmoid(torch.tensor([1.0, 2.0]))
assert torch.allclose(a.grad, 2 * s * (1 - s))

# %% leaf-inplace tags=["raises-exception"]
weight = torch.ones(2, requires_grad=True)
weight -= 0.1 * torch.ones(2)  # an update outside torch.no_grad()

# %% leaf-inplace-fix
with torch.no_grad():
    weight -= 0.1 * torch.ones(2)
print(weight, weight.is_leaf)

# %% leaf-inplace-fix-checks tags=["remove-cell"]
assert weight.is_leaf and weight.requires_grad and torch.allclose(weight, torch.full((2,), 0.9))

# %% non-leaf tags=["raises-exception"]
weight = torch.randn(3, requires_grad=True).double()  # the conversion makes a non-leaf
torch.optim.SGD([weight], lr=0.1)

# %% non-leaf-fix
weight = torch.randn(3, dtype=torch.float64, requires_grad=True)  # create it as it should be
optimizer = torch.optim.SGD([weight], lr=0.1)
print(weight.is_leaf)

# %% non-leaf-fix-checks tags=["remove-cell"]
assert weight.is_leaf and torch.randn(3, requires_grad=True).double().grad_fn is not None
