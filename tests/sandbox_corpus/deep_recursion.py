# expect: exception
def check(**p):
    def down(n):
        return down(n + 1) + 1

    return down(0)
