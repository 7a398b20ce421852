"""Fault corpus, `coworkenv serve --mcp --token-file PATH` given a file that already exists: a `.env` file, a spec,
the user's notes in one line, a YAML config, binary data, the harness's own token file while
$COWORKENV_HARNESS_TOKEN holds another token.

Many tools read a token from a `--token-file`; this one writes the harness token there. On main it wrote over
whatever the path named, without a word: the `.env` file (and the keys in it), the spec or the notes were replaced
by a random token, and a harness's own token file by another token. Now a file that holds anything but a token is
refused before the server starts, naming it and what to pass; a file holding a token is served again rather than
replaced, and one holding another token than the variable is refused (`coworkenv/cli/serve.py: _token_held`).
Regression guards: a missing or empty file is written as before, one holding the variable's token is left as it
is, and a folder is refused.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.faults.harness import ROOT, refused

SERVE = ["serve", "incident_rollback", "--mcp", "--token-file"]
TOKEN_ENV = "COWORKENV_HARNESS_TOKEN"

EXISTING = {
    "env-file": (b"HF_TOKEN=hf_exampleexampleexample\nCOWORKENV_LLM_URL=http://127.0.0.1:8000/v1\n",
                 "does not hold a harness token (77 bytes, 2 line"),
    "spec-json": ((ROOT / "coworkenv" / "examples" / "incident_rollback.json").read_bytes(),
                  "does not hold a harness token"),
    "notes-one-line": (b"remember to rotate the keys on Friday\n", "does not hold a harness token (38 bytes, 1 line"),
    "yaml-config": (b"model:\n  name: tiny\n", "does not hold a harness token (20 bytes, 2 line"),
    "binary": (bytes(range(256)) * 4, "does not hold a harness token"),
    "over-4-kib": (b"x" * 5000, "over 4096 bytes"),
}


@pytest.mark.parametrize("case", sorted(EXISTING))
def test_an_existing_file_that_holds_no_token_is_refused_and_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  case: str) -> None:
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    data, needle = EXISTING[case]
    path = tmp_path / "file"
    path.write_bytes(data)
    refused([*SERVE, str(path)], f"--token-file {path}", needle, "pass a path that does not exist")
    assert path.read_bytes() == data


def test_guard_a_folder_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression guard: main refused a folder too ("cannot write ...: Is a directory"), exit 1; now exit 2."""
    from typer.testing import CliRunner

    from coworkenv.cli import app

    monkeypatch.delenv(TOKEN_ENV, raising=False)
    (tmp_path / "folder" / "inside").mkdir(parents=True)
    result = CliRunner().invoke(app, [*SERVE, str(tmp_path / "folder")])
    lines = [line for line in result.output.splitlines() if line.startswith("error: ")]
    assert result.exit_code in (1, 2) and len(lines) == 1 and str(tmp_path / "folder") in lines[0], result.output
    assert [p.name for p in (tmp_path / "folder").iterdir()] == ["inside"]


def test_another_token_than_the_variables_is_refused_and_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The harness's own token file, while the variable holds another token: main replaced the file's token."""
    monkeypatch.setenv(TOKEN_ENV, "the-token-of-the-variable-0123456789")
    path = tmp_path / "token"
    path.write_bytes(b"the-harness-own-token-9876543210\n")
    refused([*SERVE, str(path)], f"--token-file {path} holds another token than ${TOKEN_ENV}", "unset")
    assert path.read_bytes() == b"the-harness-own-token-9876543210\n"


def _serve(path: Path, token: str | None) -> subprocess.CompletedProcess[str]:
    """The server on stdio with its input closed: it starts, finds no client and ends (exit 0)."""
    env = {k: v for k, v in os.environ.items() if k != TOKEN_ENV} | ({TOKEN_ENV: token} if token else {})
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run([sys.executable, "-c", "from coworkenv.cli import app; app()", *SERVE, str(path)],
                          cwd=ROOT, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120,
                          check=False)


@pytest.mark.parametrize("case", ["missing", "empty", "earlier-run", "same-as-variable"])
def test_a_missing_empty_or_token_file_is_served(tmp_path: Path, case: str) -> None:
    """A token file of an earlier run, or the harness's own, with the variable unset (`earlier-run`): main replaced
    its token by a new one, so a harness holding the file's token could not read the score; now it is served and
    left as it is. Regression guards (3): a missing or empty file gets the token (mode 0600); a file holding the
    variable's token is left as it is."""
    path = tmp_path / "token"
    variable = "the-token-of-the-variable-0123456789" if case == "same-as-variable" else None
    if case == "empty":
        path.write_bytes(b"")
    if case == "earlier-run":
        path.write_bytes(b"an-earlier-runs-token_abcdefgh")
    if case == "same-as-variable":
        path.write_bytes(variable.encode())  # type: ignore[union-attr]
    before = path.read_bytes() if case in ("earlier-run", "same-as-variable") else None
    done = _serve(path, variable)
    assert done.returncode == 0 and "error:" not in done.stderr, done.stderr
    if before is not None:
        assert path.read_bytes() == before
    else:
        assert len(path.read_text().strip()) >= 16 and path.stat().st_mode & 0o077 == 0
