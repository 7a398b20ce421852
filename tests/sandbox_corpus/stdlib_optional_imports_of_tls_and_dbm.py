# expect: ok
# expect-kernel: ok
# value: 1
# A false positive, not an escape: harmless standard-library modules that import ssl optionally (catching ImportError,
# as on a Python built without OpenSSL) were refused where Landlock is missing (`http.client`, `urllib.request`,
# `xmlrpc.client`, `smtplib`, `ftplib`), and `dbm.open`, which falls back to `dbm.dumb` where no gdbm or ndbm is
# built, was refused in every set (`_dbm` refused by name). Every set must answer them.
def check(**p):
    import http.client  # noqa: F401
    import smtplib  # noqa: F401
    import urllib.request
    import xmlrpc.client

    url = urllib.request.pathname2url("/a b/c")
    text = xmlrpc.client.dumps((1, "two"))
    import dbm

    with dbm.open("scores", "c") as db:
        db[b"alice"] = b"3"
    with dbm.open("scores", "r") as db:
        score = db[b"alice"]
    found = (url, "<int>1</int>" in text, score)
    return 1 if found == ("/a%20b/c", True, b"3") else repr(found)
