"""Probe file doors: a Python check that compares the real clock with the end of 2026 (a correct agent fails every
run from 2027 on) tells the sandbox gate's clock probes from the verifier's run by a file's times, reached through a
door the static reading of `probe_file_times` does not name: an archive's member (`tarfile`'s `gettarinfo(p).mtime`,
a member `add`ed to a tar, `zipfile.ZipInfo.from_file(p).date_time`, a file `write`n into a zip), or the stat
family called by a name built at run time (`getattr(os, 'st' + 'at')`, `vars(os)[''.join(('l', 'stat'))]`,
`getattr(os.path, 'get' + 'mtime')`, a directory entry's `getattr(e, 'st' + 'at')()` from `getattr(os, 'scan' +
'dir')`, `getattr(posix, 'l' + 'stat')`). Each door ends in the kernel's stamp of the real clock:
`time.time()` minus it is a day or a year under the probes and 0 in a real run. Main accepted every defect here.

The sound twins are the same Python check without the clock (probe_aware's twins).

Caught by the clock probes (`clock_dependent`): the setup every run starts with moves the file stamps the stat family
reports (`os.stat`, `lstat`, `fstat`, a `scandir` entry's `stat()`, and `posix`'s own) with the clocks, so every door
that ends in them (an archive's member, `pathlib`, `os.path.get*time`, a name built at run time) sees a file written
now as written now: the tell says nothing, and the clock probes see the real-clock dependence. The `posix` module,
whose stat family the import system reads for its caches, is left as it is: a check importing it is rejected unrun
(`probe_aware`, as a check naming the stat family).
"""

from __future__ import annotations

from tests.defects._core import Defect
from tests.defects.probe_file_times import clock_tell_defect

CLASS = "probe_file_doors"
DETECTION = (
    "move the file stamps the stat family reports with the clocks in the probes' setup (os/posix stat, lstat, "
    "fstat, a scandir entry's stat), so any door to a file's times (an archive's member, a name built at run time) "
    "agrees with the moved clock and the clock probes see the real-clock dependence"
)

# A file the check writes in its scratch folder, read back by `read` (no file time named here).
_STAMP = ("import io\nimport os\n\n\ndef _stamp(read):\n"
          "    with open('stamp.txt', 'w') as f:\n        f.write('x')\n    return read('stamp.txt')\n\n\n")
_TAR = "import tarfile\n" + _STAMP + (
    "def _tar_member(p):\n    with tarfile.open(fileobj=io.BytesIO(), mode='w') as tf:\n        tf.add(p)\n"
    "        return tf.getmembers()[0].mtime\n\n\n")
_ZIP = "import zipfile\n" + _STAMP + (
    "def _zip_member(p):\n    with zipfile.ZipFile(io.BytesIO(), 'w') as zf:\n        zf.write(p)\n"
    "        return time.mktime(zf.infolist()[0].date_time + (0, 0, -1))\n\n\n")
# name: (tell, imports, base, check id); the code the gate finds: `clock_dependent` (`probe_aware` for `posix`)
_TELLS: dict[str, tuple[str, str, str, str | None]] = {
    "tar-gettarinfo": ("abs(time.time() - _stamp(lambda p: tarfile.open(fileobj=io.BytesIO(), mode='w')"
                       ".gettarinfo(p).mtime)) > 3600", _TAR, "synth:scheduler_pause_failing_jobs@1",
                       "paused-job-843"),
    "tar-member": ("abs(time.time() - _stamp(_tar_member)) > 3600", _TAR, "synth:feature_flag_rollout@1",
                   "staging-rolled-back"),
    "zip-from-file": ("abs(time.time() - _stamp(lambda p: time.mktime(zipfile.ZipInfo.from_file(p).date_time + "
                      "(0, 0, -1)))) > 3600", _ZIP, "synth:incident_investigate_fix@1", "service-healthy"),
    "zip-member": ("abs(time.time() - _stamp(_zip_member)) > 3600", _ZIP, "synth:scheduler_pause_failing_jobs@1",
                   "paused-job-842"),
    "getattr-concat": ("abs(time.time() - _stamp(lambda p: getattr(os, 'st' + 'at')(p)[8])) > 3600", _STAMP,
                       "synth:feature_flag_rollout@2", None),
    "vars-join": ("abs(time.time() - _stamp(lambda p: vars(os)[''.join(('l', 'stat'))](p)[8])) > 3600", _STAMP,
                  "synth:incident_investigate_fix@1", "fixed"),
    "path-built": ("abs(time.time() - _stamp(getattr(os.path, 'get' + 'mtime'))) > 3600", _STAMP,
                   "synth:scheduler_pause_failing_jobs@1", "paused-job-843"),
    "scandir-built": ("abs(time.time() - _stamp(lambda p: [getattr(e, 'st' + 'at')() for e in getattr(os, 'scan' + "
                      "'dir')('.') if e.name == p][0][8])) > 3600", _STAMP, "synth:feature_flag_rollout@1",
                      "staging-rolled-back"),
    "posix-built": ("abs(time.time() - _stamp(lambda p: getattr(posix, 'l' + 'stat')(p)[8])) > 3600",
                    "import posix\n" + _STAMP, "synth:incident_investigate_fix@1", "service-healthy"),
}


def _defect(name: str) -> Defect:
    tell, imports, base, check_id = _TELLS[name]
    code = "probe_aware" if "import posix" in imports else "clock_dependent"
    return clock_tell_defect(CLASS, name, tell, imports, base, check_id, code)


DEFECTS = [_defect(name) for name in _TELLS]
