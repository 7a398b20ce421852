# expect: ok|output_limit
# expect-kernel: output_limit
# value: 1
# Exhaust inodes through scratch with empty files and folders: the entry cap (the tmpfs's inodes, or the host
# counting) must hold.
import os


def check(**p):
    made = 0
    try:
        while True:
            if made % 2:
                os.mkdir(f"d{made}")
            else:
                open(f"f{made}", "w").close()
            made += 1
    except OSError:
        pass
    return 1 if made <= 4096 else f"SANDBOX-ESCAPED made {made} entries in scratch"
