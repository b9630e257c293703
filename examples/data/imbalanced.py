# %% [markdown]
# Imbalanced classes: WeightedRandomSampler draws the classes equally often,
# class weights in the loss make the rare class cost more

# %% [markdown] lang="zh"
# 类别不平衡：`WeightedRandomSampler` 让各类别被抽到的次数相近，
# 损失函数里的类别权重让少数类的样本代价更高

# %% setup
import torch
from torch import nn
from torch.nn import functional as F
from torch.utils.data import DataLoader, TensorDataset, WeightedRandomSampler

x = torch.randn(100, 2)
# 90 samples of class 0, 10 of class 1
labels = torch.cat([torch.zeros(90), torch.ones(10)]).long()
index = torch.arange(100)  # the index shows which samples a batch holds
dataset = TensorDataset(x, labels, index)
print(len(dataset), torch.bincount(labels))

# %% plain-loader
g = torch.Generator().manual_seed(0)
loader = DataLoader(dataset, batch_size=10, shuffle=True, generator=g)
per_batch = [int(yb.sum()) for _, yb, _ in loader]  # class-1 samples
print("class 1 per batch:", per_batch)
print("batches without class 1:", per_batch.count(0))

# %% plain-loader-checks tags=["remove-cell"]
assert len(per_batch) == 10 and sum(per_batch) == 10  # every sample once
assert per_batch.count(0) >= 1
# a model that always answers class 0 is right 90 % of the time
assert (labels == 0).float().mean() == 0.9

# %% sample-weights
class_counts = torch.bincount(labels)
class_weights = 1.0 / class_counts.float()  # one weight per class
sample_weights = class_weights[labels]  # one weight per sample
print(class_counts, class_weights)
print(sample_weights.shape)
print(sample_weights[88:92])  # the last of class 0, the first of class 1
# each class carries the same total weight
print(torch.zeros(2).index_add(0, labels, sample_weights))

# %% sample-weights-checks tags=["remove-cell"]
assert class_counts.tolist() == [90, 10]
assert sample_weights.shape == (len(dataset),)
assert torch.equal(sample_weights[:90], torch.full((90,), 1 / 90))
assert torch.equal(sample_weights[90:], torch.full((10,), 1 / 10))
assert torch.allclose(
    torch.zeros(2).index_add(0, labels, sample_weights), torch.ones(2)
)
# a class-1 sample is drawn 9 times as often as a class-0 sample
assert torch.isclose(class_weights[1] / class_weights[0], torch.tensor(9.0))

# %% weighted-sampler
g = torch.Generator().manual_seed(0)
sampler = WeightedRandomSampler(
    sample_weights, num_samples=len(dataset), replacement=True, generator=g
)
loader = DataLoader(dataset, batch_size=10, sampler=sampler)
batches = [(yb, ib) for _, yb, ib in loader]  # one epoch
per_batch = [int(yb.sum()) for yb, _ in batches]
drawn = torch.cat([ib for _, ib in batches])  # the indices, in order
print("class 1 per batch:", per_batch)
print("epoch:", len(drawn), "samples, by class", torch.bincount(labels[drawn]))
minority = drawn[labels[drawn] == 1]
majority = drawn[labels[drawn] == 0]
print("class 1:", len(minority), "draws of", len(minority.unique()), "samples")
print("class 0:", len(majority), "draws of", len(majority.unique()), "samples")

# %% weighted-sampler-checks tags=["remove-cell"]
import math

assert len(loader) == 10 and len(drawn) == len(sampler) == 100
n1 = int((labels[drawn] == 1).sum())
# each draw is class 1 with probability (10 * 1/10) / 2 = 0.5; n1 is
# Binomial(100, 0.5), mean 50, sd 5: 35..65 is three sd; the seed fixes it
assert 35 <= n1 <= 65
# outside 35..65 with probability about 1 / 560: "one epoch in 500"
outside = sum(math.comb(100, k) for k in range(101) if not 35 <= k <= 65)
assert 1 / 600 < outside / 2**100 < 1 / 500
# more draws than class-1 samples: some are drawn twice or more, each
# about five times on average (35..65 draws over 10 samples)
assert len(minority) > 10 and len(minority.unique()) <= 10
assert torch.bincount(minority).max() >= 2
assert 3.5 <= len(minority) / 10 <= 6.5
# about 50 draws for 90 samples reach 90 * (1 - (89/90) ** 50), about 38 of
# them: fewer than half of the class-0 samples are drawn in an epoch
assert 38 < 90 * (1 - (89 / 90) ** 50) < 39
assert len(majority.unique()) < 45
assert min(per_batch) >= 1  # every batch holds class 1 now
# a larger num_samples: an epoch covers more of class 0
g = torch.Generator().manual_seed(0)
longer = WeightedRandomSampler(sample_weights, num_samples=300,
                               replacement=True, generator=g)
longer_drawn = torch.tensor(list(longer))
longer_majority = longer_drawn[labels[longer_drawn] == 0]
assert len(longer_majority.unique()) > len(majority.unique())

# %% without-replacement
g = torch.Generator().manual_seed(0)
no_repeats = WeightedRandomSampler(
    sample_weights, num_samples=len(dataset), replacement=False, generator=g
)
drawn_once = torch.tensor(list(no_repeats))
print(torch.bincount(labels[drawn_once]))  # the dataset, reordered
print(torch.bincount(labels[drawn_once[:20]]))  # class 1 comes early

# %% without-replacement-checks tags=["remove-cell"]
assert sorted(drawn_once.tolist()) == list(range(100))
assert torch.bincount(labels[drawn_once]).tolist() == [90, 10]
assert int(labels[drawn_once[:20]].sum()) > 2  # 2 expected unweighted

# %% per-class-weights
g = torch.Generator().manual_seed(0)
wrong = WeightedRandomSampler(
    class_weights, num_samples=len(dataset), replacement=True, generator=g
)  # 2 weights, one per class: taken as the weights of samples 0 and 1
loader = DataLoader(dataset, batch_size=10, sampler=wrong)
drawn_wrong = torch.cat([ib for _, _, ib in loader])
print(len(loader), "batches, indices drawn:", drawn_wrong.unique())
print("by class:", torch.bincount(labels[drawn_wrong], minlength=2))

# %% per-class-weights-checks tags=["remove-cell"]
import warnings

assert len(class_weights) == 2 and len(loader) == 10
with warnings.catch_warnings(record=True) as caught:  # no error, no warning
    warnings.simplefilter("always")
    list(DataLoader(dataset, batch_size=10, sampler=WeightedRandomSampler(
        class_weights, num_samples=len(dataset), replacement=True)))
assert caught == []
assert set(drawn_wrong.tolist()) <= {0, 1}  # only the first two samples
assert torch.bincount(labels[drawn_wrong], minlength=2).tolist() == [100, 0]
# sample 1 has weight 1/10, sample 0 has 1/90: sample 1 takes 90 % of draws
assert int((drawn_wrong == 1).sum()) > int((drawn_wrong == 0).sum())

# %% sampler-and-shuffle tags=["raises-exception"]
DataLoader(dataset, batch_size=10, sampler=sampler, shuffle=True)

# %% sampler-and-shuffle-checks tags=["remove-cell"]
try:
    DataLoader(dataset, batch_size=10, sampler=sampler, shuffle=True)
except ValueError as error:
    assert "sampler option is mutually exclusive with shuffle" in str(error)
else:
    raise AssertionError("sampler and shuffle=True were accepted together")

# %% cross-entropy-weight
logits = torch.tensor([[2.0, 0.0], [1.0, 0.5], [0.5, 1.0], [1.5, 0.0]])
target = torch.tensor([0, 0, 1, 1])  # two samples of each class
plain = nn.CrossEntropyLoss()(logits, target)
weighted = nn.CrossEntropyLoss(weight=class_weights)(logits, target)
print(f"plain {plain:.4f}, weighted {weighted:.4f}")

# by hand: each sample's loss times its class weight, divided by the sum
# of the weights of the targets, not by the number of samples
per_sample = F.cross_entropy(logits, target, reduction="none")
w = class_weights[target]
print(f"by hand {(w * per_sample).sum() / w.sum():.4f}")

# %% cross-entropy-weight-checks tags=["remove-cell"]
assert torch.isclose(weighted, (w * per_sample).sum() / w.sum())
assert torch.isclose(plain, per_sample.mean())
assert weighted > plain  # the class-1 samples have the larger losses here
assert per_sample[2:].mean() > per_sample[:2].mean()
# scaling all the weights leaves the weighted mean unchanged
scaled = nn.CrossEntropyLoss(weight=class_weights * 1000)(logits, target)
assert torch.isclose(scaled, weighted)
# "balanced" weights, len(dataset) / (n_classes * count), are 1/count scaled
balanced = len(dataset) / (2 * class_counts.float())
assert torch.isclose(
    nn.CrossEntropyLoss(weight=balanced)(logits, target), weighted
)

# %% cross-entropy-weight-soft
soft = F.one_hot(target, 2).float()  # the same targets as probabilities
soft_weighted = nn.CrossEntropyLoss(weight=class_weights)(logits, soft)
print(f"class indices {weighted:.4f}, probabilities {soft_weighted:.4f}")
# with probability targets the mean is over the samples, not the weights
print(f"by hand {(w * per_sample).sum() / len(target):.4f}")

# %% cross-entropy-weight-soft-checks tags=["remove-cell"]
assert torch.isclose(soft_weighted, (w * per_sample).sum() / len(target))
assert soft_weighted < weighted / 10
# "balanced" weights average 1 over the samples
balanced = len(dataset) / (2 * class_counts.float())
assert torch.isclose(balanced[labels].mean(), torch.tensor(1.0))
# here scaling the weights scales the loss
assert torch.isclose(
    nn.CrossEntropyLoss(weight=class_weights * 1000)(logits, soft),
    soft_weighted * 1000,
)
# soft labels (mixup, label smoothing by hand): the same division by N
mixed = torch.tensor([[0.7, 0.3], [0.6, 0.4], [0.2, 0.8], [0.9, 0.1]])
log_p = F.log_softmax(logits, dim=1)
assert torch.isclose(
    nn.CrossEntropyLoss(weight=class_weights)(logits, mixed),
    -(class_weights * mixed * log_p).sum() / len(mixed),
)

# %% bce-pos-weight
scores = torch.tensor([2.0, 1.0, -1.0, 0.5])  # one logit per sample
y = torch.tensor([0.0, 0.0, 1.0, 1.0])
pos_weight = torch.tensor([90 / 10])  # negatives per positive, per output
bce = nn.BCEWithLogitsLoss(pos_weight=pos_weight)(scores, y)
plain_bce = nn.BCEWithLogitsLoss()(scores, y)
print(f"plain {plain_bce:.4f}, pos_weight 9: {bce:.4f}")

# by hand: the positive term is multiplied by pos_weight, and the mean is
# over all the samples
by_hand = -(pos_weight * y * F.logsigmoid(scores)
            + (1 - y) * F.logsigmoid(-scores)).mean()
print(f"by hand {by_hand:.4f}")

# %% bce-pos-weight-checks tags=["remove-cell"]
assert pos_weight.tolist() == [9.0]
assert torch.isclose(bce, by_hand)
assert bce > plain_bce
# the negatives' part is unchanged, the positives' part is 9 times as large
per = F.binary_cross_entropy_with_logits(scores, y, reduction="none")
per_w = F.binary_cross_entropy_with_logits(
    scores, y, pos_weight=pos_weight, reduction="none"
)
assert torch.allclose(per_w[:2], per[:2]) and torch.allclose(per_w[2:], 9 * per[2:])

# %% sampler-limit raises="RuntimeError: number of categories cannot exceed 2^24"
big = WeightedRandomSampler(torch.ones(2**24 + 1), num_samples=10)
next(iter(big))  # over 2^24 weights: torch.multinomial refuses them

# %% sampler-limit-checks tags=["remove-cell"]
import inspect

from torch.utils.data import DistributedSampler

assert len(list(WeightedRandomSampler(torch.ones(2**24), num_samples=3))) == 3
# DistributedSampler splits the indices between processes; it takes no weights
assert not {"weights", "sample_weights"} & set(
    inspect.signature(DistributedSampler).parameters
)
