# %% [markdown]
# * and torch.mul multiply element by element (with broadcasting); mm, bmm,
# matmul and dot are matrix products with different rules about shapes

# %% [markdown] lang="zh"
# `*` 和 `torch.mul` 逐元素相乘（支持广播）；`mm`、`bmm`、`matmul`
# 和 `dot` 是矩阵乘积，对形状各有不同的要求

# %% scalar
import torch

x = torch.ones(3, 4)
print(x * 2)

# %% row-vector
v = torch.tensor([1.0, 2.0, 3.0, 4.0])
print(x * v)
print(torch.equal(torch.mul(x, v), x * v))

# %% row-vector-mismatch tags=["raises-exception"]
x * torch.tensor([1.0, 2.0, 3.0])

# %% not-same-shape
col = torch.tensor([[1.0], [2.0], [3.0]])  # shape (3, 1)
print(x * col)
print((col * v).shape)  # (3, 1) * (4,) -> (3, 4)

# %% batch-broadcast
a = torch.tensor([[1, 2], [2, 3]])
b = torch.tensor([[[1, 2], [2, 3]], [[-1, -2], [-2, -3]]])
print(a * a)
print(a * b)
print((a * b).dtype)

# %% int-times-float
print(a * 2.5)

# %% mm
m1 = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])  # (2, 3)
m2 = torch.ones(3, 2)
print(torch.mm(m1, m2))
print(torch.equal(m1.mm(m2), m1 @ m2))

# %% mm-shape-mismatch tags=["raises-exception"]
torch.mm(m1, torch.ones(2, 2))

# %% mm-3d tags=["raises-exception"]
torch.mm(torch.ones(5, 2, 3), m2)

# %% mm-dtype tags=["raises-exception"]
torch.mm(torch.tensor([[1, 2], [3, 4]]), torch.ones(2, 2))

# %% bmm
x3 = torch.ones(5, 2, 3)  # 5 matrices of shape (2, 3)
y3 = torch.ones(5, 3, 4)  # 5 matrices of shape (3, 4)
print(torch.bmm(x3, y3).shape)

# %% bmm-2d tags=["raises-exception"]
torch.bmm(x3, torch.ones(3, 4))

# %% bmm-batch-mismatch tags=["raises-exception"]
torch.bmm(x3, torch.ones(1, 3, 4))

# %% matmul-batched
batch_size, n_memory, dim = 8, 6, 4
weights = torch.randn(batch_size, n_memory, dim, dim)
vectors = torch.randn(batch_size, n_memory, dim, 1)
out = torch.matmul(weights, vectors)
print(out.shape)

# %% matmul-broadcast
shared = torch.randn(dim, dim)  # one matrix for every batch element and memory
print(torch.matmul(shared, vectors).shape)
print(torch.matmul(torch.randn(n_memory, dim, dim), vectors).shape)
print(torch.matmul(x3, torch.ones(1, 3, 4)).shape)  # the batch of 1 bmm refused

# %% matmul-1d
m = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])  # (3, 2)
print(torch.matmul(torch.tensor([1.0, 1.0, 1.0]), m))  # (3,) @ (3, 2) -> (2,)
print(torch.matmul(m, torch.tensor([1.0, 1.0])))  # (3, 2) @ (2,) -> (3,)

# %% vectors
u = torch.tensor([1.0, 2.0, 3.0])
w = torch.tensor([4.0, 5.0, 6.0])
print(torch.mul(u, w))
print(torch.matmul(u, w))
print(torch.dot(u, w))
print(u @ w)

# %% dot-2d tags=["raises-exception"]
torch.dot(torch.ones(2, 2), torch.ones(2, 2))

# %% checks tags=["remove-cell"]
# What the page says, checked on every build
assert torch.equal(x * 2, torch.full((3, 4), 2.0))
# legacy constructor: float32 too
assert torch.equal(torch.Tensor([1, 2, 3, 4]), v)
assert torch.equal(x * v, v.expand(3, 4)) and (x * v).shape == (3, 4)
assert torch.equal(torch.mul(x, v), x * v) and torch.equal(
    torch.mul(x, 2), x * 2
)
try:
    x * torch.tensor([1.0, 2.0, 3.0])
except RuntimeError as error:
    assert "must match the size of tensor b (3) at non-singleton dimension 1" \
        in (str(error))
else:
    raise AssertionError("(3, 4) * (3,) should not broadcast")
assert torch.equal(x * torch.tensor([2.0]), x * 2)  # length 1 fits any last dim
assert (x * col).shape == (3, 4) and torch.equal(
    (x * col)[:, 0], torch.tensor([1.0, 2, 3])
)
assert (col * v).shape == (3, 4)
assert torch.equal(a * a, torch.tensor([[1, 4], [4, 9]]))
assert (a * b).shape == (2, 2, 2)
# c[i] = a * b[i]
assert all(torch.equal((a * b)[i], a * b[i]) for i in range(2))
assert (a * b).dtype == torch.int64 and (a * a).dtype == torch.int64
assert (a * 2.5).dtype == torch.float32
assert torch.equal(torch.mm(m1, m2), torch.tensor([[6.0, 6.0], [15.0, 15.0]]))
assert torch.equal(m1.mm(m2), m1 @ m2) and torch.equal(
    torch.matmul(m1, m2), m1 @ m2
)
assert torch.equal(x.mul(v), x * v)
int_m = torch.tensor([[1, 2], [3, 4]])
assert torch.equal(
    torch.mm(int_m.float(), torch.ones(2, 2)), torch.tensor([[3.0, 3], [7, 7]])
)
for bad, words in [
    (
        lambda: torch.mm(m1, torch.ones(2, 2)),
        "shapes cannot be multiplied (2x3 and 2x2)",
    ),
    (lambda: torch.mm(torch.ones(5, 2, 3), m2), "must be a matrix"),
    (lambda: torch.mm(torch.tensor([[1, 2]]), torch.ones(2, 2)), "same dtype"),
    (lambda: torch.bmm(x3, torch.ones(3, 4)), "batch2 must be a 3D tensor"),
    (
        lambda: torch.bmm(x3, torch.ones(1, 3, 4)),
        "Expected size for first two dimensions",
    ),
    (
        lambda: torch.dot(torch.ones(2, 2), torch.ones(2, 2)),
        "1D tensors expected"
    ),
    (lambda: torch.dot(torch.tensor([1, 2]), torch.ones(2)), "same dtype"),
]:
    try:
        bad()
    except RuntimeError as error:
        assert words in str(error), str(error)
    else:
        raise AssertionError(f"expected an error with {words!r}")
assert torch.bmm(x3, y3).shape == (5, 2, 4)
assert torch.equal(torch.bmm(x3, y3), torch.matmul(x3, y3))
assert torch.equal(x3.bmm(y3), torch.bmm(x3, y3))
assert torch.matmul(x3, torch.ones(1, 3, 4)).shape == (5, 2, 4)
assert out.shape == (batch_size, n_memory, dim, 1)
assert torch.allclose(out[3, 2], weights[3, 2] @ vectors[3, 2])
assert torch.matmul(shared, vectors).shape == (batch_size, n_memory, dim, 1)
assert torch.allclose(
    torch.matmul(shared, vectors)[1, 4], shared @ vectors[1, 4]
)
stack = torch.randn(n_memory, dim, dim)  # shared across the batch
assert torch.matmul(stack, vectors).shape == out.shape
assert torch.allclose(
    torch.matmul(stack, vectors)[5, 2], stack[2] @ vectors[5, 2]
)
assert torch.equal(
    torch.matmul(torch.tensor([1.0, 1.0, 1.0]), m), torch.tensor([9.0, 12.0])
)
assert torch.equal(
    torch.matmul(m, torch.tensor([1.0, 1.0])), torch.tensor([3.0, 7.0, 11.0])
)
assert torch.equal(torch.mul(u, w), torch.tensor([4.0, 10.0, 18.0]))
for dotted in (torch.matmul(u, w), torch.dot(u, w), u @ w):
    assert dotted.dim() == 0 and dotted.item() == 32.0

# %% einsum
a, b = torch.randn(2, 3), torch.randn(3, 4)
print(torch.einsum("ij,jk->ik", a, b).shape)  # j is summed: a @ b
print(torch.allclose(torch.einsum("ij,jk->ik", a, b), a @ b))
u, w = torch.tensor([1.0, 2.0, 3.0]), torch.tensor([4.0, 5.0, 6.0])
print(torch.einsum("i,i->", u, w))  # i summed, nothing kept: dot
print(torch.einsum("i,i->i", u, w))  # i kept: element by element
print(torch.einsum("i,j->ij", u, w))  # nothing summed: outer product

# %% einsum-checks tags=["remove-cell"]
assert torch.allclose(torch.einsum("ij,jk->ik", a, b), torch.mm(a, b))
assert torch.einsum("i,i->", u, w) == torch.dot(u, w) == 32
assert torch.equal(torch.einsum("i,i->i", u, w), u * w)
assert torch.equal(torch.einsum("i,j->ij", u, w), torch.outer(u, w))
# without "->", the output is the letters that appear once, alphabetically
assert torch.allclose(torch.einsum("ij,jk", a, b), a @ b)
assert torch.allclose(torch.einsum("jk,ij", b, a), a @ b)  # ik, not ki
# a letter twice in one operand takes the diagonal
assert torch.einsum("ii->", torch.eye(3)) == 3
assert torch.einsum("ij->ji", a).data_ptr() == a.data_ptr()  # a view: a.t()

# %% einsum-batched
q = torch.randn(2, 5, 8)  # (batch, queries, dim)
k = torch.randn(2, 6, 8)  # (batch, keys, dim)
scores = torch.einsum("bqd,bkd->bqk", q, k)  # no transpose to write
print(scores.shape, torch.allclose(scores, q @ k.transpose(1, 2)))
x = torch.randn(7, 4, 2, 3)
print(torch.einsum("...ij,jk->...ik", x, b).shape)  # ...: any batch dims

# %% einsum-batched-checks tags=["remove-cell"]
assert scores.shape == (2, 5, 6)
assert torch.allclose(scores, torch.bmm(q, k.transpose(1, 2)))
assert torch.allclose(torch.einsum("...ij,jk->...ik", x, b), x @ b)

# %% einsum-dims raises="RuntimeError: einsum(): the number of subscripts in the equation (2) does not match the number of dimensions (3) for operand 0 and no ellipsis was given"
torch.einsum("ij,jk->ik", torch.randn(5, 2, 3), b)

# %% inv-singular raises="torch._C._LinAlgError: linalg.inv: The diagonal element 2 is zero, the inversion could not be completed because the input matrix is singular."
A = torch.tensor([[1.0, 2.0], [2.0, 4.0]])  # row 2 is twice row 1
torch.linalg.inv(A)

# %% inv-singular-fixes
inverse, info = torch.linalg.inv_ex(A)  # no exception: check info instead
print("inv_ex info:", info.item())  # 0 means the inverse is valid
b = torch.tensor([1.0, 2.0])  # A x = b has many solutions
print("pinv: ", torch.linalg.pinv(A) @ b)  # the one of smallest norm
print("lstsq:", torch.linalg.lstsq(A, b.unsqueeze(1)).solution.squeeze(1))
eye = torch.eye(2)
# plus eps * I
print("ridge:", torch.linalg.solve(A.T @ A + 0.01 * eye, A.T @ b))
B = torch.tensor([[2.0, 1.0], [1.0, 3.0]])  # an invertible matrix
print("solve:", torch.linalg.solve(B, b))  # not inv(B) @ b

# %% inv-singular-fixes-checks tags=["remove-cell"]
assert info.item() == 2  # the diagonal element named by the error
assert torch.linalg.inv_ex(B).info.item() == 0
min_norm = torch.tensor([0.2, 0.4])
assert torch.allclose(torch.linalg.pinv(A) @ b, min_norm, atol=1e-5)
x_lstsq = torch.linalg.lstsq(A, b.unsqueeze(1)).solution.squeeze(1)
assert torch.allclose(A @ x_lstsq, b, atol=1e-5)  # a solution
assert torch.allclose(x_lstsq, min_norm, atol=1e-4)  # the smallest, on CPU
ridge = torch.linalg.solve(A.T @ A + 0.01 * eye, A.T @ b)
assert torch.allclose(ridge, min_norm, atol=1e-3)  # close to it, a little shorter
assert ridge.norm() < min_norm.norm()
assert torch.isfinite(torch.linalg.inv(A + 0.01 * eye)).all()
x_solve = torch.linalg.solve(B, b)
assert torch.allclose(B @ x_solve, b, atol=1e-6)
assert torch.allclose(x_solve, torch.linalg.inv(B) @ b, atol=1e-6)
# solve refuses a singular matrix too
try:
    torch.linalg.solve(A, b)
except torch.linalg.LinAlgError as error:
    assert "singular" in str(error)
else:
    raise AssertionError("solve should fail on a singular matrix")
# the error is a LinAlgError, a subclass of RuntimeError
assert torch.linalg.LinAlgError is torch._C._LinAlgError
assert issubclass(torch.linalg.LinAlgError, RuntimeError)
# in a batch, info has one code per matrix and the good ones are inverted
inverses, infos = torch.linalg.inv_ex(torch.stack([A, B]))
assert infos.tolist() == [2, 0]
assert torch.allclose(inverses[1], torch.linalg.inv(B))

# %% svd-nan raises="torch._C._LinAlgError: linalg.svd: The algorithm failed to converge because the input matrix contained non-finite values."
x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
x[1, 1] = float("nan")  # e.g. a value computed from a loss that diverged
torch.linalg.svd(x)

# %% svd-inf
y = torch.tensor([[1.0, 2.0], [3.0, float("inf")]])
U, S, Vh = torch.linalg.svd(y)  # no error
print("S:", S)
print(torch.isfinite(x).all(), torch.isfinite(y).all())  # the test to run
print((~torch.isfinite(x)).nonzero().tolist())  # where: row 1, column 1

# %% svd-inf-checks tags=["remove-cell"]
assert torch.isnan(S).all()
assert not torch.isfinite(x).all() and not torch.isfinite(y).all()
assert (~torch.isfinite(x)).nonzero().tolist() == [[1, 1]]
# svdvals, pinv and matrix_rank run the same SVD: a nan raises there too
for call in (torch.linalg.svdvals, torch.linalg.pinv, torch.linalg.matrix_rank):
    try:
        call(x)
    except torch.linalg.LinAlgError as error:
        assert "linalg.svd: The algorithm failed to converge" in str(error)
    else:
        raise AssertionError(f"{call.__name__} took a nan")
# float64 does not help a nan
try:
    torch.linalg.svd(x.double())
except torch.linalg.LinAlgError as error:
    assert "contained non-finite values" in str(error)
else:
    raise AssertionError("float64 took a nan")
# and the inf gives nan in float64 as well
assert torch.isnan(torch.linalg.svdvals(y.double())).all()
# nan_to_num lets the SVD run on made-up numbers: nan -> 0, inf -> float32 max
assert torch.nan_to_num(x)[1, 1] == 0
assert torch.nan_to_num(y)[1, 1] == torch.finfo(torch.float32).max
assert torch.isfinite(torch.linalg.svdvals(torch.nan_to_num(x))).all()
assert torch.isfinite(torch.linalg.svdvals(torch.nan_to_num(y))).all()

# %% svd-float64
x = torch.tensor([[1e20, 2e20], [3e20, -1e20]])  # finite float32 features
gram = x.T @ x  # products near 1e41: too big for float32
print(gram)
gram64 = x.double().T @ x.double()  # float64 holds up to about 1e308
print(torch.linalg.svdvals(gram64))

# %% svd-float64-checks tags=["remove-cell"]
assert torch.isfinite(x).all() and not torch.isfinite(gram).any()
assert torch.isnan(gram).any() and torch.isinf(gram).any()
try:
    torch.linalg.svdvals(gram)
except torch.linalg.LinAlgError as error:
    assert "contained non-finite values" in str(error)
else:
    raise AssertionError("the float32 Gram matrix did not fail")
singular = torch.linalg.svdvals(gram64)
assert torch.isfinite(singular).all()
# the singular values of x.T @ x are the squares of those of x
assert torch.allclose(singular, torch.linalg.svdvals(x.double()) ** 2)

# %% svd-driver raises="RuntimeError: torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with cuSOLVER backend."
torch.linalg.svd(gram64, driver="gesvd")  # on a CPU tensor

# %% sparse-mm
# row and column of each stored value
indices = torch.tensor([[0, 1, 1], [2, 0, 2]])
values = torch.tensor([3.0, 4.0, 5.0], requires_grad=True)
S = torch.sparse_coo_tensor(indices, values, (2, 3), check_invariants=True)
torch.manual_seed(0)
D = torch.randn(3, 2, requires_grad=True)
out = torch.sparse.mm(S, D)  # dense (2, 2) result
out.sum().backward()
print(values.grad.shape, D.grad.shape)  # one gradient per stored value

# %% sparse-mm-checks tags=["remove-cell"]
import warnings

assert torch.allclose(out, S.to_dense() @ D)
assert torch.allclose(S @ D, out)
assert not out.is_sparse and out.shape == (2, 2)
assert values.grad.shape == (3,) and D.grad.shape == (3, 2)
# the gradient of a stored value S[i, k] is the sum of row k of D
assert torch.allclose(values.grad, D.detach().sum(dim=1)[indices[1]])
assert torch.allclose(D.grad, S.to_dense().detach().sum(dim=0)[:, None].expand(3, 2))
# check_invariants=True: no warning about disabled checks
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    torch.sparse_coo_tensor(indices, values.detach(), (2, 3), check_invariants=True)
assert not caught
# with the check, an index outside the shape is an error
try:
    torch.sparse_coo_tensor(
        torch.tensor([[0], [5]]), torch.tensor([1.0]), (2, 3), check_invariants=True
    )
except RuntimeError as error:
    assert "index 5" in str(error)
else:
    raise AssertionError("an index outside the shape passed the check")
