# expect: ok
# expect-kernel: ok
# value: 1
# The class around the queue ioctls (channel_queues_gauge_the_hosts_reading): a pipe or socket the host made answers
# whatever generic or terminal ioctl its kernel code knows, each a fact of the host's object (queued bytes, unsent
# bytes, the block size of the file system it lives on). Every command of type 0 and 'T' is tried on descriptors 0-4
# with a buffer to fill; only those that set the code's own descriptor flags (FIONBIO: blocking, FIOCLEX and
# FIONCLEX: close-on-exec, which Python's sockets and os.set_inheritable use) may answer.
import fcntl

OWN_FLAGS = {0x5421, 0x5450, 0x5451}


def check(**p):
    answered = {}
    for fd in range(5):
        for command in (*range(0x100), *range(0x5400, 0x5500)):
            if command in OWN_FLAGS:
                continue
            try:
                fcntl.ioctl(fd, command, bytearray(256))
            except OSError:
                continue
            answered.setdefault(fd, []).append(hex(command))
    return f"SANDBOX-ESCAPED the channels answer ioctls of their own: {answered}" if answered else 1
