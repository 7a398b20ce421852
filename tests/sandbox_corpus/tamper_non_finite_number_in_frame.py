# expect: bad_result
# expect-kernel: bad_result
# A result frame with a number JSON cannot carry once parsed (1e999 reads as infinity): the value handed to the
# caller must stay JSON, so the frame is a bad result, not ok with an infinite value.
import os


def check(**p):
    os.write(3, b'{"result":{"score":1e999,"penalty":-1E400}}\n')
    os._exit(0)
