# expect: forbidden
# expect-kernel: ok
# value: 1
# The hook lets `urlopen` of `data:` and `file:` URLs through; a `file:` URL must still not read a host file (its
# `open` judged as any), nor name a host (`file://host/...` looks it up: refused), and other schemes, a scheme in
# capitals, a Request whose URL poses as `data:` while its type is `http`, stay refused.
def check(**p):
    import urllib.request

    class Posing(urllib.request.Request):
        @property
        def full_url(self):
            return "data:,x"

        @full_url.setter
        def full_url(self, value):
            self._full_url = value
            self._parse()  # its type and host: http, 127.0.0.1

    secret = p["secret_file"]
    found = []
    for url in (f"file://{secret}", f"FILE://localhost{secret}", f"file://example.org{secret}",
                "http://127.0.0.1:1/", "ftp://127.0.0.1/x", Posing("http://127.0.0.1:1/")):
        try:
            with urllib.request.urlopen(url, timeout=1) as r:
                found.append(r.read()[:100])
        except Exception:
            pass
    if any(b"SANDBOX" in data or data for data in found):
        return "SANDBOX-ESCAPED " + repr(found)[:150]
    return 1
