# expect: ok
# expect-kernel: ok
# value: 1
# Descriptors the host holds inheritable far above 255: the test puts the secret file on one numbered as high as
# the host's limit allows (container runtimes allow 2**20), and the code also tries the numbers just around a fixed
# closing bound. Every descriptor of the host's must be closed, whatever its number.
import os


def check(inherited_fd, **p):
    for number in (int(inherited_fd), 1023, 1024, 4095, 4096, 65535, 65536, 2**20 - 1):
        try:
            os.fstat(number)
        except OSError:
            continue
        try:
            return f"SANDBOX-ESCAPED descriptor {number}: " + os.pread(number, 200, 0).decode(errors="replace")
        except OSError:
            return f"SANDBOX-ESCAPED descriptor {number} is open"
    return 1
