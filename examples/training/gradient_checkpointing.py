# %% [markdown]
# Gradient checkpointing: less memory for more compute: what this example shows, in one line

# %% [markdown] lang="zh"
# 梯度检查点：用计算换显存：用一句话说明这个示例演示什么

# %% first
import torch

x = torch.arange(6).reshape(2, 3)
print(x)
print(x.shape)

# %% first-checks tags=["remove-cell"]
# What the page says about the cell above, checked on every build
assert x.shape == (2, 3)
assert x.dtype == torch.int64
