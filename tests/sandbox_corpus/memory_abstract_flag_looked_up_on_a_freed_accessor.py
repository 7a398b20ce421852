# expect: ok
# expect-kernel: ok|crashed|memory_limit|exception
# value: 5
# C code that looks an attribute up on an object it holds by a borrowed reference, from a field the object's own code
# can set anew (CPython 3.11.7): `__isabstractmethod__` of a `property`, `classmethod` or `staticmethod`
# (`_PyObject_IsAbstract`) asks the getter, setter and deleter, or the wrapped callable, for their own
# `__isabstractmethod__` straight from the object's fields, and `__init__` run again on the live object sets them
# anew. C's attribute lookup of a class with both `__getattribute__` and `__getattr__` calls the second with the
# object it was given after the first fails: a `__getattribute__` that is a staticmethod (so no bound method holds
# the object) re-initialises the property, which frees the object; the instance the code makes next takes its block,
# and `__getattr__` is handed that instance. Routes: a property's getter, setter and deleter, a classmethod's and a
# staticmethod's callable. Each answers 1 where `__getattr__` only ever sees the object the flag was asked of;
# without the hook native code is assumed anyway.
def route(how):
    state = {}

    class Accessor:
        def __getattr__(self, name):
            if any(self is later for later in state.get("later", ())):
                raise RuntimeError("__getattr__ was handed an object made after the accessor it was asked of was freed")
            raise AttributeError(name)

        @staticmethod
        def __getattribute__(name):
            if state.get("armed") and not state.get("done"):
                state["done"] = True
                holder.__init__(None)  # the fields anew: the accessor's last reference
                state["later"] = [Accessor.__new__(Accessor) for _ in range(4)]  # one takes the freed block
            raise AttributeError(name)

    accessor = Accessor.__new__(Accessor)
    if how == "get":
        holder = property(accessor)
    elif how == "set":
        holder = property(None, accessor)
    elif how == "delete":
        holder = property(None, None, accessor)
    elif how == "classmethod":
        holder = classmethod(accessor)
    else:
        holder = staticmethod(accessor)
    del accessor
    if how in ("classmethod", "staticmethod"):
        holder.__dict__.clear()  # `__wrapped__` held the callable too
    state["armed"] = True
    return 1 if holder.__isabstractmethod__ is False else 0


def check(**p):
    return sum(route(how) for how in ("get", "set", "delete", "classmethod", "staticmethod"))
