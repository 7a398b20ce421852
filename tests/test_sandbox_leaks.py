"""Nothing a sandboxed run leaves behind reaches a later run, and native code written to scratch never loads.

Cross-run leakage needs two calls (spec A writes, spec B looks), so it lives here rather than in the one-call
corpus; it runs in the same four modes as the corpus: every layer, without the privileged ones, kernel layers
alone (no audit hook) and without Landlock.
"""

from __future__ import annotations

import os
import tempfile
import uuid
from pathlib import Path

import pytest

from coworkenv import sandbox
from coworkenv.sandbox import SandboxLimits, isolation_layers

CORPUS = Path(__file__).with_name("sandbox_corpus")
DEGRADED = frozenset({"netns", "mountns", "uid"})
MODES = {"full": frozenset(), "degraded": DEGRADED, "kernel-only": DEGRADED | {"hook"},
         "no-landlock": DEGRADED | {"landlock"}}
# Places a run could write to that outlive it; the reader also lists them.
PLACES = [".", "..", "/tmp", "/var/tmp", "/dev/shm", "/run/shm", "/run/lock", "/dev/mqueue", tempfile.gettempdir()]

WRITER = '''
import os
def check(tag, places):
    written = []
    for place in places:
        for name in (tag, "." + tag):
            try:
                with open(os.path.join(place, name), "w") as fh:
                    fh.write(tag)
                written.append(place)
            except Exception:
                pass
    os.environ[tag] = tag
    return written
'''
READER = '''
import os
def check(tag, places):
    found = []
    for place in places:
        try:
            names = os.listdir(place)
        except Exception:
            names = []
        for name in (tag, "." + tag):
            if name in names:
                found.append(place)
            try:
                with open(os.path.join(place, name)) as fh:
                    found.append(place + ": " + fh.read())
            except Exception:
                pass
    if os.environ.get(tag):
        found.append("environment")
    return found
'''


@pytest.mark.parametrize("mode", MODES, ids=list(MODES))
def test_a_later_run_finds_nothing_an_earlier_run_left(mode: str) -> None:
    if mode == "kernel-only" and not {"landlock", "seccomp"} <= set(isolation_layers()):
        pytest.skip("this machine does not allow Landlock and seccomp")
    tag = "coworkenv-leak-" + uuid.uuid4().hex
    payload = {"tag": tag, "places": PLACES}
    limits = SandboxLimits(cpu_seconds=1, wall_seconds=3.0)
    try:
        sandbox._execute(WRITER, "check", payload, limits, disable=MODES[mode])
        reader = sandbox._execute(READER, "check", payload, limits, disable=MODES[mode]).result
        assert reader.error_kind in (None, "forbidden"), reader
        assert not reader.value, f"run B found what run A left: {reader.value}"
        for place in ("/tmp", "/var/tmp", "/dev/shm", tempfile.gettempdir()):
            assert not os.path.lexists(os.path.join(place, tag)), f"run A left {tag} in the host's {place}"
    finally:
        for place in ("/tmp", "/var/tmp", "/dev/shm", tempfile.gettempdir()):
            for name in (tag, "." + tag):
                Path(place, name).unlink(missing_ok=True)


def test_native_code_written_to_scratch_never_loads_even_without_the_audit_hook(tmp_path: Path) -> None:
    """The scratch tmpfs is mounted noexec: an extension module the code wrote there cannot be mapped, so its
    native code (which would answer 2, or the file it read) never runs."""
    if not {"scratch-tmpfs", "landlock"} <= set(isolation_layers()) or os.uname().machine != "x86_64":
        pytest.skip("needs the tmpfs scratch, Landlock and an x86_64 machine (the module is an x86_64 ELF)")
    secret = tmp_path / "token"
    secret.write_text("not for the sandbox")
    code = (CORPUS / "native_extension_module_from_scratch.py").read_text()
    outcome = sandbox._execute(code, "check", {"secret_file": str(secret)}, SandboxLimits(), disable=frozenset({"hook"}))
    assert outcome.result.ok and outcome.result.value == 1, outcome
