# expect: bad_result
import os


def check(**p):
    os.write(3, b'{"result":1.0}\n')
    return 0.0
