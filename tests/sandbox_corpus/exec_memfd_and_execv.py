# expect: forbidden
# ruff: noqa: SIM105
# expect-kernel: ok
# value: 1
# Replace the interpreter: a tiny static ELF (x86_64; it writes a forged result frame) in a memfd run by
# fexecve and through /proc/self/fd, a copy in scratch, and plain execv of /bin/sh. Exec must never happen.
import base64
import os
import zlib

ELF = zlib.decompress(base64.b64decode("eNqrd/VxY2JkZIABJgY7BhBvA4MDmO8AFXdAKAGKWQDVOTCwMDCD1bKD1UMATB+MLoOKw2gFKB34tCSFjYF4IACld4As3M8MJPY9AFqxyxXI4mfd8RxIGf7nZ339D01ftVJRanFpTomSlVKwo5+Lk3+Ermuws2OAq4tCakVqskJRakFOYnJqikJJRqpCcWJeSlJ+BZCXmVeSWlRQlAoklWq5GBj0ijOKS4pKEpMY9EpSK0oY9IryUxJLEhkoBtxADAtD1PCDAEU09YxofEGoGBOU/wCq/wGU74amXgGLecxY3KUGtUiSgP0AEZ43XQ=="))


def check(**p):
    attempts = []
    try:
        fd = os.memfd_create("x", 0)
        os.write(fd, ELF)
        attempts += [lambda: os.execve(fd, ["x"], {}), lambda: os.execv(f"/proc/self/fd/{fd}", ["x"])]
    except Exception:
        pass
    try:
        with open("x.bin", "wb") as fh:
            fh.write(ELF)
        os.chmod("x.bin", 0o755)
    except Exception:
        pass
    attempts += [lambda: os.execv(os.path.abspath("x.bin"), ["x"]), lambda: os.execv("/bin/sh", ["sh", "-c", "id"]),
                 lambda: os.execvpe("sh", ["sh"], {})]
    for attempt in attempts:
        try:
            attempt()
        except Exception:
            pass
    return 1
