# expect: ok
# expect-kernel: ok
# value: 1
# A false positive, not an escape: the standard library's own module discovery lists every folder of the standard
# library, the host's installed packages (`site-packages`, which the code may neither read nor list) among them:
# `pkgutil.iter_modules()` and `os.walk` of the standard library's folder were `forbidden` in every set with the hook
# (the listing of `site-packages` refused and reported), and answered with the kernel layers alone. That folder is
# now refused as an unreadable folder is (PermissionError, which both skip), unreported: the same modules in every
# set, and none of the host's packages.
def check(**p):
    import json
    import os
    import pkgutil

    names = {module.name for module in pkgutil.iter_modules()}
    email_parts = {module.name for module in pkgutil.iter_modules(__import__("email").__path__)}
    stdlib = os.path.dirname(os.path.dirname(json.__file__))
    walked = set()
    for top, _dirs, files in os.walk(stdlib):
        if os.path.basename(top) == "json":
            walked.update(files)
    found = ({"json", "email", "collections", "zoneinfo"} <= names, {"pip", "pytest", "setuptools"} & names,
             "utils" in email_parts, "__init__.py" in walked)
    return 1 if found == (True, set(), True, True) else repr(found)
