"""Fault corpus, `coworkenv synth --out D` run again after the taxonomy lost a capability D holds specs of: the
capability removed from its area file, renamed (its `id:` edited), its area file deleted, `synth -c` of another
capability after the removal, `--taxonomy` pointed at another folder, D given through a link.

On main the run wrote the taxonomy's files and left `D/specs-<old>.parquet` as it was, without a word, and every
reader of D took it with the new ones: `validate D` validated the removed (or renamed: each spec twice, under two
names) capability, and `rollout`, `curate` and training followed; the pipeline retires such a capability's partition
and data, the command line did not. Now such a run is refused before any spec is generated, naming the files, the
capabilities the taxonomy no longer defines and what to do (remove them, a new folder, or `--add` to keep them on
purpose). Regression guards: `synth -c a` then `synth -c b` into one folder (both kept), the same synth again
(its file replaced), a capability moved to another area file; and `--add` (the new option) keeping another
taxonomy's specs.
"""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from coworkenv.cli import app
from coworkenv.synth import load_taxonomy
from tests.faults.harness import ROOT, refused, snapshot
from tests.support.fake_openai_server import FakeOpenAIServer

SOURCE = load_taxonomy(ROOT / "taxonomy")
KEPT, GONE = "inbox_triage_reply", "draft_only_reply"


def _area(where: Path, name: str, *caps: tuple[str, str]) -> None:
    """An area file holding SOURCE's capabilities (quota 1), each under the id given (a renamed one keeps its
    generator, as `generator:` written beside the new id does)."""
    rows: list[dict[str, Any]] = []
    for source_id, new_id in caps:
        data = SOURCE[source_id].model_dump(mode="json")
        data.pop("area")
        rows.append({**data, "id": new_id, "generator": source_id, "quota": 1})
    where.mkdir(parents=True, exist_ok=True)
    (where / f"{name}.yaml").write_text(yaml.safe_dump({"area": name, "capabilities": rows}))


def _synth(out: Path, taxonomy: Path, *more: str) -> str:
    result = CliRunner().invoke(app, ["synth", "--out", str(out), "--taxonomy", str(taxonomy), "--n", "1", *more])
    assert result.exit_code == 0, result.output
    return result.output


CASES = ["removed from its area file", "renamed", "its area file deleted", "synth -c another after the removal",
         "another taxonomy folder", "the folder given through a link", "the folder given relative", "with --json",
         "with --llm"]


@pytest.mark.parametrize("case", CASES)
def test_a_synth_into_a_folder_holding_a_capability_the_taxonomy_no_longer_defines_is_refused(
        tmp_path: Path, case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with ExitStack() as stack:
        _refused_case(tmp_path, case, monkeypatch, stack)


def _refused_case(tmp_path: Path, case: str, monkeypatch: pytest.MonkeyPatch, stack: ExitStack) -> None:
    tax, out = tmp_path / "taxonomy", tmp_path / "specs"
    if case == "its area file deleted":
        _area(tax, "communication", (KEPT, KEPT))
        _area(tax, "drafts", (GONE, GONE))
    else:
        _area(tax, "communication", (KEPT, KEPT), (GONE, GONE))
    _synth(out, tax)
    assert (out / f"specs-{GONE}.parquet").is_file()
    target, more, gone = out, [], [f"specs-{GONE}.parquet"]
    if case == "removed from its area file":
        _area(tax, "communication", (KEPT, KEPT))
    elif case == "renamed":
        _area(tax, "communication", (KEPT, KEPT), (GONE, "draft_reply_only"))
    elif case == "its area file deleted":
        (tax / "drafts.yaml").unlink()
    elif case == "synth -c another after the removal":
        _area(tax, "communication", (KEPT, KEPT))
        more = ["-c", KEPT]
    elif case == "another taxonomy folder":
        tax = tmp_path / "other"
        _area(tax, "scheduling", ("schedule_meeting_timezones", "schedule_meeting_timezones"))
        gone = [f"specs-{GONE}.parquet", f"specs-{KEPT}.parquet", "2 capabilities"]
    elif case == "the folder given through a link":
        _area(tax, "communication", (KEPT, KEPT))
        target = tmp_path / "latest"
        target.symlink_to(out, target_is_directory=True)
    elif case == "the folder given relative":
        _area(tax, "communication", (KEPT, KEPT))
        monkeypatch.chdir(tmp_path)
        target = Path("specs")
    elif case == "with --json":
        _area(tax, "communication", (KEPT, KEPT))
        more = ["--json"]
    elif case == "with --llm":  # refused before the server is asked for anything
        _area(tax, "communication", (KEPT, KEPT))
        server = stack.enter_context(FakeOpenAIServer())
        more = ["--llm", f"{server.url}/v1", "--model", "m"]
    before = snapshot(out)
    refused(["synth", "--out", str(target), "--taxonomy", str(tax), "--n", "1", *more],
            *gone, "does not define", "--add", "new folder")
    assert snapshot(out) == before
    if case == "with --llm":
        assert server.stats()["requests"] == 0


@pytest.mark.parametrize("case", ["one capability then another", "the same synth again", "--add keeps them",
                                  "a capability moved to another area file"])
def test_a_synth_whose_folder_holds_only_the_taxonomys_capabilities_or_add_runs(tmp_path: Path, case: str) -> None:
    """Regression guards: `synth -c a` then `synth -c b` into one folder keeps both; the same synth again replaces
    its file; a capability moved to another area file is still the taxonomy's (main ran all three). `--add` keeps
    another taxonomy's specs on purpose (the new option: main had none)."""
    tax, out = tmp_path / "taxonomy", tmp_path / "specs"
    _area(tax, "communication", (KEPT, KEPT), (GONE, GONE))
    if case == "one capability then another":
        _synth(out, tax, "-c", KEPT)
        _synth(out, tax, "-c", GONE)
        expected = {f"specs-{KEPT}.parquet", f"specs-{GONE}.parquet"}
    elif case == "a capability moved to another area file":
        _synth(out, tax)
        _area(tax, "communication", (KEPT, KEPT))
        _area(tax, "drafts", (GONE, GONE))
        _synth(out, tax)
        expected = {f"specs-{KEPT}.parquet", f"specs-{GONE}.parquet"}
    elif case == "the same synth again":
        _synth(out, tax)
        first = snapshot(out)
        _synth(out, tax)
        assert snapshot(out) == first  # the same seed writes the same bytes
        expected = set(first)
    else:
        _synth(out, tax)
        other = tmp_path / "other"
        _area(other, "scheduling", ("schedule_meeting_timezones", "schedule_meeting_timezones"))
        _synth(out, other, "--add")
        expected = {f"specs-{KEPT}.parquet", f"specs-{GONE}.parquet", "specs-schedule_meeting_timezones.parquet"}
    assert {p.name for p in out.iterdir()} == expected
