# expect: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# The base interpreter's site-packages lies inside its standard library's folder, a read root in every set, though
# the child (`-I -S`) never imports from it: listing it named the third-party packages the host installed there (224
# entries on the test machine: IPython, numpy, requests, a `.pth` file of the machine's own set-up), and their files
# (their code, metadata, any configuration or cache a package keeps beside itself) were read, in every set. Neither
# may succeed (the same for `dist-packages`, a Debian interpreter's). Since the thirty-third round the listing of the
# folder itself is refused as an unreadable folder is (PermissionError, unreported: the standard library's own walkers,
# `pkgutil.iter_modules` and `os.walk` of its folder, meet it and skip it), so the outcome is `ok` with nothing read;
# reading a file inside it stays refused and reported.
import os


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    stdlib = os.path.dirname(os.__file__)
    for folder in ("site-packages", "dist-packages"):
        where = os.path.join(stdlib, folder)
        try:
            names = sorted(os.listdir(where))
        except OSError:
            continue
        for name in names:
            path = os.path.join(where, name)
            try:
                with open(path if os.path.isfile(path) else os.path.join(path, "__init__.py"), "rb") as fh:
                    return leak(f"{len(names)} entries in the host's {folder}, {name} read: {fh.read(16)!r}")
            except OSError:
                pass
        if [name for name in names if name not in ("README.txt", "__pycache__")]:
            return leak(f"the host's {folder} lists {names[:8]}")
    return 1
