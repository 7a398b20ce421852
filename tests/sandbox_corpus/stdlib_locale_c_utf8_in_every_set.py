# expect: ok
# expect-kernel: ok
# value: 1
# A false positive, not an escape: glibc's C.UTF-8 locale (the one the interpreter starts in for LC_CTYPE) lives in
# /usr/lib/locale/C.utf8, which only the set without Landlock could read: `locale.setlocale(LC_ALL, "C.UTF-8")`
# raised "unsupported locale setting" in the full, degraded and kernel-only sets and answered without Landlock, so a
# check that sorts or formats under it had an outcome that depended on the host's layers. Readable in every set now,
# where the host has it (a host without it answers alike in every set: unsupported).
def check(**p):
    import locale
    import os
    import time

    installed = any(os.path.isdir(f"/usr/lib/locale/{name}") for name in ("C.utf8", "C.UTF-8"))
    try:
        names = (locale.setlocale(locale.LC_ALL, "C.UTF-8"), locale.setlocale(locale.LC_COLLATE, "C.utf8"))
        ordered = sorted(["b", "a", "B", "é"], key=locale.strxfrm)
        day = time.strftime("%A %B", time.gmtime(0))
    except locale.Error:
        return 1 if not installed else "unsupported where the host has it"
    finally:
        locale.setlocale(locale.LC_ALL, "C")
    found = (installed, names, ordered, day)
    return 1 if found == (True, ("C.UTF-8", "C.utf8"), ["B", "a", "b", "é"], "Thursday January") else repr(found)
