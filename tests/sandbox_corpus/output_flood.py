# expect: output_limit
def check(**p):
    while True:
        print("x" * 1000, flush=True)
