# %% [markdown]
# F.kl_div(input, target) computes KL(target || input) with input given as
# log-probabilities; reduction="batchmean" is the one that matches the math

# %% [markdown] lang="zh"
# `F.kl_div(input, target)` 计算的是 KL(target || input)，其中 `input`
# 要以对数概率的形式给出；只有 `reduction="batchmean"` 与数学定义一致

# %% setup
import torch
import torch.nn as nn
import torch.nn.functional as F

p = torch.tensor([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]])  # 2 samples, 3 classes
q = torch.tensor([[0.6, 0.3, 0.1], [0.2, 0.4, 0.4]])

# %% argument-order
# D(p || q) by hand, summed over the batch
kl_pq = (p * (p.log() - q.log())).sum()
print(kl_pq)
print(F.kl_div(q.log(), p, reduction="sum"))  # D(p || q): q.log() first
print(F.kl_div(p.log(), q, reduction="sum"))  # D(q || p): a different number

# %% from-logits
logits = torch.randn(2, 3)  # a model's output for the two samples
q_log = F.log_softmax(logits, dim=1)
print(F.kl_div(q_log, p, reduction="sum"))
print((p * (p.log() - q_log)).sum())

# %% batchmean
per_sample = (p * (p.log() - q.log())).sum(dim=1)
print(per_sample, per_sample.mean())
print(F.kl_div(q.log(), p, reduction="batchmean"))

# %% mean-warning
print(F.kl_div(q.log(), p))  # reduction="mean" is the default
print(kl_pq / p.numel())

# %% log-target
print(F.kl_div(q.log(), p.log(), reduction="batchmean", log_target=True))

# %% size-average-warning
criterion = nn.KLDivLoss(size_average=False)
print(criterion.reduction)

# %% reduction-sum
criterion = nn.KLDivLoss(reduction="sum")
print(criterion(q.log(), p))

# %% checks tags=["remove-cell"]
# What the page says, checked on every build
import warnings

assert torch.allclose(F.kl_div(q.log(), p, reduction="sum"), kl_pq)
kl_qp = (q * (q.log() - p.log())).sum()
assert torch.allclose(F.kl_div(p.log(), q, reduction="sum"), kl_qp)
assert abs(kl_pq - kl_qp) > 0.1  # the order matters
assert torch.allclose(
    F.kl_div(q_log, p, reduction="sum"), (p * (p.log() - q_log)).sum()
)

assert torch.allclose(
    F.kl_div(q.log(), p, reduction="batchmean"), per_sample.mean()
)
assert torch.allclose(
    F.kl_div(q.log(), p, reduction="batchmean"), kl_pq / p.shape[0]
)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    mean = F.kl_div(q.log(), p)
    mean_module = nn.KLDivLoss()(q.log(), p)
assert torch.allclose(mean, kl_pq / p.numel()) \
    and torch.allclose(mean_module, mean)
assert not torch.allclose(mean, per_sample.mean())
assert len(caught) == 2
for w in caught:
    assert issubclass(w.category, UserWarning)
    assert "'batchmean' divides only by the batch size" in str(w.message)
assert torch.allclose(
    F.kl_div(q.log(), p.log(), reduction="batchmean", log_target=True),
    per_sample.mean()
)

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    legacy = nn.KLDivLoss(size_average=False)
assert len(caught) == 1 and issubclass(caught[0].category, UserWarning)
assert str(caught[0].message) == (
    "size_average and reduce args will be deprecated, "
    "please use reduction='sum' instead."
)
assert legacy.reduction == "sum"
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    fixed = nn.KLDivLoss(reduction="sum")
    value = fixed(q.log(), p)
assert caught == []  # no warning with reduction="sum"
assert torch.allclose(value, kl_pq) and torch.allclose(
    legacy(q.log(), p), value
)

# size_average / reduce are deprecated in every loss, with the same meaning
for loss_class in (
    nn.MSELoss, nn.NLLLoss, nn.CrossEntropyLoss, nn.BCELoss, nn.L1Loss
):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert loss_class(size_average=False).reduction == "sum"
        assert loss_class(reduce=False).reduction == "none"
    assert len(caught) == 2
    for w in caught:
        assert "will be deprecated, please use reduction=" in str(w.message)

# log_softmax stays finite where softmax(...).log() underflows to -inf
extreme = torch.tensor([[0.0, 200.0]])
assert torch.isinf(F.softmax(extreme, dim=1).log()).any()
assert torch.isfinite(F.log_softmax(extreme, dim=1)).all()

# %% distillation
def distillation_loss(student_logits, teacher_logits, labels, T=4.0, alpha=0.5):
    soft = F.kl_div(
        F.log_softmax(student_logits / T, dim=1),  # student: log-probabilities
        F.softmax(teacher_logits / T, dim=1),  # teacher: probabilities
        reduction="batchmean",
    ) * T**2  # keeps the soft term's gradients on the scale of T = 1
    hard = F.cross_entropy(student_logits, labels)  # the true labels, at T = 1
    return alpha * soft + (1 - alpha) * hard


torch.manual_seed(0)
student_logits = torch.randn(8, 10, requires_grad=True)
teacher_logits = torch.randn(8, 10)  # from the teacher, under no_grad
labels = torch.randint(0, 10, (8,))
loss = distillation_loss(student_logits, teacher_logits, labels)
loss.backward()
print(loss)

# %% distillation-checks tags=["remove-cell"]
T, alpha = 4.0, 0.5
soft_by_hand = (
    F.softmax(teacher_logits / T, dim=1)
    * (
        F.log_softmax(teacher_logits / T, dim=1)
        - F.log_softmax(student_logits / T, dim=1)
    )
).sum(dim=1).mean() * T**2
hard = F.cross_entropy(student_logits, labels)
assert torch.allclose(loss, alpha * soft_by_hand + (1 - alpha) * hard)
assert student_logits.grad is not None and teacher_logits.grad is None
# alpha = 1 is the soft term alone, alpha = 0 plain cross-entropy
assert torch.allclose(
    distillation_loss(student_logits, teacher_logits, labels, alpha=0.0), hard
)
assert torch.allclose(
    distillation_loss(student_logits, teacher_logits, labels, alpha=1.0),
    soft_by_hand,
)

# %% distillation-temperature
def soft_grad_norm(T):
    student_logits.grad = None
    F.kl_div(
        F.log_softmax(student_logits / T, dim=1),
        F.softmax(teacher_logits / T, dim=1),
        reduction="batchmean",
    ).backward()
    return student_logits.grad.norm().item()


for T in (1.0, 2.0, 4.0, 8.0):
    norm = soft_grad_norm(T)
    print(f"T={T:g}  gradient norm {norm:.4f}  times T**2 {norm * T**2:.4f}")

# %% distillation-temperature-checks tags=["remove-cell"]
# doubling T divides the gradient by about 4, and T**2 undoes it
norms = {T: soft_grad_norm(T) for T in (1.0, 2.0, 4.0, 8.0, 16.0)}
assert abs(norms[4.0] / norms[8.0] / 4 - 1) < 0.05
assert abs(norms[8.0] / norms[16.0] / 4 - 1) < 0.02
scaled = [norms[T] * T**2 for T in norms]
assert max(scaled) / min(scaled) < 1.15
assert norms[1.0] / norms[8.0] > 50  # unscaled, the soft term all but vanishes

# %% distillation-log-target
log_teacher = F.log_softmax(teacher_logits / 4.0, dim=1)
log_student = F.log_softmax(student_logits / 4.0, dim=1)
with_probs = F.kl_div(log_student, log_teacher.exp(), reduction="batchmean")
with_logs = F.kl_div(
    log_student, log_teacher, reduction="batchmean", log_target=True
)
print(with_probs, with_logs)

# %% distillation-log-target-checks tags=["remove-cell"]
assert torch.allclose(with_probs, with_logs)
assert torch.allclose(
    with_logs * 16.0,
    distillation_loss(student_logits, teacher_logits, labels, alpha=1.0),
)
