# expect: crashed
# expect-kernel: crashed
# error: sys.exit(\x1b[2J
# sys.exit with a text code: the report quotes it. Here it clears the screen, sets the terminal's title (OSC 0)
# and returns the cursor to forge a line.
import sys


def check(**p):
    sys.exit("\x1b[2J\x1b]0;all checks passed\x07\rdone")
