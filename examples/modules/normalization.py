# %% [markdown]
# BatchNorm with small batches: noisy batch statistics;
# GroupNorm, LayerNorm and InstanceNorm do not depend on the
# batch; num_groups, swapping BN for GN, frozen BatchNorm

# %% [markdown] lang="zh"
# 小 batch 下的 BatchNorm：batch 统计量噪声大；
# GroupNorm、LayerNorm 和 InstanceNorm 与 batch 无关；
# num_groups 的选法、把 BN 换成 GN、冻结 BatchNorm

# %% bn-noise
import torch
from torch import nn

torch.manual_seed(0)
bn = nn.BatchNorm1d(3, affine=False)  # train mode: the batch's statistics
sample = torch.tensor([[1.0, -0.5, 2.0]])  # data are N(0, 1): already normal
errors, outputs = {}, {}
for batch_size in (2, 4, 16, 64):
    outs = []
    for _ in range(200):  # the same sample among other random samples
        others = torch.randn(batch_size - 1, 3)
        outs.append(bn(torch.cat([sample, others]))[0])
    outputs[batch_size] = torch.stack(outs)
    errors[batch_size] = (outputs[batch_size] - sample).abs().mean().item()
    print(f"batch {batch_size:2d}: mean error of the sample's output "
          f"{errors[batch_size]:.3f}")
print(outputs[2][:3])  # batch of 2: -1 or +1, whatever the values

# %% bn-noise-checks tags=["remove-cell"]
e = [errors[b] for b in (2, 4, 16, 64)]
assert e == sorted(e, reverse=True) and e[0] > 4 * e[-1]
assert 0.6 < e[0] < 0.9 and 0.1 < e[-1] < 0.2
# with two samples each output is (a - b) / 2 / sqrt(((a - b) / 2)² + eps):
# ±1 unless a and b are within a few 1e-3 of each other
assert (outputs[2].abs() <= 1).all()
assert (outputs[2].abs() > 0.99).float().mean() > 0.95

# %% batch-independent
x = torch.randn(8, 4, 5, 5)
layers = {
    "BatchNorm2d(4)": nn.BatchNorm2d(4),
    "GroupNorm(2, 4)": nn.GroupNorm(2, 4),
    "LayerNorm([4, 5, 5])": nn.LayerNorm([4, 5, 5]),
    "InstanceNorm2d(4)": nn.InstanceNorm2d(4),
}
differences = {}
for name, layer in layers.items():
    batched = layer(x)  # train mode, a batch of 8
    alone = torch.cat([layer(x[i : i + 1]) for i in range(8)])  # batches of 1
    differences[name] = (batched - alone).abs().max().item()
    print(f"{name:21s} max difference {differences[name]:.1e}")

# %% batch-independent-checks tags=["remove-cell"]
assert differences["BatchNorm2d(4)"] > 0.1
assert not layers["InstanceNorm2d(4)"].track_running_stats
for name in list(layers)[1:]:
    assert differences[name] < 1e-5, name
    # the same in eval mode: no running statistics
    layer = layers[name]
    assert not list(layer.buffers())
    train_out = layer(x)
    layer.eval()
    assert torch.allclose(layer(x), train_out)
    layer.train()

# %% over-what
def normalise(x, dims):  # no affine part
    mean = x.mean(dim=dims, keepdim=True)
    var = x.var(dim=dims, keepdim=True, unbiased=False)
    return (x - mean) / torch.sqrt(var + 1e-5)


n, c, h, w = x.shape
by_hand = {
    "BatchNorm2d": normalise(x, (0, 2, 3)),  # per channel, over the batch
    # per sample and group of 2 channels
    "GroupNorm(2, 4)": normalise(x.view(n, 2, -1), (2,)).view_as(x),
    "LayerNorm": normalise(x, (1, 2, 3)),  # per sample
    "InstanceNorm2d": normalise(x, (2, 3)),  # per sample and channel
}
for name, module in zip(by_hand, layers.values()):
    print(f"{name:16s}", torch.allclose(module(x), by_hand[name], atol=1e-5))
print("GroupNorm(1, 4) = LayerNorm:",
      torch.allclose(nn.GroupNorm(1, 4)(x), by_hand["LayerNorm"], atol=1e-5))
print("GroupNorm(4, 4) = InstanceNorm2d:", torch.allclose(
    nn.GroupNorm(4, 4)(x), by_hand["InstanceNorm2d"], atol=1e-5))

# %% over-what-checks tags=["remove-cell"]
for name, module in zip(by_hand, layers.values()):
    assert torch.allclose(module(x), by_hand[name], atol=1e-5), name
assert torch.allclose(nn.GroupNorm(1, 4)(x), by_hand["LayerNorm"], atol=1e-5)
assert torch.allclose(nn.GroupNorm(4, 4)(x), by_hand["InstanceNorm2d"],
                      atol=1e-5)
# the affine parts differ: per channel for GroupNorm, per element for LayerNorm
assert nn.GroupNorm(1, 4).weight.shape == (4,)
assert layers["LayerNorm([4, 5, 5])"].weight.shape == (4, 5, 5)
assert layers["InstanceNorm2d(4)"].weight is None  # affine=False by default

# %% num-groups raises="ValueError: num_channels … must be divisible by num_groups"
nn.GroupNorm(32, 48)

# %% num-groups-fix
def groups_for(channels, max_groups=32):
    # the largest number of groups up to 32 that divides the channels
    return max(g for g in range(1, max_groups + 1) if channels % g == 0)


for channels in (3, 16, 48, 64, 256):
    print(channels, groups_for(channels))

# %% num-groups-fix-checks tags=["remove-cell"]
assert [groups_for(c) for c in (3, 16, 48, 64, 256)] == [3, 16, 24, 32, 32]
for c in (3, 16, 48, 64, 256):
    nn.GroupNorm(groups_for(c), c)  # accepted

# %% swap
def bn_to_gn(module):
    for name, child in module.named_children():
        if isinstance(child, nn.BatchNorm2d):
            c = child.num_features
            gn = nn.GroupNorm(groups_for(c), c, eps=child.eps)
            with torch.no_grad():  # keep the learned scale and shift
                gn.weight.copy_(child.weight)
                gn.bias.copy_(child.bias)
            setattr(module, name, gn)
        else:
            bn_to_gn(child)  # into nested blocks
    return module


model = nn.Sequential(
    nn.Conv2d(3, 48, 3, padding=1), nn.BatchNorm2d(48), nn.ReLU(),
    nn.Sequential(nn.Conv2d(48, 64, 3), nn.BatchNorm2d(64), nn.ReLU()),
)
images = torch.randn(4, 3, 8, 8)
model.eval()
before = model(images)
bn_to_gn(model).train()
print(model)
after = model(images)
print(model(images[:1]).shape)  # a batch of 1 in train mode

# %% swap-checks tags=["remove-cell"]
assert not any(isinstance(m, nn.BatchNorm2d) for m in model.modules())
assert [m.num_groups for m in model.modules()
        if isinstance(m, nn.GroupNorm)] == [24, 32]
assert torch.allclose(model(images[:1]), after[:1], atol=1e-5)
# the swapped model computes something else: it must be trained again
assert not torch.allclose(before, after, atol=1e-2)

# %% frozen-bn
def freeze_bn(model):  # call it after every model.train()
    for m in model.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            m.eval()  # normalise with the running statistics
            m.requires_grad_(False)  # and keep weight and bias fixed
    return model


model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 1))
model[1].running_mean.fill_(0.5)  # as if loaded from a checkpoint
saved_mean = model[1].running_mean.clone()
model.train()
freeze_bn(model)
x = torch.randn(6, 3)
print(model(x[:1]))  # a batch of 1 in train mode
print(model[1].training, model[1].running_mean)

# %% frozen-bn-checks tags=["remove-cell"]
assert torch.equal(model[1].running_mean, saved_mean)
assert model.training and not model[1].training
assert not model[1].weight.requires_grad and model[0].weight.requires_grad
assert torch.allclose(model(x)[:1], model(x[:1]), atol=1e-6)

# %% accumulation
def grad_difference(norm_layer):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), norm_layer, nn.Linear(4, 1))
    x, y = torch.randn(8, 3), torch.randn(8, 1)
    loss_fn = nn.MSELoss()
    loss_fn(model(x), y).backward()  # one batch of 8
    full = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    for xb, yb in zip(x.split(2), y.split(2)):  # 4 accumulated batches of 2
        (loss_fn(model(xb), yb) / 4).backward()
    diffs = [(p.grad - g).norm() / g.norm() for p, g in
             zip(model.parameters(), full)]
    return max(diffs).item()


accumulated = {
    "BatchNorm1d": grad_difference(nn.BatchNorm1d(4)),
    "LayerNorm": grad_difference(nn.LayerNorm(4)),
}
for name, diff in accumulated.items():
    print(f"{name:11s} largest relative difference of a gradient {diff:.1e}")

# %% accumulation-checks tags=["remove-cell"]
assert accumulated["BatchNorm1d"] > 0.1
assert accumulated["LayerNorm"] < 1e-5
