import torch

print(torch.arange(3) * 2)
