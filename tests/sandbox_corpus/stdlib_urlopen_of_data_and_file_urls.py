# expect: ok
# expect-kernel: ok
# value: 1
# A false positive, not an escape: `urllib.request.urlopen` of a `data:` URL (an inline fixture) or of a `file:` URL
# of a scratch file (a grader's own fetch helper pointed at a local copy) reads nothing beyond the scratch: the hook
# refused every `urllib.Request`, so both were `forbidden` in every set with the hook and worked with the kernel layers
# alone. Now only other schemes are refused; a `file:` URL's open is judged as any `open` (`urlopen_of_host_files_and_other_schemes`).
def check(**p):
    import pathlib
    import urllib.request

    pathlib.Path("fixture.json").write_text('{"a": 1}')
    with urllib.request.urlopen("data:text/plain;base64,aGk=") as r:
        inline = r.read().decode()
    with urllib.request.urlopen(pathlib.Path("fixture.json").resolve().as_uri()) as r:
        local = r.read().decode()
    with urllib.request.urlopen(urllib.request.Request("DATA:,plain")) as r:
        upper = r.read().decode()
    found = [inline, local, upper]
    return 1 if found == ["hi", '{"a": 1}', "plain"] else repr(found)
