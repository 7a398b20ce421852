# expect: output_limit
# kernel-independent
# One byte per write, on stdout, stderr and the result channel in turn, never a newline: the most reads the host
# can be made to do for its output cap. Measured on the host: 0.12 s of its CPU and no growth of its memory before
# it stops the run at the cap.
import os


def check(**p):
    while True:
        for fd in (1, 2, 3):
            os.write(fd, b"x")
