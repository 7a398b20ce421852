# expect: forbidden
# ruff: noqa: SIM105, SIM115
# expect-kernel: ok
# value: 1
# Map what cannot be read: host memory and devices (/dev/mem, /dev/kmem, /proc/kcore, /dev/port, a block
# device), the parent's memory, the host's secret file; shared mappings of /dev/zero and of scratch files are
# fine, host files and devices are not.
import mmap
import os


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + what[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + what[:150]


def check(**p):
    with open("mine.bin", "wb") as fh:
        fh.write(b"\0" * 4096)
    fd = os.open("mine.bin", os.O_RDWR)
    mmap.mmap(fd, 4096).close()  # allowed: the code's own file
    os.close(fd)
    targets = ["/dev/mem", "/dev/kmem", "/proc/kcore", "/dev/port", "/dev/vda", "/dev/sda", "/dev/nvme0n1",
               f"/proc/{p['host_process']}/mem", p["secret_file"], p["world_file"]]
    for path in targets:
        try:
            fd = os.open(path, os.O_RDONLY)
        except Exception:
            continue
        try:
            with mmap.mmap(fd, 4096, prot=mmap.PROT_READ) as view:
                return leak(f"mapped {path}: {bytes(view[:64])!r}")
        except Exception:
            return leak(f"opened {path}")
        finally:
            os.close(fd)
    return 1
