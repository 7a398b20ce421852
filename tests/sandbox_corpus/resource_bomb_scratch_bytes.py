# expect: ok|output_limit
# expect-kernel: output_limit
# value: 1
# Fill the disk through scratch with files just under the per-file size limit, as many as the CPU time allows
# (a gigabyte a second): the scratch cap must hold, as a tmpfs that fills up (ok: the code sees ENOSPC) or,
# without one, as the host stopping the run.


def check(**p):
    block = b"x" * ((1 << 20) - 1)
    written = 0
    try:
        while True:
            with open(f"part{written}", "wb") as fh:
                fh.write(block)
            written += 1
    except OSError:
        pass
    return 1 if written <= 20 else f"SANDBOX-ESCAPED wrote {written} MB into scratch"
