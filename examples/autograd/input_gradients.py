# %% [markdown]
# The gradient of a model's output with respect to its input:
# requires_grad_() on the input, backward() of one class's score,
# torch.autograd.grad, and a whole batch at once

# %% [markdown] lang="zh"
# 模型输出对输入的梯度：对输入调用 `requires_grad_()`，对某个类别的分数
# 调用 `backward()`，`torch.autograd.grad`，以及一次算整个 batch

# %% saliency
import torch
import torch.nn.functional as F
from torch import nn

model = nn.Sequential(
    nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
    nn.Flatten(), nn.Linear(8 * 6 * 6, 5),
)
model.eval()
image = torch.rand(1, 3, 6, 6)  # one image, 5 classes

x = image.clone().requires_grad_()  # a leaf that records the graph
scores = model(x)  # shape (1, 5)
label = scores.argmax(dim=1).item()  # the predicted class
scores[0, label].backward()  # a scalar: one class's score
print(x.grad.shape)
saliency = x.grad.abs().amax(dim=1)  # the largest over the channels
print(saliency.shape)

# %% saliency-checks tags=["remove-cell"]
assert x.is_leaf and x.grad.shape == x.shape
assert saliency.shape == (1, 6, 6) and (saliency >= 0).all()
# the gradient is the derivative of that score: a small step along it
# raises the score by about the step times the squared norm
step = 1e-3
with torch.no_grad():
    raised = model(x + step * x.grad)[0, label] - scores[0, label]
assert torch.isclose(raised, step * x.grad.pow(2).sum(), rtol=0.05)
# the image itself is untouched: x is a copy
assert image.grad is None and not image.requires_grad
# backward() of all the scores at once needs a gradient argument
try:
    model(image.clone().requires_grad_()).backward()
except RuntimeError as error:
    assert "implicitly created only for scalar outputs" in str(error), error
else:
    raise AssertionError("backward() of a (1, 5) tensor ran")

# %% parameters-too
print(model.training)  # eval mode
print(model[0].weight.grad.shape)  # filled by the same backward()

# %% parameters-too-checks tags=["remove-cell"]
assert model[0].weight.grad is not None and model[4].weight.grad is not None
assert not model.training
first = model[0].weight.grad.clone()
scores_again = model(x)
scores_again[0, label].backward()
# a second backward adds to them: they accumulate until zero_grad()
assert torch.allclose(model[0].weight.grad, 2 * first)
model.zero_grad()

# %% autograd-grad
x = image.clone().requires_grad_()
scores = model(x)
(grad,) = torch.autograd.grad(scores[0, label], x)
print(grad.shape, x.grad, model[0].weight.grad)

# %% autograd-grad-checks tags=["remove-cell"]
assert x.grad is None and model[0].weight.grad is None
assert all(p.grad is None for p in model.parameters())
# the same gradient as backward() gave
x2 = image.clone().requires_grad_()
model(x2)[0, label].backward()
assert torch.allclose(grad, x2.grad)
model.zero_grad()

# %% frozen
model.requires_grad_(False)  # freeze: no parameter gradients at all
x = image.clone().requires_grad_()
model(x)[0, label].backward()
print(x.grad.shape, model[0].weight.grad)

# %% frozen-checks tags=["remove-cell"]
assert x.grad is not None and torch.allclose(x.grad, grad)
assert all(p.grad is None for p in model.parameters())

# %% batch
images = torch.rand(4, 3, 6, 6)
labels = torch.tensor([0, 3, 1, 4])
x = images.clone().requires_grad_()
scores = model(x)  # shape (4, 5)
picked = scores[torch.arange(4), labels]  # each image's own class
picked.sum().backward()
print(x.grad.shape)

# %% batch-checks tags=["remove-cell"]
# in eval mode each image only depends on itself: the sum's gradient
# is each image's gradient of its own score
one_by_one = []
for i in range(4):
    xi = images[i : i + 1].clone().requires_grad_()
    model(xi)[0, labels[i]].backward()
    one_by_one.append(xi.grad)
assert torch.allclose(x.grad, torch.cat(one_by_one), atol=1e-6)
# in train mode BatchNorm mixes the batch: image 0's score depends on
# the other images too, and the sum trick does not give it alone
model.train()
x_train = images.clone().requires_grad_()
(grad_train,) = torch.autograd.grad(model(x_train)[0, labels[0]], x_train)
assert grad_train[1:].abs().sum() > 0
model.eval()

# %% adversarial
x = image.clone().requires_grad_()
loss = F.cross_entropy(model(x), torch.tensor([label]))
loss.backward()
x_adv = (x + 0.05 * x.grad.sign()).detach()  # a step that raises the loss
with torch.no_grad():
    loss_adv = F.cross_entropy(model(x_adv), torch.tensor([label]))
print(loss_adv.item() > loss.item())

# %% adversarial-checks tags=["remove-cell"]
assert loss_adv > loss
assert (x_adv - image).abs().max() <= 0.05 + 1e-6
# the non-leaf pitfall: a tensor computed from x has no .grad of its own
import warnings

x = image.clone().requires_grad_()
normalised = (x - 0.5) / 0.5
model(normalised)[0, label].backward()
assert x.grad is not None
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    assert normalised.grad is None
assert any("not a leaf" in str(w.message) for w in caught)
