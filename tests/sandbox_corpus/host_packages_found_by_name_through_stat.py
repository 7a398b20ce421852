# expect: ok
# value: 1
# needs: min-root
# Which third-party packages the host installed into its base interpreter, asked by name without listing anything:
# `os.path.isdir` (stat, no audit event) of well-known package folders in the standard library's site-packages, a
# read root; on the test machine pip, setuptools, numpy, IPython, requests and yaml answered. In the minimal root
# site-packages is an empty folder. (Without a mount namespace a stat still tells: the known `stat` limit.)
import os

GUESSES = ("pip", "setuptools", "wheel", "numpy", "IPython", "requests", "yaml", "_pytest", "torch", "boto3")


def check(**p):
    stdlib = os.path.dirname(os.__file__)
    found = [f"{folder}/{name}" for folder in ("site-packages", "dist-packages") for name in GUESSES
             if os.path.isdir(os.path.join(stdlib, folder, name))]
    if found:
        return "SANDBOX-ESCAPED the host installed " + ", ".join(found)
    return 1
