# expect: memory_limit
def check(**p):
    hog = []
    while True:
        hog.append(b"x" * 2**20)
