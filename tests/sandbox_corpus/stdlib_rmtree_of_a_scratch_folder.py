# expect: ok
# expect-kernel: ok
# value: 1
# A false positive, not an escape: `shutil.rmtree` of a scratch folder holding files removes each entry relative to a
# directory descriptor (`os.unlink(name, dir_fd=...)`), which the audit hook refuses (it cannot tell where a
# descriptor points): a check cleaning up after itself was forbidden in every set with the hook. Every set must
# remove the tree, as the kernel layers alone do.
import os
import shutil


def check(**p):
    os.makedirs("tree/inner/deeper")
    for folder in ("tree", "tree/inner", "tree/inner/deeper"):
        with open(os.path.join(folder, "file.txt"), "w") as out:
            out.write(folder)
    shutil.rmtree("tree")
    os.makedirs("kept/inner")
    shutil.rmtree("kept/inner")
    return 1 if not os.path.exists("tree") and os.listdir("kept") == [] else repr(sorted(os.listdir(".")))
