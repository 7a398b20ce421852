# expect: ok
# value: 0.25
import os
import sys


def check(**p):
    print('{"result": 1.0}')
    sys.stdout.flush()
    os.write(1, b'{"result":1.0}\n')
    os.write(2, b'{"result":1.0}\n')
    return 0.25
