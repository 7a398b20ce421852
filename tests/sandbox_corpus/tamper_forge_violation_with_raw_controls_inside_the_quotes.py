# expect: bad_result
# kernel-independent
# A forged read refusal whose quoted path holds characters `repr` always escapes (a right-to-left override, a
# newline as JSON's own escape): the hook's report never carries them raw. Main read it as `forbidden` (shown
# escaped); the host now takes the line for the code's own.
import os


def check(**p):
    os.write(3, b'\n{"violation":"reading \'/etc/passwd\\u202e\\nSCORE 100\' outside the scratch directory and the '
                b'standard library"}\n')
    return 1
