# expect: forbidden
# expect-kernel: ok
# value: 1
# sqlite3 URIs, which the hook judges by their path since sandbox41 (a scratch path with a mode, cache, locking or
# immutability parameter passes): a host file by an absolute path, through `///` and `//localhost`, by `..`, hidden
# behind percent escapes (sqlite decodes them itself), an authority, a VFS of the code's choosing, `modeof` (stats
# another path), a fragment or a second `?` hiding a path. Each refused by the hook (forbidden); with the kernel layers
# alone, Landlock keeps each open out of the host: nothing read, nothing made outside the scratch.
import os
import sqlite3


def check(**p):
    secret, target = p["secret_file"], p["tmp_target"]
    uris = [
        f"file:{secret}?mode=ro", f"file://{secret}?mode=ro", f"file://localhost{secret}", f"file:{target}?mode=rwc",
        f"file:../../{os.path.basename(target)}?mode=rwc", "file:" + secret.replace("/", "%2F"),
        f"file://evil{secret}", "file:app.db?vfs=unix-dotfile", f"file:app.db?modeof={secret}",
        f"file:app.db#?/{target}", f"file:app.db?mode=ro?{target}", f"file:{target}?mode=memory&x=1",
    ]
    for uri in uris:
        try:
            con = sqlite3.connect(uri, uri=True)
            rows = con.execute("select * from sqlite_master").fetchall()
            if rows:
                return f"SANDBOX-ESCAPED {uri} {rows!r}"[:200]
            con.close()
        except Exception:
            pass
    if os.path.exists(target):
        return "SANDBOX-ESCAPED a database made outside the scratch"
    return 1
