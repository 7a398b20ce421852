# expect: forbidden
# expect-kernel: ok
# value: 1
# The filter refuses inotify and fanotify (watching host paths); fcntl's F_NOTIFY (dnotify) is an older way to the
# same: on a host folder the code can open for reading (the stdlib's), it signals the code whenever the host
# creates, changes or removes a file there. Must fail; the hook also refuses opening that folder.
import fcntl
import os
import signal

F_NOTIFY = 1026
DN_MODIFY, DN_CREATE, DN_DELETE, DN_MULTISHOT = 0x2, 0x4, 0x8, 0x80000000


def check(**p):
    signal.signal(signal.SIGIO, signal.SIG_IGN)
    fd = os.open(os.path.dirname(os.__file__), os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.fcntl(fd, F_NOTIFY, DN_MODIFY | DN_CREATE | DN_DELETE | DN_MULTISHOT)
        return "SANDBOX-ESCAPED F_NOTIFY watches the stdlib folder"
    except OSError:
        return 1
    finally:
        os.close(fd)
