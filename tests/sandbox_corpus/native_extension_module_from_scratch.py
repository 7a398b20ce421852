# expect: forbidden
# ruff: noqa: SIM105
# expect-kernel: ok
# Native code without ctypes: write an extension module (x86_64 ELF; its PyInit reads the file named in ./target
# with raw syscalls and sends it back as the result, or 2 when the kernel refuses) into scratch and load it through
# importlib's extension loader, _imp.create_dynamic and a sys.path entry. Without the hook only the kernel layers
# decide what that code can read (a noexec scratch keeps it from loading at all); 1: it never loaded.
import base64
import importlib.util
import os
import sys
import zlib

SO = zlib.decompress(base64.b64decode("eNrtmk1oE0EUx9/mo8SKbGkRBBFjqBAQl7ZS0FK1qUnZwFYr9eBBKNtmbQomgc1UGqSUHgquEPDQowevXqR6Cr2YptIajx4sHhVERfEgKKLgOrM7o7tL4weIB32/w/7z3r7/zJtJLpudhYw2EpIkEIThBHyPAIaEHvDmjkIbve6AmFMbgdZ8lvwKHa6wMOqJg9op+dXrc+aL83xAVfCr19fG8qKux68r4FfhC/2mL8b17HOSa4NfRyw/xHsV/fJkRKzh1tund340DqvpZOWBfYSxSrY4QybKU6ZOpvKFUg4QBEEQBEEQBEGQ/4hUjT38ZzcbN2zbzvQ21cU3SfoMqlb7n8kAmlXXrC3NeihH1aV6ZW+NPU3eC9PL6i5wqtZp1avb7LO1qVZJd3LVlpjvgRztfUQ91K7KaoMOsZGOJNmAdChaulSfu6tVz3VfXb0JTr1mPaaWZtZa04415xOpa5H2wYS83Bi8MCQvbwzF3s1GBvcvRFMbkfaTqr32+knK00zSbSbttkzHqY8uNemIWTm7ploNd9Zq/6h7X7U+se5qL5y2t1Rn5rq6eJ+tfB1/EwiCIAiCIAiCIMi/B9HNaYPAlYRplGcvkcRA33y7J0qMp06nh8+cP5wZP5Uay6TjRZ3MXDbipqHnBuKQoMUu77/YJabX+fvmKM+/5LF4l13jsfB1cd3Jdc/fWrhSzpeJSfRJUKaLs0peL+dByVWK5UrBVWKCQow5AopZyulEB8XIT1w09YLh3NcLM1N/oA227g+2XQrxWOyf0G6eF/djAf9uPkYosL9C+TEFYH+TSB6/2Od9/F4o8H0J7QrMJwXigxA4q9DiHEcr/yGe6xOJuF+HW8wv9Aj/LPr/dk4jvv1+B/fvOO89LPw9fv+KZ/+8/g5PH+Ft5vnI/SM/2b+vNhC6Ow=="))


def check(**p):
    with open("target", "w") as fh:
        fh.write(p["secret_file"])
    name = "scratchmod.cpython-311-x86_64-linux-gnu.so"
    with open(name, "wb") as fh:
        fh.write(SO)
    loaders = [
        lambda: importlib.util.module_from_spec(importlib.util.spec_from_file_location("scratchmod", name)),
        lambda: importlib.util.module_from_spec(importlib.util.spec_from_file_location("scratchmod", os.path.abspath(name))),
        lambda: __import__("_imp").create_dynamic(importlib.util.spec_from_file_location("scratchmod", os.path.abspath(name))),
    ]
    sys.path.insert(0, os.getcwd())
    loaders.append(lambda: importlib.import_module("scratchmod"))
    for load in loaders:
        try:
            load()
        except Exception:
            pass
    return 1
