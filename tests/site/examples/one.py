numbers = list(range(3))

print([n * 2 for n in numbers])
