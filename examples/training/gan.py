# %% [markdown]
# A GAN whose discriminator wins: the saturating generator
# loss's vanishing gradient against the non-saturating loss,
# label smoothing, instance noise, and detach() in the D step

# %% [markdown] lang="zh"
# 判别器完胜的 GAN：饱和的生成器损失梯度消失，
# 非饱和损失不会；标签平滑、实例噪声，
# 以及判别器那一步里的 `detach()`

# %% setup
import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(0)


def real_batch(n=64):
    return 4 + 0.5 * torch.randn(n, 1)  # the data: N(4, 0.5²)


def bce(logits, target):
    return F.binary_cross_entropy_with_logits(
        logits, torch.full_like(logits, target)
    )


def d_loss(discriminator, real, fake, real_target=1.0):
    loss_real = bce(discriminator(real), real_target)
    return loss_real + bce(discriminator(fake), 0.0)


def g_loss(logits, kind):
    if kind == "saturating":  # minimise log(1 - D(G(z)))
        return -bce(logits, 0.0)
    return bce(logits, 1.0)  # non-saturating: minimise -log D(G(z))


def g_grad_norm(generator, discriminator, z, kind):
    generator.zero_grad()
    g_loss(discriminator(generator(z)), kind).backward()
    grads = [p.grad.flatten() for p in generator.parameters()]
    return torch.cat(grads).norm().item()


generator = nn.Linear(1, 1)  # z -> a fake sample
discriminator = nn.Sequential(nn.Linear(1, 16), nn.ReLU(), nn.Linear(16, 1))
z = torch.randn(64, 1)
print(generator(z).mean().item())  # the fakes start far from 4

# %% setup-checks tags=["remove-cell"]
# the gradients with respect to D's logits: -D(G(z)) and -(1 - D(G(z)))
logits = torch.tensor([-8.0, -2.0, 0.0, 3.0], requires_grad=True)
for kind, expected in (("saturating", -torch.sigmoid(logits)),
                       ("non-saturating", -(1 - torch.sigmoid(logits)))):
    (grad,) = torch.autograd.grad(g_loss(logits, kind), logits)
    assert torch.allclose(grad * len(logits), expected.detach(), atol=1e-6)

# %% d-wins
optimizer_d = torch.optim.Adam(discriminator.parameters(), lr=1e-2)
table = {}
for step in range(201):
    if step in (0, 25, 50, 100, 200):
        with torch.no_grad():
            loss = d_loss(discriminator, real_batch(), generator(z)).item()
            d_fake = torch.sigmoid(discriminator(generator(z))).mean().item()
        sat = g_grad_norm(generator, discriminator, z, "saturating")
        non_sat = g_grad_norm(generator, discriminator, z, "non-saturating")
        table[step] = (loss, d_fake, sat, non_sat)
        print(f"step {step:3d}  D loss {loss:.4f}  D(fake) {d_fake:.1e}  "
              f"|grad G| saturating {sat:.1e}  non-saturating {non_sat:.2f}")
    fake = generator(torch.randn(64, 1)).detach()
    loss = d_loss(discriminator, real_batch(), fake)
    optimizer_d.zero_grad()
    loss.backward()
    optimizer_d.step()

# %% d-wins-checks tags=["remove-cell"]
loss_0, d_fake_0, sat_0, non_sat_0 = table[0]
loss_end, d_fake_end, sat_end, non_sat_end = table[200]
assert 1.2 < loss_0 < 1.6 and loss_end < 0.05  # D wins
assert abs(2 * torch.log(torch.tensor(2.0)).item() - 1.386) < 1e-3
assert d_fake_end < 0.02
# the saturating gradient shrinks as D wins, the other one grows
assert max(v[2] for v in table.values()) > sat_0  # first grows
assert sat_end < max(v[2] for v in table.values()) / 10
non_sat = [v[3] for v in table.values()]
assert non_sat == sorted(non_sat) and non_sat_end > 3 * non_sat_0
assert non_sat_end / sat_end > 100

# %% g-steps
import copy

discriminator.requires_grad_(False)  # D stays as it is: it has won
moved = {}
for kind in ("saturating", "non-saturating"):
    for name, make in (("SGD", torch.optim.SGD), ("Adam", torch.optim.Adam)):
        g = copy.deepcopy(generator)
        optimizer_g = make(g.parameters(), lr=0.05)
        for _ in range(20):
            loss = g_loss(discriminator(g(z)), kind)
            optimizer_g.zero_grad()
            loss.backward()
            optimizer_g.step()
        with torch.no_grad():
            moved[kind, name] = (g(z).mean() - generator(z).mean()).item()
        print(f"{kind:14s} {name:4s}  mean of the fakes moved by "
              f"{moved[kind, name]:+.3f}")
discriminator.requires_grad_(True)

# %% g-steps-checks tags=["remove-cell"]
# SGD: the saturating loss hardly moves G, the non-saturating one does
assert abs(moved["saturating", "SGD"]) < 0.05
assert moved["non-saturating", "SGD"] > 1.0
assert moved["non-saturating", "SGD"] > 20 * abs(moved["saturating", "SGD"])
# Adam rescales the small gradient: both move, towards the data
# 20 steps of lr=0.05: about 1 with either loss
assert 0.7 < moved["saturating", "Adam"] < 1.3
assert 0.7 < moved["non-saturating", "Adam"] < 1.3

# %% no-detach
def grads(module):
    return torch.cat([p.grad.flatten() for p in module.parameters()])


generator.zero_grad(set_to_none=True)
fake = generator(z)
d_loss(discriminator, real_batch(), fake).backward()  # no detach()
from_d_step = grads(generator)
print("G's grad after the D step: ", from_d_step)

generator.zero_grad(set_to_none=True)
g_loss(discriminator(generator(z)), "non-saturating").backward()
own = grads(generator)
print("G's grad from its own loss:", own)

# %% no-detach-checks tags=["remove-cell"]
assert from_d_step.abs().sum() > 0
# the bias gradients point in opposite directions
assert from_d_step[1] * own[1] < 0

# %% detach
discriminator.zero_grad(set_to_none=True)
generator.zero_grad(set_to_none=True)
fake = generator(z)
d_loss(discriminator, real_batch(), fake.detach()).backward()
print(generator.weight.grad, discriminator[0].weight.grad.shape)

# %% detach-checks tags=["remove-cell"]
assert generator.weight.grad is None and generator.bias.grad is None
assert discriminator[0].weight.grad.abs().sum() > 0

# %% fixes
results = {}
for setting in ("plain", "label smoothing", "instance noise"):
    torch.manual_seed(1)
    d = nn.Sequential(nn.Linear(1, 16), nn.ReLU(), nn.Linear(16, 1))
    optimizer_d = torch.optim.Adam(d.parameters(), lr=1e-2)
    for step in range(200):
        real, fake = real_batch(), generator(torch.randn(64, 1)).detach()
        if setting == "instance noise":  # noise of the same size on both
            real = real + 1.5 * torch.randn_like(real)
            fake = fake + 1.5 * torch.randn_like(fake)
        target = 0.9 if setting == "label smoothing" else 1.0
        loss = d_loss(d, real, fake, real_target=target)
        optimizer_d.zero_grad()
        loss.backward()
        optimizer_d.step()
    with torch.no_grad():
        d_real = torch.sigmoid(d(real_batch())).mean().item()
        d_fake = torch.sigmoid(d(generator(z))).mean().item()
    sat = g_grad_norm(generator, d, z, "saturating")
    results[setting] = (d_real, d_fake, sat)
    print(f"{setting:15s}  D(real) {d_real:.3f}  D(fake) {d_fake:.1e}  "
          f"|grad G| saturating {sat:.1e}")

# %% fixes-checks tags=["remove-cell"]
plain, smooth, noise = (results[k] for k in
                        ("plain", "label smoothing", "instance noise"))
assert plain[0] > 0.98 and 0.85 < smooth[0] < 0.95  # D(real) capped near 0.9
# smoothing the real labels leaves D(fake) and the vanishing gradient alone
assert smooth[1] < 0.03 and smooth[2] < 2 * plain[2]
# noise keeps D less sure of the fakes: more gradient for G
assert noise[1] > 5 * plain[1] and noise[2] > 3 * plain[2]
