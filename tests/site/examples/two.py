# %% first
x = 6 * 7

# %% answer
print(f"answer: {x}")
