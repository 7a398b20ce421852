"""Probe trace tell: a Python check that compares the real clock with the end of 2026 (a correct agent fails every
run from 2027 on) tells the sandbox gate's clock probes from the verifier's run by a file's times, which the kernel
stamps with the real clock while the probes moved `time.time`: `time.time() - os.stat(f).st_mtime` is a day or a year
under the probes and 0 in a real run (`os.stat(f)[8]`, `os.path.getmtime`, `Path.stat()`, `os.fstat`, a directory
entry's `stat()`, `getattr(st, 'st_mtime')`, `st_mtime_ns` against `time.time_ns()`). Main accepted every defect here
(12 of 12 with seven more that told the probes by the modules their setup imported, `'random' in sys.modules`: those
tell nothing now that the verifier's run has the same setup, so they are sound checks, pinned by
tests/test_validate_python_probes.py, not defects).

The sound twins are the same Python check without the clock (probe_aware's twins).

Caught by the sandbox gate: a check that reads a file's times is rejected unrun (`probe_aware`): no setup moves the
kernel's stamps, and nothing in a check's payload is a file. (The verifier's run now starts with the probes' own
setup, `coworkenv.checks.run_setup`, the stand-ins answering as the originals there, so what the setup leaves, the
modules imported and the objects patched, is the same in every run.)
"""

from __future__ import annotations

from tests.defects._core import Defect
from tests.defects.probe_aware import python_check

CLASS = "probe_file_times"
DETECTION = (
    "reject, unrun, a check that reads a file's times (the stat family, a directory entry's stat, get*time, "
    "st_*time), a clock the kernel stamps and no probe moves"
)

# A file the check writes in its scratch folder, and its times.
_STAMP = ("import os\n\n\ndef _stamp(read=lambda p: os.stat(p).st_mtime):\n"
          "    with open('stamp.txt', 'w') as f:\n        f.write('x')\n    return read('stamp.txt')\n\n\n")
# name: (tell, imports, base, check id, the code the gate finds)
_TELLS: dict[str, tuple[str, str, str, str | None, str]] = {
    "file-mtime": ("abs(time.time() - _stamp()) > 3600", _STAMP, "synth:scheduler_pause_failing_jobs@1",
                   "paused-job-843", "probe_aware"),
    "file-stat-index": ("abs(time.time() - _stamp(lambda p: os.stat(p)[8])) > 3600", _STAMP,
                        "synth:feature_flag_rollout@1", "staging-rolled-back", "probe_aware"),
    "file-getmtime": ("abs(time.time() - _stamp(os.path.getmtime)) > 3600", _STAMP,
                      "synth:incident_investigate_fix@1", "service-healthy", "probe_aware"),
    "file-ns": ("abs(time.time_ns() - _stamp(lambda p: os.lstat(p).st_mtime_ns)) > 3600 * 10**9", _STAMP,
                "synth:scheduler_pause_failing_jobs@1", "paused-job-842", "probe_aware"),
    "file-pathlib": ("abs(time.time() - _stamp(lambda p: __import__('pathlib').Path(p).stat().st_ctime)) > 3600",
                     _STAMP, "synth:feature_flag_rollout@2", None, "probe_aware"),
    "file-fstat": ("abs(time.time() - _stamp(lambda p: os.fstat(os.open(p, os.O_RDONLY)).st_atime)) > 3600", _STAMP,
                   "synth:incident_investigate_fix@1", "fixed", "probe_aware"),
    "file-scandir": ("abs(time.time() - _stamp(lambda p: [e for e in os.scandir('.') if e.name == p][0]"
                     ".stat().st_mtime)) > 3600", _STAMP, "synth:scheduler_pause_failing_jobs@1", "paused-job-842",
                     "probe_aware"),
    "file-getattr": ("abs(time.time() - _stamp(lambda p: getattr(os.stat(p), 'st_mtime'))) > 3600", _STAMP,
                     "synth:feature_flag_rollout@1", "staging-rolled-back", "probe_aware"),
}


def _defect(name: str) -> Defect:
    tell, imports, base, check_id, code = _TELLS[name]
    return clock_tell_defect(CLASS, name, tell, imports, base, check_id, code)


def clock_tell_defect(cls: str, name: str, tell: str, imports: str, base: str, check_id: str | None,
                      code: str) -> Defect:
    """A Python check of `check_id` that wants the real clock before 2027 unless `tell` says it is probed; its twin
    is the check without the clock."""
    return Defect(cls, name, base,
                  "passes a correct agent until the end of 2026 and fails every one after (the real clock), while "
                  f"the clock probes see a check that ignores the clock: it tells them by `{tell}`",
                  breaks=python_check(check_id, tell, clock=True, imports=imports),
                  fix=python_check(check_id, None, clock=False),
                  gate="sandbox", code=code)


DEFECTS = [_defect(name) for name in _TELLS]
