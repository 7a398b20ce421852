# expect: crashed
# expect-kernel: crashed
# error: \x1b]8;;https://
# A crash report quotes the last line of the child's stderr: a line holding a terminal hyperlink (OSC 8), a cursor
# move up and a line erase (to overwrite what the operator saw last) and bidi isolates, then SIGABRT.
import os
import sys


def check(**p):
    sys.stderr.write("\x1b]8;;https://evil.example/\x07details\x1b]8;;\x07 \x1b[1A\x1b[2K\u2066all good\u2069\n")
    sys.stderr.flush()
    os.abort()
