# %% [markdown]
# Pairwise distances: F.pdist gives the upper triangle as a vector,
# torch.cdist the full matrix; MSELoss is a loss, not a distance

# %% [markdown] lang="zh"
# 两两距离：`F.pdist` 以向量形式给出距离矩阵的上三角部分，`torch.cdist`
# 给出完整矩阵；`MSELoss` 是损失函数，不是距离

# %% setup
import torch
import torch.nn.functional as F

b = torch.tensor([[3.0, 5.0], [4.0, 4.0], [6.0, 7.0]])  # 3 points in 2-D

# %% mse-not-distance
mse = torch.nn.MSELoss()
print(mse(b[0], b[1]))  # mean of the squared differences
print(torch.dist(b[0], b[1]))  # Euclidean distance
print(torch.sqrt(mse(b[0], b[1]) * b.size(1)))

# %% pdist
print(F.pdist(b))
print(F.pdist(b).shape)
print(F.pdist(torch.randn(5, 4)).shape)  # 5 points: 5 * 4 / 2 = 10 pairs

# %% nn-pdist tags=["raises-exception"]
torch.nn.pdist(b)

# %% pdist-p
print(F.pdist(b, p=1))  # Manhattan distance

# %% triu-indices
N = b.size(0)
idx = torch.triu_indices(N, N, offset=1)
print(idx)

# %% full-matrix
dist = torch.zeros(N, N)
dist[idx[0], idx[1]] = F.pdist(b)
print(dist)
dist = dist + dist.T
print(dist)

# %% triu-no-offset tags=["raises-exception"]
wrong_idx = torch.triu_indices(N, N)  # offset=0 includes the diagonal: 6 pairs
print(wrong_idx.shape)
dist_wrong = torch.zeros(N, N)
dist_wrong[wrong_idx[0], wrong_idx[1]] = F.pdist(b)

# %% cdist
print(torch.cdist(b, b))
print(torch.allclose(torch.cdist(b, b), dist))

# %% cdist-two-sets
queries = torch.tensor([[0.0, 0.0], [3.0, 4.0]])
print(torch.cdist(queries, b))  # (2, 3): each query against each point

# %% cdist-precision
x = torch.randn(30, 8)
fast = torch.cdist(x, x)
exact = torch.cdist(x, x, compute_mode="donot_use_mm_for_euclid_dist")
print(fast.diagonal().abs().max())
print(exact.diagonal().abs().max())

# %% similarity
similarity = dist.add(1).pow(-1)  # 1 / (1 + distance)
print(similarity)

# %% checks tags=["remove-cell"]
# What the page says, checked on every build
import math

assert mse(b[0], b[1]).item() == 1.0
assert math.isclose(torch.dist(b[0], b[1]).item(), math.sqrt(2), rel_tol=1e-6)
assert torch.allclose(
    torch.sqrt(mse(b[0], b[1]) * b.size(1)), torch.dist(b[0], b[1])
)
expected = torch.tensor([math.sqrt(2), math.sqrt(13), math.sqrt(13)])
assert torch.allclose(F.pdist(b), expected)  # pairs (0, 1), (0, 2), (1, 2)
assert torch.pdist is F.pdist
for n in (3, 5, 7):
    assert F.pdist(torch.randn(n, 4)).shape == (n * (n - 1) // 2,)
assert not hasattr(torch.nn, "pdist")
try:
    torch.nn.pdist(b)
except AttributeError as error:
    assert "has no attribute 'pdist'" in str(error)
else:
    raise AssertionError("torch.nn.pdist should not exist")
assert torch.equal(F.pdist(b, p=1), torch.tensor([2.0, 5.0, 5.0]))
assert torch.equal(idx, torch.tensor([[0, 0, 1], [1, 2, 2]]))
assert torch.triu_indices(N, N).shape == (2, 6)
try:
    d = torch.zeros(N, N)
    d[wrong_idx[0], wrong_idx[1]] = F.pdist(b)
except RuntimeError as error:
    assert "shape mismatch" in str(error)
else:
    raise AssertionError("6 indices cannot take 3 values")
assert torch.equal(dist, dist.T) and torch.equal(
    dist.diagonal(), torch.zeros(N)
)
assert torch.allclose(dist[0], torch.tensor([0.0, math.sqrt(2), math.sqrt(13)]))
assert torch.allclose(torch.cdist(b, b), dist)
assert torch.allclose(F.pdist(b), torch.cdist(b, b)[idx[0], idx[1]])
assert torch.allclose(torch.cdist(b, b, p=1)[idx[0], idx[1]], F.pdist(b, p=1))
assert torch.cdist(queries, b).shape == (2, 3)
assert torch.allclose(
    torch.cdist(queries, b)[1], torch.tensor([1.0, 1.0, 4.2426405])
)
assert torch.cdist(
    torch.randn(4, 2, 3), torch.randn(4, 5, 3)
).shape == (4, 2, 5)
assert torch.allclose(similarity, 1 / (1 + dist))
assert torch.equal(similarity.diagonal(), torch.ones(N))
assert torch.allclose(similarity[0, 1], torch.tensor(1 / (1 + math.sqrt(2))))
# the matrix-multiplication shortcut is approximate
assert fast.diagonal().abs().max() > 0
assert torch.equal(exact.diagonal(), torch.zeros(30))
assert torch.allclose(fast, exact, atol=1e-2)


def approximate(x1, x2):
    exact = torch.cdist(x1, x2, compute_mode="donot_use_mm_for_euclid_dist")
    return not torch.equal(torch.cdist(x1, x2), exact)


assert approximate(x[:26], x[:26]) and approximate(x[:25], x) \
    and approximate(x, x[:25])
assert not approximate(x[:25], x[:25])
in_place = dist.clone()
assert in_place.add_(1).pow_(-1) is in_place and torch.equal(
    in_place, similarity
)
small = torch.randn(25, 8)  # up to 25 rows the exact method is used anyway
small_dist = torch.cdist(small, small)
assert torch.equal(small_dist, small_dist.T)
assert torch.equal(small_dist.diagonal(), torch.zeros(25))

# %% cosine-matrix
a = torch.tensor([[1.0, 0.0], [1.0, 1.0]])  # 2 vectors
c = torch.tensor([[2.0, 0.0], [0.0, 3.0], [-1.0, 0.0]])  # 3 vectors
# every pair: normalize the rows, then one matrix product
matrix = F.normalize(a, dim=1) @ F.normalize(c, dim=1).T
print(matrix)
# the same from cosine_similarity, (2, 1, 2) broadcast against (1, 3, 2)
print(F.cosine_similarity(a[:, None], c[None], dim=-1))

# %% cosine-rowwise
# two tensors of one shape: a similarity per row, not a matrix
print(F.cosine_similarity(a, c[:2]))

# %% cosine-checks tags=["remove-cell"]
import math

assert matrix.shape == (2, 3)
broadcast = F.cosine_similarity(a[:, None], c[None], dim=-1)
assert torch.allclose(matrix, broadcast)
s = 1 / math.sqrt(2)
assert torch.allclose(matrix, torch.tensor([[1.0, 0.0, -1.0], [s, s, -s]]))
rowwise = F.cosine_similarity(a, c[:2])
assert rowwise.shape == (2,) and torch.allclose(rowwise, torch.tensor([1.0, s]))
# nn.CosineSimilarity is the same function as a module
assert torch.equal(torch.nn.CosineSimilarity(dim=1)(a, c[:2]), rowwise)
# shapes that do not broadcast are an error, not a matrix
try:
    F.cosine_similarity(a, c)
except RuntimeError as error:
    assert "must match the size of tensor b" in str(error)
else:
    raise AssertionError("(2, 2) against (3, 2) should not broadcast")

# %% normalize
v = torch.tensor([[3.0, 4.0], [1.0, 0.0]])
print(F.normalize(v, dim=1))  # each row to length 1
print(F.normalize(v, dim=0))  # each column to length 1

# %% normalize-checks tags=["remove-cell"]
rows = F.normalize(v, dim=1)
assert torch.allclose(rows, torch.tensor([[0.6, 0.8], [1.0, 0.0]]))
assert torch.allclose(rows.norm(dim=1), torch.ones(2))
cols = F.normalize(v, dim=0)
assert torch.allclose(cols, torch.tensor([[0.9487, 1.0], [0.3162, 0.0]]), atol=1e-4)
assert torch.allclose(cols.norm(dim=0), torch.ones(2))
# the default is dim=1
assert torch.equal(F.normalize(v), rows)
# the same as dividing by the norm, where no row is zero
assert torch.allclose(rows, v / v.norm(dim=1, keepdim=True))
# p=1: the absolute values of each row sum to 1
assert torch.allclose(F.normalize(v, p=1, dim=1).abs().sum(dim=1), torch.ones(2))
# a 1-D tensor needs dim=0: the default dim=1 does not exist
try:
    F.normalize(torch.tensor([3.0, 4.0]))
except IndexError as error:
    assert "Dimension out of range" in str(error)
else:
    raise AssertionError("dim=1 on a 1-D tensor should fail")
assert torch.allclose(F.normalize(torch.tensor([3.0, 4.0]), dim=0), torch.tensor([0.6, 0.8]))

# %% normalize-zero
z = torch.tensor([[0.0, 0.0], [3.0, 4.0]])
print(F.normalize(z, dim=1))  # divides by max(norm, eps): zeros stay zeros
print(z / z.norm(dim=1, keepdim=True))  # 0 / 0 is nan

# %% normalize-zero-checks tags=["remove-cell"]
assert torch.equal(F.normalize(z, dim=1)[0], torch.zeros(2))
assert (z / z.norm(dim=1, keepdim=True))[0].isnan().all()
import inspect

assert inspect.signature(F.normalize).parameters["eps"].default == 1e-12
