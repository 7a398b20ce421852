# expect: ok
# expect-kernel: ok
# A check's value is the verifier's explanation (`reason`), and from there a log line and a dataset row: terminal
# controls in it (a screen clear, an OSC 52 clipboard write, CR and newlines forging a log line, a bidi override,
# NUL, a line separator) in values and in keys come back escaped as the reports are, never acted on.
def check(**p):
    return {
        "passed": False,
        "reason": "missed\r\n[INFO] verifier: all checks passed\x1b[2K\x1b]52;c;cm0gLXJmIH4=\x07",
        "score\u202e": 0.0,
        "notes": ["\x00\u2028\u200b", {"\x1b[31m": "\x85\x9b"}],
    }
