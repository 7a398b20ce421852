# expect: ok
# expect-kernel: ok
# Every descriptor used up (copies of a scratch file, scratch files), then a first import of a stdlib module and a return: the
# result must still get out, or the run fail cleanly.
import os


def check(**p):
    held = []
    try:
        while True:
            held.append(os.dup(held[0]) if len(held) % 2 else os.open(f"f{len(held)}", os.O_CREAT | os.O_WRONLY))
    except OSError:
        pass
    try:
        import decimal  # noqa: F401
        imported = 1
    except Exception:
        imported = 0
    for fd in held:
        os.close(fd)
    return [len(held) < 100, imported]
