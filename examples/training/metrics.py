# %% [markdown]
# Classification metrics with torch alone: a confusion matrix from one
# bincount, summed over batches; precision, recall and F1 per class from its
# diagonal, columns and rows; classes never predicted (0/0); macro, weighted
# and micro averages; a threshold on sigmoid outputs; multi-label F1

# %% [markdown] lang="zh"
# 只用 torch 计算分类指标：一次 `bincount` 得到混淆矩阵，逐 batch 相加；
# 由对角线、列和、行和得到每个类别的精确率、召回率和 F1；从未被预测的类别（0/0）；
# 宏平均、加权平均和微平均；对 sigmoid 输出取阈值；多标签的 F1

# %% confusion
import torch

num_classes = 3
target = torch.tensor([0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 2])  # true classes
pred = torch.tensor([0, 0, 0, 0, 1, 2, 1, 1, 0, 2, 1, 1])  # argmax of logits


def confusion_matrix(pred, target, num_classes):
    # each (true, predicted) pair gets its own bin: true * C + predicted
    counts = torch.bincount(
        target * num_classes + pred, minlength=num_classes * num_classes
    )
    return counts.view(num_classes, num_classes)  # rows: true, columns: pred


cm = confusion_matrix(pred, target, num_classes)
print(cm)

# %% confusion-checks tags=["remove-cell"]
assert cm.shape == (3, 3) and cm.dtype == torch.int64
for i in range(3):
    for j in range(3):
        assert cm[i, j] == ((target == i) & (pred == j)).sum()
assert cm.sum() == len(target)
assert cm.diag().sum() == (pred == target).sum() == 7
assert torch.equal(cm.sum(dim=1), torch.bincount(target))  # rows: true class
assert torch.equal(cm.sum(dim=0), torch.bincount(pred))  # columns: predicted
assert torch.equal(cm, torch.tensor([[4, 1, 1], [1, 2, 0], [0, 2, 1]]))

# %% evaluate
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

# scores whose argmax is pred, and a stand-in for a trained model
dataset = TensorDataset(F.one_hot(pred, num_classes).float(), target)
loader = DataLoader(dataset, batch_size=5)  # batches of 5, 5 and 2
model = nn.Identity()


@torch.no_grad()
def evaluate(model, loader, num_classes):
    model.eval()
    cm = torch.zeros(num_classes, num_classes, dtype=torch.long)
    for xb, yb in loader:
        preds = model(xb).argmax(dim=1)
        cm += confusion_matrix(preds, yb, num_classes)  # counts add up
    return cm


cm_batches = evaluate(model, loader, num_classes)
print(cm_batches)
print(torch.equal(cm_batches, cm))  # the same as the whole set at once

# %% evaluate-checks tags=["remove-cell"]
assert [len(yb) for _, yb in loader] == [5, 5, 2]
assert torch.equal(cm_batches, cm)
assert cm_batches.dtype == torch.int64

# %% no-minlength raises="RuntimeError: shape '[3, 3]' is invalid for input of size 8"
xb, yb = list(loader)[-1]  # the last batch: two samples of class 2
preds = model(xb).argmax(dim=1)
print(yb, preds)
torch.bincount(yb * num_classes + preds).view(num_classes, num_classes)

# %% no-minlength-checks tags=["remove-cell"]
assert torch.equal(yb, torch.tensor([2, 2])) and torch.equal(preds, torch.tensor([1, 1]))
assert len(torch.bincount(yb * num_classes + preds)) == 8  # the largest value is 7
# on the whole set the last bin (true 2, predicted 2) is not empty: it works there
assert torch.equal(torch.bincount(target * num_classes + pred).view(3, 3), cm)
# float labels (a BCE target) are refused: bincount counts integers
try:
    torch.bincount(torch.tensor([0.0, 1.0]))
except RuntimeError:
    pass
else:
    raise AssertionError("bincount took floats")
# nor negative ones, such as an ignore_index of -100: mask them out first
labels = torch.tensor([0, -100, 2])
try:
    torch.bincount(labels)
except RuntimeError:
    pass
else:
    raise AssertionError("bincount took a negative value")
keep = labels != -100
assert torch.equal(torch.bincount(labels[keep], minlength=3), torch.tensor([1, 0, 1]))

# %% per-class
def precision_recall_f1(cm):
    tp = cm.diag()  # right predictions of each class
    precision = tp / cm.sum(dim=0)  # / everything predicted as the class
    recall = tp / cm.sum(dim=1)  # / every sample of the class
    f1 = 2 * precision * recall / (precision + recall)
    return precision, recall, f1


precision, recall, f1 = precision_recall_f1(cm)
print("precision", precision)
print("recall   ", recall)
print("F1       ", f1)

# %% per-class-checks tags=["remove-cell"]
import math

assert precision.dtype == recall.dtype == f1.dtype == torch.float32
for c in range(3):
    tp = ((pred == c) & (target == c)).sum().item()
    fp = ((pred == c) & (target != c)).sum().item()
    fn = ((pred != c) & (target == c)).sum().item()
    assert math.isclose(precision[c].item(), tp / (tp + fp), rel_tol=1e-6)
    assert math.isclose(recall[c].item(), tp / (tp + fn), rel_tol=1e-6)
    assert math.isclose(f1[c].item(), 2 * tp / (2 * tp + fp + fn), rel_tol=1e-6)
assert torch.allclose(precision, torch.tensor([0.8, 0.4, 0.5]))
assert torch.allclose(recall, torch.tensor([4 / 6, 2 / 3, 1 / 3]))
# F1 is the harmonic mean: never above the larger of the two, and below
# their mean where they differ
assert (f1 <= torch.maximum(precision, recall) + 1e-6).all()
assert (f1 < (precision + recall) / 2).all()
# a batch's own metrics: the last batch has no class 0 or 1, and gives 0 / 0
p_b, r_b, _ = precision_recall_f1(confusion_matrix(preds, yb, 3))
assert p_b[0].isnan() and r_b[0].isnan() and r_b[1].isnan()  # no sample: recall 0 / 0

# %% averages
support = cm.sum(dim=1)  # samples of each true class
macro = f1.mean()  # every class counts the same
weighted = (f1 * support).sum() / support.sum()  # classes by their size
tp_all = cm.diag().sum()  # micro: pool the counts of all classes first
micro_precision = tp_all / cm.sum(dim=0).sum()
micro_recall = tp_all / cm.sum(dim=1).sum()
micro_f1 = 2 * micro_precision * micro_recall / (micro_precision + micro_recall)
accuracy = (pred == target).float().mean()
print(f"macro F1 {macro:.4f}, weighted F1 {weighted:.4f}")
print(f"micro precision {micro_precision:.4f}, micro recall {micro_recall:.4f}")
print(f"micro F1 {micro_f1:.4f}, accuracy {accuracy:.4f}")

# %% averages-checks tags=["remove-cell"]
assert torch.equal(support, torch.tensor([6, 3, 3]))
assert math.isclose(micro_precision.item(), 7 / 12, rel_tol=1e-6)
assert math.isclose(micro_recall.item(), 7 / 12, rel_tol=1e-6)
assert math.isclose(micro_f1.item(), accuracy.item(), rel_tol=1e-6)
# three different numbers: the small classes' low F1 weigh more in the macro mean
assert macro < micro_f1 and macro < weighted
assert (f1[1:] < f1[0]).all()  # the small classes have the lowest F1
fp_total = (cm.sum(dim=0) - cm.diag()).sum()
fn_total = (cm.sum(dim=1) - cm.diag()).sum()
assert fp_total == fn_total == len(target) - cm.diag().sum()
assert len({round(v.item(), 4) for v in (macro, weighted, micro_f1)}) == 3
# micro-F1 is accuracy whatever the predictions, for one label per sample
for seed in range(5):
    g = torch.Generator().manual_seed(seed)
    t = torch.randint(0, 4, (50,), generator=g)
    p = torch.randint(0, 4, (50,), generator=g)
    m = confusion_matrix(p, t, 4)
    assert m.sum(dim=0).sum() == m.sum(dim=1).sum() == 50  # each sample once
    assert math.isclose((m.diag().sum() / 50).item(), (p == t).float().mean().item())

# %% never-predicted
never = torch.tensor([0, 0, 0, 0, 1, 0, 1, 1, 0, 1, 1, 1])  # no class 2
cm_never = confusion_matrix(never, target, num_classes)
print(cm_never)
precision, recall, f1 = precision_recall_f1(cm_never)
print("precision", precision)  # class 2: 0 / 0
print("F1       ", f1, f1.mean())  # one nan makes the macro F1 nan

# %% never-predicted-checks tags=["remove-cell"]
assert cm_never[:, 2].sum() == 0 and cm_never[2].sum() == 3
assert precision[2].isnan() and not precision[:2].isnan().any()
assert recall[2] == 0 and not recall.isnan().any()
assert f1[2].isnan() and f1.mean().isnan()

# %% zero-division
tp = cm_never.diag()
predicted = cm_never.sum(dim=0)  # column sums
actual = cm_never.sum(dim=1)  # row sums
precision = tp / predicted.clamp(min=1)  # 0 where nothing was predicted
recall = tp / actual.clamp(min=1)  # 0 where the class has no sample
f1 = 2 * tp / (predicted + actual).clamp(min=1)  # 2TP / (2TP + FP + FN)
print("precision", precision)
print("F1       ", f1)
nan_f1 = precision_recall_f1(cm_never)[2]  # the F1 with its nan
print("nan_to_num", torch.nan_to_num(nan_f1, nan=0.0))  # the same F1
print(f"macro F1, class 2 as 0:     {f1.mean():.4f}")
print(f"macro F1, class 2 left out: {torch.nanmean(nan_f1):.4f}")

# %% zero-division-checks tags=["remove-cell"]
p_nan, r_nan, f_nan = precision_recall_f1(cm_never)
assert torch.equal(precision, torch.nan_to_num(p_nan, nan=0.0))
assert torch.equal(recall, torch.nan_to_num(r_nan, nan=0.0))
assert torch.allclose(f1, torch.nan_to_num(f_nan, nan=0.0))
assert precision[2] == 0 and f1[2] == 0
# leaving the class out is nanmean of the nan version
assert math.isclose(torch.nanmean(f_nan).item(), f1[:2].mean().item(), rel_tol=1e-6)
assert f1.mean() < f1[:2].mean()
# 2TP / (2TP + FP + FN) is the harmonic mean wherever that is defined
_, _, f_ok = precision_recall_f1(cm)
assert torch.allclose(f_ok, 2 * cm.diag() / (cm.sum(0) + cm.sum(1)))
# a class predicted and present but never right: precision and recall are
# both 0, 2PR / (P + R) is 0 / 0 again, and 2TP / (2TP + FP + FN) is 0
wrong = torch.tensor([[2, 1], [1, 0]])  # class 1: one sample, one prediction, no hit
p_w, r_w, f_w = precision_recall_f1(wrong)
assert p_w[1] == 0 and r_w[1] == 0 and f_w[1].isnan()
assert 2 * wrong.diag()[1] / (wrong.sum(0) + wrong.sum(1))[1] == 0

# %% binary
logits = torch.tensor([2.5, 1.2, 0.6, -0.2, -1.5,  # 5 positives
                       1.0, 0.3, -0.5, -1.0, -2.0, -2.5, -0.1])  # 7 negatives
target = torch.tensor([1.0] * 5 + [0.0] * 7)  # float, for BCEWithLogitsLoss
probs = torch.sigmoid(logits)
results = {}
for threshold in (0.3, 0.5, 0.7, 0.9):
    pred = (probs > threshold).long()
    tn, fp, fn, tp = confusion_matrix(pred, target.long(), 2).flatten().tolist()
    precision, recall = tp / (tp + fp), tp / (tp + fn)
    results[threshold] = (precision, recall)
    print(f"threshold {threshold}: TP {tp} FP {fp} FN {fn}  "
          f"precision {precision:.2f}  recall {recall:.2f}")

# %% binary-checks tags=["remove-cell"]
values = list(results.values())
assert [r for _, r in values] == sorted((r for _, r in values), reverse=True)
assert [p for p, _ in values] == sorted(p for p, _ in values)  # here it rises
assert values[0][1] > values[-1][1] and values[0][0] < values[-1][0]
assert torch.equal((probs > 0.5), logits > 0)
# the 2 x 2 matrix reads [[TN, FP], [FN, TP]]
m = confusion_matrix((probs > 0.5).long(), target.long(), 2)
y, p = target.bool(), probs > 0.5
assert m[0, 0] == (~y & ~p).sum() and m[0, 1] == (~y & p).sum()
assert m[1, 0] == (y & ~p).sum() and m[1, 1] == (y & p).sum()
# recall can only fall as the threshold rises; precision can fall too:
# a negative with a high score stays when the positives drop out
s = torch.tensor([0.6, 0.8])  # a positive at 0.6, a negative at 0.8
t = torch.tensor([1, 0])
prec = []
for th in (0.5, 0.7):
    q = (s > th).long()
    tn_, fp_, fn_, tp_ = confusion_matrix(q, t, 2).flatten().tolist()
    prec.append(tp_ / (tp_ + fp_))
assert prec == [0.5, 0.0]
# above every score nothing is predicted positive: precision is 0 / 0 again
assert (probs > 0.95).sum() == 0

# %% multi-label
# 6 samples, 4 labels; each label is a yes/no decision of its own
logits = torch.tensor([
    [2.0, -1.0, 0.5, -2.0],
    [1.5, 0.8, -1.0, -1.5],
    [-0.5, 1.2, 1.0, -2.0],
    [0.7, -0.3, -0.2, 0.4],
    [-1.0, 2.0, 0.9, -1.0],
    [1.1, -1.5, -0.8, -2.5],
])
targets = torch.tensor([
    [1, 0, 1, 0],
    [1, 1, 0, 0],
    [0, 1, 0, 0],
    [1, 0, 1, 1],
    [0, 1, 1, 0],
    [0, 0, 0, 0],
]).bool()
preds = torch.sigmoid(logits) > 0.5
tp = (preds & targets).sum(dim=0)  # per label: a column each
fp = (preds & ~targets).sum(dim=0)
fn = (~preds & targets).sum(dim=0)
f1 = 2 * tp / (2 * tp + fp + fn).clamp(min=1)
micro_f1 = 2 * tp.sum() / (2 * tp.sum() + fp.sum() + fn.sum())
print("TP", tp, "FP", fp, "FN", fn)
print("F1 per label", f1)
print(f"macro F1 {f1.mean():.4f}, micro F1 {micro_f1:.4f}")
print(f"right decisions {(preds == targets).float().mean():.4f}")

# %% multi-label-checks tags=["remove-cell"]
for j in range(4):  # each label is the binary case on its own column
    m = confusion_matrix(preds[:, j].long(), targets[:, j].long(), 2)
    tn_j, fp_j, fn_j, tp_j = m.flatten().tolist()
    assert (tp_j, fp_j, fn_j) == (tp[j], fp[j], fn[j])
    assert math.isclose(f1[j].item(), 2 * tp_j / (2 * tp_j + fp_j + fn_j), rel_tol=1e-6)
# micro-F1 leaves out the true negatives: it is not the share of right decisions
right = (preds == targets).float().mean()
assert not math.isclose(micro_f1.item(), right.item(), rel_tol=1e-3)
assert micro_f1 < right
assert not math.isclose(f1.mean().item(), micro_f1.item(), rel_tol=1e-3)
# a label neither present nor predicted: 0, not 0 / 0
empty = torch.zeros(3, dtype=torch.long)
assert (2 * empty / (2 * empty + empty + empty).clamp(min=1) == 0).all()
assert (2 * empty / (2 * empty + empty + empty)).isnan().all()
# counts summed over batches give the whole set's F1
sums = torch.zeros(3, 4, dtype=torch.long)
for pb, tb in zip(preds.split(4), targets.split(4)):
    sums += torch.stack([(pb & tb).sum(0), (pb & ~tb).sum(0), (~pb & tb).sum(0)])
assert torch.equal(sums, torch.stack([tp, fp, fn]))
