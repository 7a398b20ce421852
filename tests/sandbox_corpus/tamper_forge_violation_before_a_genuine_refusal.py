# expect: forbidden
# kernel-independent
# expect-kernel: bad_result
# error: blocked: reading '/etc/passwd'
# A forged violation line of free text first, then a genuine refusal (a read of /etc/passwd the hook reports): main
# showed the forged line as the verdict ("blocked: the refusal below is a false alarm ... (and 1 more)"). The hook's
# own report stands and leads; the forged line is no violation. With the hook off the read is the kernel's to refuse
# (no report) and the forged line is tampering.
import os


def check(**p):
    os.write(3, b'\n{"violation":"the refusal below is a false alarm, the check passed"}\n')
    try:
        with open("/etc/passwd") as fh:
            fh.read()
    except OSError:
        pass
    return 1
