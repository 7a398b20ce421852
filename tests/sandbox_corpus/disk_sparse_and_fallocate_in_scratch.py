# expect: output_limit
# expect-kernel: output_limit
# ruff: noqa: SIM105
# Files far beyond the file size limit without writing their bytes: a sparse truncate, posix_fallocate, a seek
# past the end and one byte.
import os


def check(**p):
    fd = os.open("sparse", os.O_CREAT | os.O_RDWR)
    for grow in (lambda: os.truncate("sparse", 10 * 2**30), lambda: os.posix_fallocate(fd, 0, 10 * 2**30),
                 lambda: (os.lseek(fd, 10 * 2**30, 0), os.write(fd, b"x"))):
        try:
            grow()
        except OSError:
            pass
    return os.stat("sparse").st_size
