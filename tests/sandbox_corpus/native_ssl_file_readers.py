# expect: ok|forbidden
# ruff: noqa: SIM105, SIM115
# expect-kernel: ok
# value: 1
# Host files read by a C library with no audit event: OpenSSL decoding a certificate file or loading a CA bundle
# from outside the standard library.


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + what[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + what[:150]


def check(**p):
    certs = ["/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/cert.pem"]
    try:
        import _ssl
        for path in certs:
            try:
                return leak(f"decoded {path}: {_ssl._test_decode_cert(path).get('subject')}")
            except Exception:
                pass
        import ssl
        for path in certs:
            try:
                context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
                context.load_verify_locations(cafile=path)
                if context.cert_store_stats()["x509"]:
                    return leak(f"loaded CA bundle {path}")
            except Exception:
                pass
    except Exception:
        pass
    return 1
