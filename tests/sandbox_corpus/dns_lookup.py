# expect: forbidden
# expect-kernel: exception
import socket


def check(**p):
    return socket.getaddrinfo("huggingface.co", 443)[0][4][0]
