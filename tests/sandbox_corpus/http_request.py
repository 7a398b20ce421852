# expect: forbidden
# expect-kernel: exception
import urllib.request


def check(**p):
    return urllib.request.urlopen("http://127.0.0.1:9/score", timeout=1).read().decode()
