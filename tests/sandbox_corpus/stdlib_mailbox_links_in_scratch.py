# expect: ok
# expect-kernel: ok
# value: 1
# A false positive, not an escape: seccomp refuses every link (EPERM), and the standard library falls back on that
# PermissionError: `mailbox.Maildir.add` and the dot-locking of `mbox.lock()` and `MH.lock()` rename instead of
# linking. The hook refused `os.link` and `os.symlink` by event, whatever they named, and reported it: all three were
# `forbidden` in every set with the hook and worked with the kernel layers alone. Within the scratch the hook now
# refuses a link as the kernel does, unreported; a link naming a host path (a symlink's target too), with `..` or
# relative to a directory descriptor is still refused and reported (`link_host_file_into_scratch`,
# `symlink_out_of_scratch`).
def check(**p):
    import mailbox
    import os

    maildir = mailbox.Maildir("maildir", create=True)
    key = maildir.add("Subject: first\n\nbody")
    box = mailbox.mbox("box.mbox")
    box.lock()
    box.add("Subject: second\n\nbody")
    box.flush()
    box.unlock()
    box.close()
    mh = mailbox.MH("mh", create=True)
    mh.lock()
    mh.add("Subject: third\n\nbody")
    mh.unlock()
    with open("a.txt", "w") as fh:
        fh.write("x")
    refused = []
    for make in (lambda: os.link("a.txt", "b.txt"), lambda: os.symlink("a.txt", "c.txt")):
        try:
            make()
        except PermissionError:
            refused.append("PermissionError")
    found = (maildir[key]["subject"], len(mailbox.mbox("box.mbox")), len(mh), refused, sorted(os.listdir(".")))
    expected = ("first", 1, 1, ["PermissionError"] * 2, ["a.txt", "box.mbox", "maildir", "mh"])
    return 1 if found == expected else repr(found)
