# expect: forbidden
# expect-kernel: exception
from pathlib import Path


def check(**p):
    Path(p["tmp_target"]).write_text("escaped")
    return 1.0
