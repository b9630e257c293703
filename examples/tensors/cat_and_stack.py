# %% [markdown]
# torch.cat joins tensors along a dimension they already have;
# torch.stack adds a new dimension and joins along it

# %% setup
import torch

x = torch.ones(2, 3)
y = torch.zeros(2, 3)

# %% cat
print(torch.cat([x, y], dim=0).shape)
print(torch.cat([x, y], dim=1).shape)
print(torch.cat([x, y], dim=0))

# %% stack
print(torch.stack([x, y, x], dim=0).shape)
print(torch.stack([x, y, x], dim=2).shape)

# %% stack-is-unsqueeze-then-cat
stacked = torch.stack([x, y], dim=1)
via_cat = torch.cat([x.unsqueeze(1), y.unsqueeze(1)], dim=1)
print(torch.equal(stacked, via_cat))

# %% cat-mismatch tags=["raises-exception"]
torch.cat([torch.ones(2, 3), torch.ones(2, 4)], dim=0)

# %% stack-mismatch tags=["raises-exception"]
torch.stack([torch.ones(2, 3), torch.ones(3, 3)])

# %% scalars-cat tags=["raises-exception"]
scalars = [torch.tensor(1), torch.tensor(2), torch.tensor(3)]
torch.cat(scalars)

# %% scalars-stack
print(torch.stack(scalars))

# %% vectors
vectors = [torch.tensor([1, 2]), torch.tensor([3, 4])]
print(torch.cat(vectors))
print(torch.stack(vectors))

# %% checks tags=["remove-cell"]
# What the page says, checked on every build
assert torch.cat([x, y], dim=0).shape == (4, 3)
assert torch.cat([x, y], dim=1).shape == (2, 6)
assert torch.stack([x, y, x], dim=0).shape == (3, 2, 3)
assert torch.stack([x, y, x], dim=2).shape == (2, 3, 3)
assert torch.equal(stacked, via_cat)
assert torch.stack(scalars).shape == (3,)
assert torch.cat(vectors).shape == (4,)
assert torch.stack(vectors).shape == (2, 2)
for bad in ([torch.ones(2, 3), torch.ones(2, 4)], scalars):
    try:
        torch.cat(bad)
    except RuntimeError:
        pass
    else:
        raise AssertionError("torch.cat accepted tensors the page says it rejects")
