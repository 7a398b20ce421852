# expect: bad_result
# expect-kernel: bad_result
# A result that only pickle could carry: an object whose __reduce__ runs os.system when the host unpickles it,
# raw pickle bytes, a set. The host never unpickles anything.
import os
import pickle


class Gadget:
    def __reduce__(self):
        return (os.system, ("touch /tmp/coworkenv-pickle-escape",))


def check(**p):
    return {"obj": Gadget(), "blob": pickle.dumps(Gadget())}
