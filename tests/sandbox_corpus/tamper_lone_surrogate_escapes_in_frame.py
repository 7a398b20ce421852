# expect: bad_result
# expect-kernel: bad_result
# The same written straight to the result channel as JSON escapes (\ud800 alone is valid JSON syntax).
import os


def check(**p):
    os.write(3, b'{"result":{"answer":"\\ud800","ok":true}}\n')
    os._exit(0)
