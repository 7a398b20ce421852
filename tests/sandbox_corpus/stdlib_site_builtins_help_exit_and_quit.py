# expect: ok
# expect-kernel: ok
# value: 1
# A false positive, not an escape: the child starts with `-S` (no `site`), so the builtins `site` adds were missing:
# `help(len)` (a grader printing an object's documentation into its report), `exit(code)` and `quit()` raised
# NameError in every set. They are the standard ones now: help writes pydoc's text to stdout (no terminal), exit and
# quit raise SystemExit, as `sys.exit` does.
def check(**p):
    import contextlib
    import io

    shown = io.StringIO()
    with contextlib.redirect_stdout(shown):
        help(len)
    codes = []
    for leave in (exit, quit):
        try:
            leave(3)
        except SystemExit as stop:
            codes.append(stop.code)
    found = ["len(obj, /)" in shown.getvalue(), codes, repr(exit)]
    return 1 if found == [True, [3, 3], "Use exit() or Ctrl-D (i.e. EOF) to exit"] else repr(found)
