# expect: ok
# expect-kernel: ok
# value: 1
# A false positive, not an escape: harmless standard-library calls that import pwd or grp optionally (catching
# ImportError, as on a Python built without them) were refused where Landlock is missing, the hook refusing those
# modules by name there: `import tarfile`, `os.path.expanduser`, `http.server`. Every set
# must answer them alike, as the full set does (no account of the host is named: its lookups find nothing).
import io
import os


def check(**p):
    import tarfile

    data = b"tar me"
    buffer = io.BytesIO()
    with open("member.txt", "wb") as out:
        out.write(data)
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        archive.add("member.txt")
    buffer.seek(0)
    with tarfile.open(fileobj=buffer) as archive:
        member = archive.getmember("member.txt")
        read = archive.extractfile(member).read()
    home = os.path.expanduser("~/notes")
    import http.server  # noqa: F401
    found = (read, home, member.uname)
    # The home is the scratch (sandbox41: it was none, and "~/notes" came back unexpanded).
    return 1 if found == (data, os.path.join(os.getcwd(), "notes"), "") else repr(found)
