# expect: exception|memory_limit
# kernel-independent
# An exception whose message is 50 MB (and whose __str__ returns even more on a second call): the error report must
# stay short.
class Loud(Exception):
    calls = 0

    def __str__(self):
        Loud.calls += 1
        return "y" * (50 * 2**20 * Loud.calls)


def check(**p):
    raise Loud("x" * (50 * 2**20))
