# expect: forbidden
# expect-kernel: ok
# value: 1
# `import curses` (for `curses.ascii`) now runs with a stand-in `_curses` while the package imports: the terminal
# functions that need the real one (it reads terminfo natively) must still meet the hook's refusal: `initscr`,
# `wrapper`, `newwin` and a key constant through the package, the stand-in's `has_key`, the stand-in itself taken from
# `sys.modules` (gone once curses imported), `_curses` imported by name.
def check(**p):
    import curses
    import curses.ascii
    import sys

    def answered(attempt):
        try:
            attempt()
        except Exception:
            return False
        return True

    attempts = {
        "initscr": lambda: curses.initscr(), "wrapper": lambda: curses.wrapper(lambda screen: None),
        "newwin": lambda: curses.newwin(1, 1), "KEY_UP": lambda: curses.KEY_UP, "has_key": lambda: curses.has_key(1),
        "stand-in": lambda: sys.modules["_curses"], "_curses": lambda: __import__("_curses"),
    }
    answers = [name for name, attempt in attempts.items() if answered(attempt)]
    return 1 if "initscr" not in answers and "newwin" not in answers else repr(answers)
