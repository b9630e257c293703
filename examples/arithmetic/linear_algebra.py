# %% [markdown]
# Cholesky of a matrix that is not positive-definite: what the error
# means, eigvalsh and cholesky_ex to check first, jitter, float64,
# symmetrising, and the same error class from inv and solve

# %% [markdown] lang="zh"
# 对不正定的矩阵做 Cholesky 分解：报错的含义，
# 先用 `eigvalsh` 和 `cholesky_ex` 检查，加 jitter，改用 float64，
# 对称化，以及 `inv` 和 `solve` 抛出的同一类异常

# %% not-pd raises="torch._C._LinAlgError: linalg.cholesky: The factorization could not be completed because the input is not positive-definite (the leading minor of order 2 is not positive-definite)."
import torch

A = torch.tensor([[1.0, 2.0], [2.0, 1.0]])  # symmetric, but not a covariance
torch.linalg.cholesky(A)

# %% eigenvalues
print(torch.linalg.eigvalsh(A))  # one negative eigenvalue
print(torch.linalg.det(A[:2, :2]))  # the leading minor of order 2

# %% eigenvalues-checks tags=["remove-cell"]
assert torch.allclose(torch.linalg.eigvalsh(A), torch.tensor([-1.0, 3.0]))
assert torch.isclose(torch.linalg.det(A), torch.tensor(-3.0))
assert A[0, 0] > 0  # the minor of order 1 is positive: order 2 fails first

# %% cholesky-ex
L, info = torch.linalg.cholesky_ex(A)  # no exception
print(info)  # 0: success; k: the minor of order k failed
batch = torch.stack([torch.eye(2), A, 2 * torch.eye(2)])
print(torch.linalg.cholesky_ex(batch).info)  # one code per matrix

# %% cholesky-ex-checks tags=["remove-cell"]
assert info.item() == 2 and info.dtype == torch.int32
assert torch.equal(torch.linalg.cholesky_ex(batch).info,
                   torch.tensor([0, 2, 0], dtype=torch.int32))
# the good matrices of the batch are factorised
Lb = torch.linalg.cholesky_ex(batch).L
assert torch.allclose(Lb[2] @ Lb[2].mT, 2 * torch.eye(2))
# cholesky itself stops at the whole batch, naming the bad element
try:
    torch.linalg.cholesky(batch)
except torch.linalg.LinAlgError as error:
    assert "(Batch element 1)" in str(error), error
else:
    raise AssertionError("cholesky of the batch should raise")

# %% catch
try:
    torch.linalg.cholesky(A)
except torch.linalg.LinAlgError as error:  # a subclass of RuntimeError
    caught = error
print(type(caught).__name__, isinstance(caught, RuntimeError))

# %% catch-checks tags=["remove-cell"]
assert torch.linalg.LinAlgError is type(caught)
assert issubclass(torch.linalg.LinAlgError, RuntimeError)

# %% semidefinite
v = torch.tensor([[1.0], [2.0], [3.0]])
C = v @ v.T  # rank 1: positive semi-definite, eigenvalues 0, 0 and 14
print(torch.linalg.cholesky_ex(C).info)

eps = 1e-9
I = torch.eye(3)
while True:
    L, info = torch.linalg.cholesky_ex(C + eps * I)  # jitter on the diagonal
    print(f"eps={eps:.0e} info={info.item()}")
    if info == 0:
        break
    eps *= 10  # grow it until the factorisation succeeds

# %% semidefinite-checks tags=["remove-cell"]
assert torch.linalg.cholesky_ex(C).info.item() == 2
assert torch.allclose(torch.linalg.eigvalsh(C.double()),
                      torch.tensor([0.0, 0.0, 14.0], dtype=torch.double),
                      atol=1e-12)
assert info == 0 and eps > 1e-9  # the first, smallest jitter was not enough
assert torch.allclose(L @ L.mT, C + eps * I, atol=1e-5)
assert torch.allclose(L @ L.mT, C, atol=1e-4)  # close to C itself
# the jitter moves every eigenvalue up by eps
I64 = torch.eye(3, dtype=torch.double)
assert torch.allclose(torch.linalg.eigvalsh(C.double() + eps * I64),
                      torch.linalg.eigvalsh(C.double()) + eps, atol=1e-12)

# %% float64
x = torch.linspace(0, 1, 15, dtype=torch.float64)  # 15 close points
K = torch.exp(-(x[:, None] - x[None]) ** 2 / (2 * 0.25**2))  # RBF kernel
print(torch.linalg.eigvalsh(K)[0])  # smallest: tiny, but positive
print(torch.linalg.cholesky_ex(K).info)  # float64: succeeds
x32 = x.float()
K32 = torch.exp(-(x32[:, None] - x32[None]) ** 2 / (2 * 0.25**2))
print(torch.linalg.cholesky_ex(K32).info)  # float32: fails

# %% float64-checks tags=["remove-cell"]
assert 0 < torch.linalg.eigvalsh(K)[0] < 1e-11
assert torch.linalg.cholesky_ex(K).info == 0
assert torch.linalg.cholesky_ex(K32).info > 0
assert torch.allclose(K32.double(), K, atol=1e-6)  # the same matrix
# float32 resolves about 1e-7 of the largest eigenvalue
assert 1e-7 < torch.finfo(torch.float32).eps < 2e-7
# a float32 matrix converted after it is built keeps its rounding:
# build it in float64 from the start; jitter also rescues float32
assert torch.linalg.cholesky_ex(K32 + 1e-4 * torch.eye(15)).info == 0

# %% lower-triangle
M = torch.tensor([[4.0, 9.0], [1.0, 3.0]])  # not symmetric
L = torch.linalg.cholesky(M)  # no error: only the lower triangle is read
print(L @ L.mT)  # not M
M_sym = (M + M.mT) / 2  # symmetrise first
print(torch.linalg.cholesky_ex(M_sym).info)

# %% lower-triangle-checks tags=["remove-cell"]
assert torch.allclose(L @ L.mT, torch.tensor([[4.0, 1.0], [1.0, 3.0]]))
assert not torch.allclose(L @ L.mT, M)
assert torch.linalg.cholesky_ex(M_sym).info == 2  # 4 * 3 < 5 ** 2
assert torch.equal(M_sym, M_sym.mT)
# eigvalsh reads only the lower triangle as well
lower = torch.tensor([[4.0, 1.0], [1.0, 3.0]])
assert torch.allclose(torch.linalg.eigvalsh(M), torch.linalg.eigvalsh(lower))

# %% singular-inv raises="torch._C._LinAlgError: linalg.inv: The diagonal element 2 is zero, the inversion could not be completed because the input matrix is singular."
S = torch.tensor([[1.0, 2.0], [2.0, 4.0]])  # the second row is twice the first
torch.linalg.inv(S)

# %% singular-fix
print(torch.linalg.inv_ex(S).info)  # 2, as in the message
print(torch.linalg.pinv(S) @ torch.tensor([1.0, 2.0]))  # a least-squares answer

# %% singular-fix-checks tags=["remove-cell"]
assert torch.linalg.inv_ex(S).info.item() == 2
assert torch.linalg.solve_ex(S, torch.ones(2)).info.item() > 0
xs = torch.linalg.pinv(S) @ torch.tensor([1.0, 2.0])
assert torch.allclose(S @ xs, torch.tensor([1.0, 2.0]), atol=1e-5)
assert torch.allclose(xs, torch.tensor([0.2, 0.4]), atol=1e-6)  # the smallest x
try:
    torch.linalg.solve(S, torch.ones(2))
except torch.linalg.LinAlgError as error:
    assert "The solver failed because the input matrix is singular" in str(error)
else:
    raise AssertionError("solve with a singular matrix should raise")
