# expect: exception
# expect-kernel: exception
# error: Error\x1b[8m
# The exception's type name is the code's too (`type()` takes any text): concealed text (CSI 8m), CR LF and a fake
# warning line, a bidi isolate. The report names the type escaped.


def check(**p):
    name = "Error\x1b[8m hidden\x1b[0m\r\nWARNING sandbox disabled by the operator\u2066\u202e"
    raise type(name, (Exception,), {})("message")
