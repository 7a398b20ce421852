# expect: ok
# expect-kernel: ok
# value: 1
# A false positive, not an escape: formatting the stack (traceback.format_stack and print_stack, inspect.stack,
# logging's stack_info, warnings.warn with a stacklevel above the code) reads the source lines of every frame, the
# bootstrap's file (boot.py in the run directory) among them: forbidden in every set with the hook. Every set must
# answer; the bootstrap's frames show without lines, like the code's own (`<sandboxed>`).
import inspect
import io
import logging
import traceback
import warnings


def check(**p):
    text = io.StringIO()
    traceback.print_stack(file=text)
    logger = logging.getLogger("stack")
    logger.addHandler(logging.StreamHandler(text))
    logger.warning("here", stack_info=True)
    with warnings.catch_warnings(record=True):
        warnings.warn("above", stacklevel=3)
    frames = len(traceback.format_stack()), len(inspect.stack())
    return 1 if frames[0] >= 2 and frames[0] == frames[1] and "in check" in text.getvalue() else repr(frames)
