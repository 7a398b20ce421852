# expect: ok
# expect-kernel: ok|crashed|memory_limit|exception|timeout
# value: 4
# C code of CPython 3.11.7 reads a standard stream from the `sys` module's dict without a reference and goes on
# using it after code of the code's own ran (gh-130163): `print` writes the separator to the `sys.stdout` it read at
# its start after an argument's `__str__` ran, `sys.displayhook` the newline after the value's `__repr__`, `input`
# asks the `sys.stdin` it read for its `fileno()` after calling `sys.stderr.flush()`, and `faulthandler` calls
# `flush()` on the `sys.stderr` whose `fileno()` it just asked. Each of those set the stream anew, freeing the one C
# held: C then called a method of the freed object (or of the function the code made next in its block), SIGSEGV on
# plain 3.11.7. Routes: print, the display hook, input, faulthandler's dump_traceback. Each answers 1 where C calls
# no freed stream; without the hook native code is assumed anyway.
import os
import sys

dead = set()
freed = []


class Stream:
    __slots__ = ("__weakref__", "got", "tag")

    def __init__(self, tag):
        self.tag, self.got = tag, []

    def __del__(self):
        dead.add(id(self))

    def write(self, text):
        if id(self) in dead:
            freed.append("write")
        else:
            self.got.append(text)
        return len(text)

    def flush(self):
        if id(self) in dead:
            freed.append("flush")

    def fileno(self):
        if id(self) in dead:
            freed.append("fileno")
        raise OSError("no descriptor")

    def readline(self, *args):
        if id(self) in dead:
            freed.append("readline")
        return "answer\n"


def route(how):
    saved = sys.stdin, sys.stdout, sys.stderr
    spare = Stream("spare")

    class Dropper:
        def __str__(self):
            sys.stdout = spare  # drops the stream C is writing this value to
            return "a"

        __repr__ = __str__

    class Flusher(Stream):
        __slots__ = ()

        def flush(self):
            sys.stdin = sys.stdout = spare  # drops the streams C read before this flush

    class Descriptor(Stream):
        __slots__ = ()

        def fileno(self):
            sys.stderr = spare  # drops the stream C asks next for its flush
            return descriptor

    descriptor = os.open("traceback.txt", os.O_WRONLY | os.O_CREAT, 0o600)
    answer = None
    del freed[:]
    try:
        if how == "print":
            sys.stdout = Stream(how)
            print(Dropper(), "b")
        elif how == "displayhook":
            sys.stdout = Stream(how)
            sys.__displayhook__(Dropper())
        elif how == "input":
            sys.stdin, sys.stdout, sys.stderr = Stream("in"), Stream("out"), Flusher("err")
            answer = input("prompt")
        else:
            import faulthandler

            sys.stderr = Descriptor(how)
            faulthandler.dump_traceback()
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
        os.close(descriptor)
    if freed:
        raise RuntimeError(f"{how}: C called {freed!r} on a standard stream the code's own code freed")
    if how == "input" and answer != "answer":
        raise RuntimeError(f"input read {answer!r} from a stream the code did not give it")
    return 1


def check(**p):
    return sum(route(how) for how in ("print", "displayhook", "input", "faulthandler"))
