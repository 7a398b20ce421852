# expect: ok
# expect-kernel: ok
# The environment is empty: whatever comes back must not hold the host's secret.
import os


def check(**p):
    return {"environ": dict(os.environ), "secret": os.environ.get(p["secret_name"])}
