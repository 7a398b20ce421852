# expect: ok
# expect-kernel: ok
# value: 1
# /dev/urandom is a read root (os.urandom's fallback), and the random device's ioctls (type 'R') answer for the
# machine's one entropy pool: RNDGETENTCNT (fcntl.ioctl, whose audit event the hook judges for socket commands only)
# gives its count, 256 on the test machine (the pool's init bits, fixed once it is ready, Linux 5.18+; before 5.18 the
# live entropy estimate, which the machine's interrupts, disk activity and every reader move). Landlock denies device
# ioctls (EACCES); where it is missing (no namespace either) the ioctl answered. The writers (RNDADDTOENTCNT,
# RNDADDENTROPY, RNDZAPENTCNT, RNDCLEARPOOL, RNDRESEEDCRNG) ask CAP_SYS_ADMIN, which the child has dropped.
import fcntl
import os
import struct

RNDGETENTCNT = 0x80045200


def check(**p):
    fd = os.open("/dev/urandom", os.O_RDONLY)
    try:
        count = struct.unpack("i", fcntl.ioctl(fd, RNDGETENTCNT, b"\0" * 4))[0]
    except OSError:
        return 1
    finally:
        os.close(fd)
    return f"SANDBOX-ESCAPED the machine's entropy pool answered: {count}"
