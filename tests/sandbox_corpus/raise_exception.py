# expect: exception
# error: ValueError: boom
def check(**p):
    raise ValueError("boom")
