# %% [markdown]
# Fine-tuning: replace the head, freeze the backbone with
# requires_grad_(False), keep its BatchNorm in eval mode, then unfreeze
# with its own learning rate in a second parameter group

# %% [markdown] lang="zh"
# 微调：替换分类头，用 `requires_grad_(False)` 冻结主干网络，让其中的
# BatchNorm 保持 eval 模式；解冻时把主干放进第二个参数组，单独设学习率

# %% setup
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, classes):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU()
        )
        self.head = nn.Linear(8, classes)

    def forward(self, x):
        return self.head(self.backbone(x))


pretrained = Net(classes=10)  # stands for a model trained on another task
model = Net(classes=10)
model.load_state_dict(pretrained.state_dict())
model.head = nn.Linear(8, 3)  # a new head for 3 classes, freshly initialized
print(model.head)

# %% setup-checks tags=["remove-cell"]
# the backbone keeps the pretrained weights, the head does not
assert torch.equal(model.backbone[0].weight, pretrained.backbone[0].weight)
assert model.head.weight.shape == (3, 8)
assert model.head.weight.requires_grad  # a new layer is trainable
assert set(model.state_dict()) == set(pretrained.state_dict())  # same keys
try:  # loading after the replacement: the old head does not fit
    model.load_state_dict(pretrained.state_dict())
except RuntimeError as error:
    assert "size mismatch for head.weight" in str(error)
else:
    raise AssertionError("a 10-class head should not load into a 3-class one")

# %% freeze
model.backbone.requires_grad_(False)
trainable = [p for p in model.parameters() if p.requires_grad]
optimizer = torch.optim.SGD(trainable, lr=0.1)
for name, p in model.named_parameters():
    print(name, p.requires_grad)

# %% freeze-checks tags=["remove-cell"]
assert trainable == [model.head.weight, model.head.bias]
assert not any(p.requires_grad for p in model.backbone.parameters())

# %% step
x = torch.randn(16, 4)
y = torch.randint(0, 3, (16,))
before = {k: v.clone() for k, v in model.state_dict().items()}

model.train()
loss = nn.functional.cross_entropy(model(x), y)
optimizer.zero_grad()
loss.backward()
optimizer.step()

after = model.state_dict()
for key in before:
    print(f"{key:30} changed: {not torch.equal(before[key], after[key])}")

# %% step-checks tags=["remove-cell"]
changed = {k for k in before if not torch.equal(before[k], after[k])}
# the frozen weights stayed, but BatchNorm's running statistics moved
assert changed == {
    "backbone.1.running_mean", "backbone.1.running_var",
    "backbone.1.num_batches_tracked", "head.weight", "head.bias",
}
assert model.backbone[0].weight.grad is None  # frozen: no gradient at all
assert model.backbone[1].weight.grad is None
# so the frozen backbone's eval-mode output changed, its weights did not
trained = {k: v.clone() for k, v in model.state_dict().items()}
model.eval()
now = model.backbone(x)
model.load_state_dict(before)
assert not torch.allclose(now, model.backbone(x))
model.load_state_dict(trained)  # back to the state after the step
model.train()

# %% bn-eval
def train_mode(model):
    model.train()  # recursive: puts the backbone back in train mode too
    model.backbone.eval()  # BatchNorm uses and keeps its running stats


train_mode(model)
stats = model.backbone[1].running_mean.clone()
loss = nn.functional.cross_entropy(model(x), y)
print(model.training, model.backbone.training)
print(torch.equal(stats, model.backbone[1].running_mean))

# %% bn-eval-checks tags=["remove-cell"]
assert model.training and model.head.training
assert not model.backbone[1].training
assert torch.equal(stats, model.backbone[1].running_mean)  # not updated
# and a plain model.train() undoes it
model.train()
assert model.backbone[1].training
model(x)
assert not torch.equal(stats, model.backbone[1].running_mean)
train_mode(model)

# %% forgot-optimizer
model.backbone.requires_grad_(True)  # unfreeze, but the optimizer only
weight = model.backbone[0].weight.clone()  # knows the head's parameters
loss = nn.functional.cross_entropy(model(x), y)
optimizer.zero_grad()
loss.backward()
optimizer.step()
print(model.backbone[0].weight.grad.abs().sum() > 0)
print(torch.equal(weight, model.backbone[0].weight))

# %% forgot-optimizer-checks tags=["remove-cell"]
assert model.backbone[0].weight.grad.abs().sum() > 0  # it has a gradient
assert torch.equal(weight, model.backbone[0].weight)  # and never moves

# %% groups
optimizer.add_param_group(
    {"params": model.backbone.parameters(), "lr": 0.001}
)
for group in optimizer.param_groups:
    print(len(group["params"]), group["lr"])

weight = model.backbone[0].weight.clone()
head = model.head.weight.clone()
loss = nn.functional.cross_entropy(model(x), y)
optimizer.zero_grad()
loss.backward()
optimizer.step()

# %% groups-checks tags=["remove-cell"]
assert [g["lr"] for g in optimizer.param_groups] == [0.1, 0.001]
assert len(optimizer.param_groups[1]["params"]) == 4  # weight and bias x 2
# plain SGD: each step is lr * grad, with its group's lr
step = weight - model.backbone[0].weight
assert torch.allclose(step, 0.001 * model.backbone[0].weight.grad, atol=1e-6)
step = head - model.head.weight
assert torch.allclose(step, 0.1 * model.head.weight.grad, atol=1e-6)

# %% from-start
model = Net(classes=3)
optimizer = torch.optim.SGD(
    [
        {"params": model.backbone.parameters(), "lr": 0.001},
        {"params": model.head.parameters()},  # takes the default below
    ],
    lr=0.1,
    momentum=0.9,
)
print([group["lr"] for group in optimizer.param_groups])

# %% from-start-checks tags=["remove-cell"]
assert [g["lr"] for g in optimizer.param_groups] == [0.001, 0.1]
assert all(g["momentum"] == 0.9 for g in optimizer.param_groups)
