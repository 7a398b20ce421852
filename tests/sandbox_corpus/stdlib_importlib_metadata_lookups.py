# expect: ok
# expect-kernel: ok
# value: 1
# A false positive, not an escape: importlib.metadata lists every entry of sys.path, python3XX.zip among them (no
# folder; absent in most installations): `distributions()`, `version()`, `entry_points()` and
# `packages_distributions()` were forbidden in every set with the hook (listing and reading it). Every set must
# answer, and find no host package (the host's site-packages stays out of reach).
import importlib.metadata as metadata


def check(**p):
    found = [d.metadata["Name"] for d in metadata.distributions()]
    try:
        metadata.version("pip")
    except metadata.PackageNotFoundError:
        pass
    else:
        found.append("pip")
    points, owners = metadata.entry_points(), metadata.packages_distributions()
    if found or len(points) or owners:
        return "SANDBOX-ESCAPED host packages: " + repr((found, owners))[:300]
    return 1
