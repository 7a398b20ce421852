# expect: forbidden
# expect-kernel: ok
# value: 42
# error: marshal.loads
# Code objects built from bytes: marshal.loads of a code object the check made itself (bytecode the interpreter
# never verifies: a crafted LOAD_CONST index reads past co_consts). A benign payload here, so that the hook must
# refuse the loading itself; without the hook it loads, and the kernel layers are what is left.
import marshal


def check(**p):
    blob = marshal.dumps(compile("result = 42", "<crafted>", "exec"))
    namespace = {}
    exec(marshal.loads(blob), namespace)
    return namespace["result"]
