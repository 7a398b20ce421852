# expect: forbidden
# expect-kernel: ok
# The names a host's secrets go by (HF_TOKEN, OPENAI_API_KEY, ANTHROPIC_API_KEY, AWS_SECRET_ACCESS_KEY, any *_KEY,
# *_TOKEN, *_SECRET; the test host sets them), looked up every way: os.environ, the C library's environ (posix),
# /proc/self/environ, and the parent's and init's environ and cmdline. Whatever is found comes back, so the test
# sees any secret that got through.
import os
import posix

NAMES = ("HF_TOKEN", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "AWS_SECRET_ACCESS_KEY")


def check(**p):
    found = {}
    for name, value in {**os.environ, **{k.decode(errors="replace"): v.decode(errors="replace")
                                          for k, v in posix.environ.items()}}.items():
        if name in NAMES or name.endswith(("_KEY", "_TOKEN", "_SECRET")):
            found[name] = value
    for name in NAMES:
        if os.getenv(name):
            found["getenv " + name] = os.getenv(name)
    for pid in ("self", p["host_process"], "1"):
        for what in ("environ", "cmdline"):
            try:
                with open(f"/proc/{pid}/{what}", "rb") as fh:
                    found[f"/proc/{pid}/{what}"] = fh.read(65536).decode(errors="replace")
            except OSError:
                pass
    return found
