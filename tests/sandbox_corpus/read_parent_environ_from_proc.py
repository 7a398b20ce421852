# expect: forbidden
# expect-kernel: exception


def check(**p):
    with open(f"/proc/{p['host_process']}/environ", "rb") as fh:
        return fh.read().decode(errors="replace")
