# expect: forbidden
# expect-kernel: exception
import socket


def check(**p):
    conn = socket.create_connection(("127.0.0.1", 22), timeout=1)
    conn.sendall(b"hello")
    return 1.0
