# expect: forbidden
# expect-kernel: exception
import _socket


def check(**p):
    s = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    s.connect(("127.0.0.1", 80))
    return 1.0
