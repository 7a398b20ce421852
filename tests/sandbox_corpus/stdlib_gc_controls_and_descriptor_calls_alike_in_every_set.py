# expect: ok
# expect-kernel: ok
# value: 1
# limits: cpu_seconds=3,wall_seconds=10
# ruff: noqa
# Not an attack: harmless calls of a grader's that the forty-first round's fixes must leave alone, and file-descriptor
# calls beside them: the collector's own controls (freeze, unfreeze, `DEBUG_SAVEALL` with `gc.garbage`, callbacks;
# the bootstrap leaves no garbage of its own for them to find now, rather than refusing them), tracemalloc, weak
# finalizers, anonymous and file mappings, flock and lockf, select and poll, shutil's copies (sendfile), sendfile and
# copy_file_range, fadvise and fsync, faulthandler to a file, an interval timer, sigwait of its own signal,
# scrypt, urandom and getrandom, spooled and temporary files, archives, a rotating log, fwalk and scandir of a
# descriptor, truncation, umask, dup2 and fcntl flags; signal handlers answered as given, an alarm's exception out of
# a loop of opens (handlers run outside the hook now). Each answers as outside the sandbox, alike in every set.
# (epoll, eventfd and pidfd_open stay refused by design: selectors falls back to poll.) Returns 1, or what differs.
import json
import os
import sys


def items():
    import gc, tracemalloc, mmap, fcntl, select, selectors, shutil, signal, faulthandler, weakref, threading, io, time
    def t_gc():
        gc.freeze(); n = gc.get_freeze_count() > 0; gc.unfreeze(); gc.collect(); return [n, len(gc.get_stats()), gc.isenabled()]
    def t_gc_debug():
        gc.set_debug(gc.DEBUG_SAVEALL); gc.collect(); gc.set_debug(0); n = type(gc.garbage) is list; gc.garbage.clear(); return n
    def t_gc_callbacks():
        seen = []
        cb = lambda phase, info: seen.append(phase)
        gc.callbacks.append(cb); gc.collect(); gc.callbacks.remove(cb); return sorted(set(seen))
    def t_tracemalloc():
        tracemalloc.start(); x = [bytes(1000) for _ in range(100)]; cur, peak = tracemalloc.get_traced_memory(); snap = tracemalloc.take_snapshot(); tracemalloc.stop(); return cur > 50000 and len(snap.statistics("lineno")) > 0
    def t_mmap_anon():
        m = mmap.mmap(-1, 8192); m[:5] = b"hello"; v = m[:5]; m.close(); return v.decode()
    def t_mmap_file():
        with open("m.bin", "wb") as fh: fh.write(b"x" * 4096)
        with open("m.bin", "r+b") as fh:
            m = mmap.mmap(fh.fileno(), 0); m[0:1] = b"y"; m.flush(); m.close()
        return open("m.bin", "rb").read(2).decode()
    def t_flock():
        with open("l", "w") as fh: fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB); fcntl.flock(fh, fcntl.LOCK_UN); fcntl.lockf(fh, fcntl.LOCK_EX); return True
    def t_select():
        with open("s", "w") as fh: return len(select.select([], [fh], [], 0)[1])
    def t_poll():
        with open("s", "w") as fh:
            p = select.poll(); p.register(fh, select.POLLOUT); return len(p.poll(0))
    def _skip_t_selectors():
        with open("s", "r") as fh:
            s = selectors.DefaultSelector(); n = type(s).__name__; s.close(); return n
    def _skip_t_epoll():
        e = select.epoll(); e.close(); return True
    def t_copyfile():
        open("a", "w").write("data" * 1000); shutil.copyfile("a", "b"); shutil.copy2("a", "c"); return os.path.getsize("b") + os.path.getsize("c")
    def t_sendfile():
        open("a", "w").write("data" * 10)
        with open("a", "rb") as src, open("d", "wb") as dst: n = os.sendfile(dst.fileno(), src.fileno(), 0, 40)
        return n
    def t_copy_file_range():
        open("a", "w").write("data" * 10)
        with open("a", "rb") as src, open("e", "wb") as dst: return os.copy_file_range(src.fileno(), dst.fileno(), 40)
    def t_fadvise():
        with open("a", "rb") as fh: os.posix_fadvise(fh.fileno(), 0, 0, os.POSIX_FADV_SEQUENTIAL); os.fsync(fh.fileno()) if False else None
        with open("a", "ab") as fh: os.fsync(fh.fileno()); os.fdatasync(fh.fileno())
        return True
    def t_faulthandler():
        with open("fh.txt", "w") as fh: faulthandler.dump_traceback(fh)
        return os.path.getsize("fh.txt") > 0
    def t_itimer():
        signal.signal(signal.SIGALRM, lambda *a: None); signal.setitimer(signal.ITIMER_REAL, 0.01); time.sleep(0.05); return signal.getitimer(signal.ITIMER_REAL)[0]
    def t_sigwait():
        signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR1]); os.kill(os.getpid(), signal.SIGUSR1); s = signal.sigwait([signal.SIGUSR1]); signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGUSR1]); return int(s)
    def t_finalize():
        class A: pass
        a = A(); seen = []; weakref.finalize(a, seen.append, 1); del a; return seen
    def t_switch():
        sys.setswitchinterval(0.001); return sys.getswitchinterval() < 0.01 and threading.stack_size() >= 0
    def t_sysinfo():
        return [sys.getrefcount(None) > 0, sys.getallocatedblocks() > 0, sys.getsizeof([]) > 0]
    def t_urandom():
        return [len(os.urandom(8)), len(os.getrandom(8))]
    def t_scrypt():
        import hashlib; return len(hashlib.scrypt(b"p", salt=b"s", n=16, r=1, p=1))
    def _skip_t_eventfd():
        fd = os.eventfd(0); os.eventfd_write(fd, 3); v = os.eventfd_read(fd); os.close(fd); return v
    def t_spooled():
        import tempfile
        with tempfile.SpooledTemporaryFile(max_size=10) as f: f.write(b"x" * 100); f.seek(0); return len(f.read())
    def t_tempdir():
        import tempfile
        with tempfile.TemporaryDirectory() as d: open(os.path.join(d, "x"), "w").write("1"); return os.listdir(d)
    def t_make_archive():
        os.makedirs("arc/sub", exist_ok=True); open("arc/sub/f", "w").write("1")
        return os.path.basename(shutil.make_archive("out", "gztar", "arc"))
    def t_rotating():
        import logging.handlers
        h = logging.handlers.RotatingFileHandler("log.txt", maxBytes=100, backupCount=2)
        lg = logging.getLogger("x"); lg.addHandler(h)
        for i in range(50): lg.warning("line %d", i)
        h.close(); return sorted(n for n in os.listdir(".") if n.startswith("log"))
    def t_fork_at():
        os.register_at_fork(before=lambda: None); return True
    def t_times():
        t = os.times(); return [t.elapsed >= 0, time.thread_time() >= 0]
    def t_getrlimit():
        import resource; return resource.getrlimit(resource.RLIMIT_NOFILE)[0] > 0
    def t_os_walk_fd():
        os.makedirs("w/x", exist_ok=True); return sorted(d for d, _, _ in os.walk("w"))
    def t_fwalk():
        os.makedirs("w/x", exist_ok=True); return sorted(d for d, _, _, _ in os.fwalk("w"))
    def t_scandir_fd():
        os.makedirs("w/x", exist_ok=True); fd = os.open("w", os.O_RDONLY); n = [e.name for e in os.scandir(fd)]; os.close(fd); return n
    def _skip_t_pidfd():
        fd = os.pidfd_open(os.getpid()); os.close(fd); return True
    def t_wakeup():
        return signal.set_wakeup_fd(-1)
    def t_mkstemp_chmod():
        import tempfile, stat
        fd, path = tempfile.mkstemp(); os.fchmod(fd, 0o600); os.close(fd); return stat.S_IMODE(os.stat(path).st_mode)
    def t_truncate():
        with open("t", "w+b") as fh: fh.write(b"x" * 10); os.ftruncate(fh.fileno(), 3); fh.truncate(2)
        os.truncate("t", 1); return os.path.getsize("t")
    def t_umask():
        old = os.umask(0o022); os.umask(old); return True
    def t_dup():
        fd = os.open("a", os.O_RDONLY); d = os.dup(fd); d2 = os.dup2(fd, 50); os.close(fd); os.close(d); os.close(d2); return True
    def t_fcntl_flags():
        fd = os.open("a", os.O_RDONLY); fl = fcntl.fcntl(fd, fcntl.F_GETFL); fcntl.fcntl(fd, fcntl.F_SETFL, fl | os.O_NONBLOCK); os.set_blocking(fd, True); os.close(fd); return True
    def t_signal_handlers_as_given():
        mine = lambda signum, frame: None
        before = signal.signal(signal.SIGUSR2, mine)
        shown = [signal.getsignal(signal.SIGUSR2) is mine, signal.signal(signal.SIGUSR2, before) is mine,
                 signal.getsignal(signal.SIGINT) is signal.default_int_handler, signal.getsignal(signal.SIGUSR2)]
        return [*shown[:3], int(shown[3])]
    def t_alarm_interrupts_a_loop_of_opens():
        def expire(signum, frame):
            raise TimeoutError("expired")
        signal.signal(signal.SIGALRM, expire)
        signal.setitimer(signal.ITIMER_REAL, 0.005)
        try:
            while True:
                with open("spin.txt", "w") as fh:
                    fh.write("x")
        except TimeoutError as exc:
            return str(exc)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, signal.SIG_DFL)
    return {k: v for k, v in locals().items() if k.startswith("t_")}



EXPECTED = {'t_alarm_interrupts_a_loop_of_opens': 'expired', 't_signal_handlers_as_given': [True, True, True, 0],
 't_copy_file_range': 40,
 't_copyfile': 8000,
 't_dup': True,
 't_fadvise': True,
 't_faulthandler': True,
 't_fcntl_flags': True,
 't_finalize': [1],
 't_flock': True,
 't_fork_at': True,
 't_fwalk': ['w', 'w/x'],
 't_gc': [True, 3, True],
 't_gc_callbacks': ['start', 'stop'],
 't_gc_debug': True,
 't_getrlimit': True,
 't_itimer': 0.0,
 't_make_archive': 'out.tar.gz',
 't_mkstemp_chmod': 384,
 't_mmap_anon': 'hello',
 't_mmap_file': 'yx',
 't_os_walk_fd': ['w', 'w/x'],
 't_poll': 1,
 't_rotating': ['log.txt', 'log.txt.1', 'log.txt.2'],
 't_scandir_fd': ['x'],
 't_scrypt': 64,
 't_select': 1,
 't_sendfile': 40,
 't_sigwait': 10,
 't_spooled': 100,
 't_switch': True,
 't_sysinfo': [True, True, True],
 't_tempdir': ['x'],
 't_times': [True, True],
 't_tracemalloc': True,
 't_truncate': 1,
 't_umask': True,
 't_urandom': [8, 8],
 't_wakeup': -1}


def check(**p):
    found = {}
    for name, call in items().items():
        if name not in EXPECTED:
            continue
        try:
            found[name] = json.loads(json.dumps(call()))
        except BaseException as exc:
            found[name] = "error " + type(exc).__name__ + ": " + str(exc)[:80]
    wrong = {name: value for name, value in found.items() if value != EXPECTED[name]}
    return 1 if not wrong and len(found) == len(EXPECTED) else json.dumps(wrong)[:4000]
