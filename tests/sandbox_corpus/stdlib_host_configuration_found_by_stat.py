# expect: ok
# expect-kernel: ok
# value: 1
# A false positive, not an escape: standard-library modules that pick host configuration files by their existence
# (`os.path.isfile`, no audit event) and then read them: `mimetypes.init()` (through `guess_type`,
# `guess_extension`) reads the first of its `knownfiles` the host has (/etc/mime.types), which the hook (or
# Landlock) refused where there is no minimal root (whose root holds no /etc/mime.types): a check's outcome that
# depended on the machine. Every set must answer with the standard library's own tables, as the full set does.
def check(**p):
    import mimetypes

    found = (mimetypes.guess_type("report.json")[0], mimetypes.guess_type("a.tar.gz"),
             mimetypes.guess_extension("text/html"))
    db = mimetypes.MimeTypes()
    found += (db.guess_type("x.png")[0],)
    return 1 if found == ("application/json", ("application/x-tar", "gzip"), ".html", "image/png") else repr(found)
