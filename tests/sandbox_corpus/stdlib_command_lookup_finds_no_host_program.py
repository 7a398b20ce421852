# expect: ok
# expect-kernel: ok
# value: 1
# A host fact and a false positive: the run's environment had no PATH, so `shutil.which` fell back to the C library's
# default search path (/bin:/usr/bin) and asked `os.access` (no audit event) of each folder: where there is no
# minimal root it named the host's programs (`/bin/sh`, `/bin/python3`, whatever the host installed), in the full set
# none. A check's answer that depended on the machine, and a list of the host's programs. No command runs in the
# sandbox, and every set must say so alike: no search path, no program found.
def check(**p):
    import os
    import shutil

    found = ([shutil.which(name) for name in ("sh", "python3", "ls", "git")], os.get_exec_path(),
             os.environ.get("PATH"))
    return 1 if found == ([None] * 4, [""], "") else repr(found)
