# expect: forbidden
# expect-kernel: exception
# Tries to escape the path check with an *at() call relative to a directory opened outside the scratch dir.
import os


def check(**p):
    folder, name = os.path.split(p["tmp_target"])
    dir_fd = os.open(folder, os.O_RDONLY)
    fd = os.open(name, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=dir_fd)
    os.write(fd, b"escaped")
    return 1.0
