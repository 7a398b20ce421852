# expect: ok
# expect-kernel: ok
# value: 1
# A false positive, not an escape: `curses.ascii` (character classes and control names: pure Python) imports the
# `curses` package, whose `__init__` imports `_curses` (terminfo read natively), refused by name: `forbidden` in every
# set with the hook, working with the kernel layers alone. While `curses` imports, `_curses` is a stand-in whose
# functions import the real one; the package's terminal functions (`initscr`, `newwin`, its constants) still meet the
# refusal (`curses_terminal_functions_after_curses_ascii`).
def check(**p):
    import curses.ascii as ca

    found = [ca.isalpha("a"), ca.isctrl("\x01"), ca.unctrl("\x07"), ca.ascii(0xE9), ca.controlnames[10], ca.isprint(" ")]
    return 1 if found == [True, True, "^G", 105, "LF", True] else repr(found)
