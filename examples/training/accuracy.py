# %% [markdown]
# Accuracy in an evaluation loop: argmax, compare, count the correct
# samples over the whole set (not a mean of batch accuracies);
# multi-label accuracy with a threshold, top-5 accuracy with topk

# %% [markdown] lang="zh"
# 在评估循环里计算准确率：`argmax`、比较、在整个数据集上累计预测正确的样本数
# （而不是对每个 batch 的准确率求平均）；多标签准确率用阈值，top-5 准确率用 `topk`

# %% data
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

# 100 samples, 3 classes; the inputs are scores that the model passes
# through, so that which predictions are right is known
labels = torch.arange(100) % 3
predicted = labels.clone()
predicted[3::4] = (labels[3::4] + 1) % 3  # every 4th sample wrong
predicted[96:] = (labels[96:] + 1) % 3  # and the last 4 all wrong
inputs = 2.0 * nn.functional.one_hot(predicted, num_classes=3).float()

model = nn.Linear(3, 3)
with torch.no_grad():  # a stand-in for a trained classifier
    model.weight.copy_(torch.eye(3))
    model.bias.zero_()

dataset = TensorDataset(inputs, labels)
loader = DataLoader(dataset, batch_size=32)  # batches of 32, 32, 32 and 4
print([len(yb) for _, yb in loader])

# %% data-checks tags=["remove-cell"]
assert [len(yb) for _, yb in loader] == [32, 32, 32, 4]
assert torch.equal(model(inputs).argmax(dim=1), predicted)
assert (predicted == labels).sum() == 72

# %% one-batch
xb, yb = next(iter(loader))
logits = model(xb)  # (batch, classes)
preds = logits.argmax(dim=1)  # the predicted class of each sample
correct = preds == yb  # bool, one per sample
print(correct[:8])
print(correct.float().mean())  # accuracy of this batch
print(correct.sum().item())  # number right, as a Python int

# %% one-batch-checks tags=["remove-cell"]
assert logits.shape == (32, 3) and preds.shape == yb.shape == (32,)
assert correct.dtype == torch.bool
assert correct.float().mean() == 0.75
assert isinstance(correct.sum().item(), int) and correct.sum().item() == 24

# %% evaluate
@torch.no_grad()  # no graph is recorded
def evaluate(model, loader):
    model.eval()  # Dropout and BatchNorm in eval mode
    n_correct = 0
    n_total = 0
    for xb, yb in loader:
        preds = model(xb).argmax(dim=1)
        n_correct += (preds == yb).sum().item()  # a Python int
        n_total += len(yb)
    return n_correct / n_total


accuracy = evaluate(model, loader)
print(accuracy)

# %% evaluate-checks tags=["remove-cell"]
assert isinstance(accuracy, float) and accuracy == 0.72
whole = (model(inputs).argmax(dim=1) == labels).float().mean().item()
assert abs(accuracy - whole) < 1e-6
assert not model.training

# %% batch-mean
batch_accuracies = []
with torch.no_grad():
    for xb, yb in loader:
        preds = model(xb).argmax(dim=1)
        batch_accuracies.append((preds == yb).float().mean().item())
print(batch_accuracies)  # the last batch holds 4 samples
mean_of_batches = sum(batch_accuracies) / len(batch_accuracies)
print(mean_of_batches)  # wrong: 4 samples weigh as much as 32
print(accuracy)  # right: every sample counts once

# %% batch-mean-checks tags=["remove-cell"]
assert batch_accuracies == [0.75, 0.75, 0.75, 0.0]
assert mean_of_batches == 0.5625 and mean_of_batches != accuracy
sizes = [len(yb) for _, yb in loader]
weighted = sum(a * n for a, n in zip(batch_accuracies, sizes)) / sum(sizes)
assert abs(weighted - accuracy) < 1e-12
# drop_last=True: no small batch, and its 4 samples are not measured
kept = [len(yb) for _, yb in DataLoader(dataset, batch_size=32, drop_last=True)]
assert kept == [32, 32, 32] and sum(kept) == len(dataset) - 4

# %% column-labels
labels_column = yb[:, None]  # (batch, 1), as read from a table column
print((preds == labels_column).shape)  # broadcast: every pair compared
print((preds == labels_column).float().mean())  # no error, wrong number
print((preds == labels_column.squeeze(1)).float().mean())

# %% column-labels-checks tags=["remove-cell"]
assert labels_column.shape == (4, 1)
assert (preds == labels_column).shape == (4, 4)
assert (preds == labels_column.squeeze(1)).float().mean() == 0.0
assert (preds == labels_column).float().mean() > 0
assert torch.equal(labels_column.view(-1), labels_column.squeeze(1))

# %% multi-label
# 4 samples, 5 labels each; a sample may have several labels
logits = torch.tensor([
    [2.0, -1.0, 3.0, -2.0, -1.0],
    [-1.0, 1.5, -0.5, 2.0, -3.0],
    [0.5, -2.0, -1.0, -1.0, 1.0],
    [-2.0, -1.0, 1.0, -0.5, -2.0],
])
targets = torch.tensor([
    [1.0, 0.0, 1.0, 0.0, 0.0],
    [0.0, 1.0, 0.0, 0.0, 0.0],
    [1.0, 0.0, 0.0, 0.0, 1.0],
    [0.0, 1.0, 1.0, 0.0, 0.0],
])
preds = torch.sigmoid(logits) > 0.5  # the same as logits > 0
hits = preds == targets.bool()
print(hits.float().mean())  # per label: the share of right decisions
print(hits.all(dim=1).float().mean())  # exact match: every label right

# %% multi-label-checks tags=["remove-cell"]
assert torch.equal(preds, logits > 0)
assert hits.shape == (4, 5)
assert hits.sum() == 18 and hits.float().mean() == 0.9
assert torch.equal(hits.all(dim=1), torch.tensor([True, False, True, False]))
assert hits.all(dim=1).float().mean() == 0.5

# %% top-5
# scores for 10 classes: row k ranks the classes in another order
logits = torch.stack([torch.arange(10.0).roll(k) for k in range(8)])
labels = torch.tensor([9, 0, 5, 7, 2, 1, 4, 2])
top1 = logits.argmax(dim=1) == labels
top5 = (logits.topk(5, dim=1).indices == labels[:, None]).any(dim=1)
print(top1.float().mean())
print(top5.float().mean())  # right when the label is among the 5 best

# %% top-5-checks tags=["remove-cell"]
for row, label, one, five in zip(logits, labels, top1, top5):
    rank = (row > row[label]).sum().item()  # classes scored above the label
    assert one == (rank == 0) and five == (rank < 5)
assert top1.float().mean() == 0.25 and top5.float().mean() == 0.75
assert (top5 >= top1).all()
