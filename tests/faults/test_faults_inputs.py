"""Fault corpus, inputs: damaged Parquet read by every command and reader that takes it, spec files in odd encodings,
tables of another shape, a damaged store, settings that cannot be used, and secrets in URLs. Each is refused with
one line naming the file (and row, line, column, key or variable) and what to do; nothing is written, nothing is
skipped silently."""

from __future__ import annotations

import errno
import json
import os
import re
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from coworkenv import atomic
from coworkenv.atomic import WriteError
from coworkenv.cli import app
from coworkenv.examples import load_example
from coworkenv.store import latest, read_table, write_table
from coworkenv.store.stages import (
    StageError,
    read_sft,
    read_specs,
    read_trajectories,
    sft_files,
)
from pipelines.resources import CoworkenvSettings, SettingsError, env_var, settings_from_env
from tests.faults.harness import refused, snapshot, spec_folder, stage_inputs

runner = CliRunner()
SPEC = load_example("meeting_reschedule")




# -- damaged Parquet, for every command that reads it --------------------------------------------------------------
def _truncate(data: bytes) -> bytes:
    return data[: len(data) // 2]


def _cut_footer(data: bytes) -> bytes:
    return data[:-12]


def _flip_pages(data: bytes) -> bytes:  # the footer reads; the pages do not
    return data[:8] + bytes(b ^ 0x5A for b in data[8: len(data) // 2]) + data[len(data) // 2:]


def _empty(data: bytes) -> bytes:
    return b""


DAMAGE: dict[str, Callable[[bytes], bytes]] = {
    "truncated": _truncate, "no footer": _cut_footer, "pages flipped": _flip_pages, "empty": _empty}


@pytest.fixture(scope="module")
def stage_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return stage_inputs(tmp_path_factory.mktemp("stages"))


def _damaged_copy(stage_files: dict[str, Path], stage: str, damage: str, where: Path) -> tuple[Path, Path]:
    """A copy of a stage's input with its (first) Parquet file damaged: (what to pass, the damaged file)."""
    source = stage_files[stage]
    if source.is_file():
        target = where / source.name
        target.write_bytes(DAMAGE[damage](source.read_bytes()))
        return target, target
    folder = where / stage
    folder.mkdir()
    files = sorted(source.glob("*.parquet"))
    for file in files:
        (folder / file.name).write_bytes(file.read_bytes())
    # The first file the stage's reader reads: an SFT folder may hold test-split shards that sort first.
    read = sft_files(source) if stage == "sft" else files
    damaged = folder / read[0].name
    damaged.write_bytes(DAMAGE[damage](damaged.read_bytes()))
    return folder, damaged


COMMANDS: dict[str, tuple[str, Callable[[Path, Path], list[str]]]] = {
    "env run": ("specs", lambda given, out: ["env", "run", str(given)]),
    "rollout": ("specs", lambda given, out: ["rollout", str(given), "--out", str(out)]),
    "validate": ("specs", lambda given, out: ["validate", str(given), "--out", str(out)]),
    "curate": ("traj", lambda given, out: ["curate", str(given), "--out", str(out)]),
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_names_a_damaged_parquet_file_and_writes_nothing(
        stage_files: dict[str, Path], tmp_path: Path, command: str, damage: str) -> None:
    stage, args = COMMANDS[command]
    given, damaged = _damaged_copy(stage_files, stage, damage, tmp_path)
    out = tmp_path / "out"
    refused(args(given, out), str(damaged))
    assert snapshot(out) == {}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_library_readers_name_a_damaged_file(stage_files: dict[str, Path], tmp_path: Path, damage: str) -> None:
    given, damaged = _damaged_copy(stage_files, "specs", damage, tmp_path)
    with pytest.raises(StageError, match=re.escape(str(damaged))):
        read_specs(given)
    given, damaged = _damaged_copy(stage_files, "traj", damage, tmp_path)
    with pytest.raises(StageError, match=re.escape(str(damaged))):
        read_trajectories(given)
    given, damaged = _damaged_copy(stage_files, "sft", damage, tmp_path)
    with pytest.raises(StageError, match=re.escape(str(damaged))):
        read_sft(sft_files(given))


# -- tables of another shape ---------------------------------------------------------------------------------------
def _reshaped(source: Path, target: Path, change: str, column: str) -> Path:
    table = pq.read_table(source)
    if change == "missing":
        table = table.drop_columns([column])
    elif change == "wrong type":
        index = table.schema.get_field_index(column)
        table = table.set_column(index, column, pa.array(range(table.num_rows), pa.int64()))
    target.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, target)
    return target


@pytest.mark.parametrize("change", ["missing", "wrong type"])
@pytest.mark.parametrize(("stage", "column", "read"), [
    ("specs", "spec_json", read_specs),
    ("traj", "messages", read_trajectories),
    ("traj", "env_id", read_trajectories),
    ("sft", "messages", lambda path: read_sft(sft_files(path))),
])
def test_a_stage_file_of_another_shape_names_the_file_and_column(
        stage_files: dict[str, Path], tmp_path: Path, stage: str, column: str, read: Callable[[Path], object],
        change: str) -> None:
    source = stage_files[stage]
    first = source if source.is_file() else sorted(source.glob("*.parquet"))[0]
    bad = _reshaped(first, tmp_path / stage / first.name, change, column)
    with pytest.raises(StageError) as caught:
        read(bad.parent if stage != "specs" else bad)
    assert str(bad) in str(caught.value) and column in str(caught.value)


def test_curate_names_the_column_a_trajectory_file_lacks(stage_files: dict[str, Path], tmp_path: Path) -> None:
    first = sorted(stage_files["traj"].glob("*.parquet"))[0]
    bad = _reshaped(first, tmp_path / "traj" / first.name, "missing", "env_id")
    refused(["curate", str(bad.parent), "--out", str(tmp_path / "out")], str(bad), "env_id")


@pytest.mark.parametrize(("stage", "column"), [("specs", "spec_json"), ("traj", "env_id"), ("traj", "messages")])
def test_a_column_that_appears_twice_is_refused_not_guessed(stage_files: dict[str, Path], tmp_path: Path,
                                                            stage: str, column: str) -> None:
    source = stage_files[stage]
    first = source if source.is_file() else sorted(source.glob("*.parquet"))[0]
    table = pq.read_table(first)
    bad = tmp_path / stage / first.name
    bad.parent.mkdir()
    pq.write_table(pa.Table.from_arrays([*table.columns, table.column(column)], names=[*table.column_names, column]),
                   bad)
    args = {"specs": ["rollout", str(bad)], "traj": ["curate", str(bad.parent)]}[stage]
    refused([*args, "--out", str(tmp_path / "out")], str(bad), f"{column!r} appears more than once")
    assert snapshot(tmp_path / "out") == {}


@pytest.mark.parametrize("column", ["env_id", "messages"])
def test_trajectory_rows_without_an_env_or_a_conversation_arerefused(stage_files: dict[str, Path],
                                                                      tmp_path: Path, column: str) -> None:
    first = sorted(stage_files["traj"].glob("*.parquet"))[0]
    table = pq.read_table(first)
    index = table.schema.get_field_index(column)
    emptied = table.set_column(index, column, pa.nulls(table.num_rows, table.schema.field(column).type))
    bad = tmp_path / "traj" / first.name
    bad.parent.mkdir()
    pq.write_table(emptied, bad)
    out = tmp_path / "out"
    line = refused(["curate", str(bad.parent), "--out", str(out)], "no " + column.removesuffix("_id"))
    assert str(bad) in line or "env-" in line  # the file, or the envs of the rows
    with pytest.raises((StageError, FileNotFoundError)):  # nothing a trainer would take for a whole split
        sft_files(out)


# -- spec files in odd encodings -----------------------------------------------------------------------------------
def test_a_spec_with_a_byte_order_mark_reads_like_one_without(tmp_path: Path) -> None:
    plain, marked = tmp_path / "plain.json", tmp_path / "marked.json"
    plain.write_text(SPEC.to_json(), encoding="utf-8")
    marked.write_bytes(b"\xef\xbb\xbf" + SPEC.to_json().encode())
    assert read_specs(marked) == read_specs(plain)
    lines = tmp_path / "lines.jsonl"
    lines.write_bytes(b"\xef\xbb\xbf" + SPEC.to_json().encode() + b"\r\n")
    assert read_specs(lines) == read_specs(plain)


def test_a_spec_that_is_not_utf8_names_the_byte_and_line(tmp_path: Path) -> None:
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(SPEC.to_json().encode() + b"\n" + '{"note": "café"}'.encode("latin-1") + b"\n")
    refused(["env", "run", str(path)], str(path), "not UTF-8", "line 2", "save the file as UTF-8")


@pytest.mark.parametrize("where", ["top level", "nested"])
def test_a_duplicate_key_is_named_not_resolved_silently(tmp_path: Path, where: str) -> None:
    text = SPEC.to_json()
    if where == "top level":
        text = text[:-1] + ', "capability": "other"}'
        key = "capability"
    else:
        text = text.replace('"world":{', '"world":{"apps":{},', 1) if '"world":{"apps"' in text else \
            text.replace('{', '{"user": {"name": "a", "name": "b"},', 1)
        key = "apps" if '"world":{"apps":{},' in text else "name"
    path = tmp_path / "dup.json"
    path.write_text(text)
    refused(["env", "run", str(path)], str(path), f"key {key!r} appears twice")


def test_a_line_separator_inside_a_jsonl_string_is_not_a_line_break(tmp_path: Path) -> None:
    data = json.loads(SPEC.to_json())
    data["context"] = "first\u2028second\u0085third"
    path = tmp_path / "specs.jsonl"
    path.write_text(json.dumps(data, ensure_ascii=False) + "\n", encoding="utf-8")
    (spec,) = read_specs(path)
    assert spec.context == data["context"]


@pytest.mark.parametrize(("label", "content", "says"), [
    ("empty", b"", "not valid JSON at line 1 column 1"),
    ("nul bytes", b"\0" * 64, "not valid JSON"),
    ("a huge broken line", b'{"a": "' + b"x" * 3_000_000 + b'"\n', "not valid JSON at line 2 column 1"),
    ("nested too deep", b"[" * 200_000, "nested too deeply"),
])
def test_malformed_spec_files_get_a_short_message_naming_the_file(tmp_path: Path, label: str, content: bytes,
                                                                 says: str) -> None:
    path = tmp_path / "spec.json"
    path.write_bytes(content)
    line = refused(["env", "run", str(path)], str(path), says)
    assert len(line) < 500  # the content is not echoed back


# -- a damaged store -----------------------------------------------------------------------------------------------
def test_a_store_file_damaged_on_disk_is_named_and_never_overwritten_silently(tmp_path: Path) -> None:
    table = pa.table({"x": list(range(50))})
    stored = write_table(table, tmp_path, "ds")
    good = stored.path.read_bytes()
    damaged = _truncate(good)
    stored.path.write_bytes(damaged)
    with pytest.raises(ValueError, match=re.escape(f"{stored.path}: damaged Parquet file")):
        latest(tmp_path, "ds")
    with pytest.raises(ValueError, match="re-materialize"):
        read_table(stored.path)
    # Writing the version again moves the damaged bytes aside (evidence stays for whoever looks) and restores it.
    again = write_table(table, tmp_path, "ds")
    assert again.path == stored.path and stored.path.read_bytes() == good
    aside = [p for p in stored.path.parent.iterdir() if p.name.startswith(f"{stored.path.name}.damaged-")]
    assert [p.read_bytes() for p in aside] == [damaged]
    assert latest(tmp_path, "ds") is not None


@pytest.mark.parametrize("pointer", [b"", b"{not json", b'{"file": "../../etc/passwd", "content_hash": "x", '
                                                        b'"num_rows": 1}', b'{"file": 3}'])
def test_a_damaged_latest_pointer_is_named_with_what_to_do(tmp_path: Path, pointer: bytes) -> None:
    write_table(pa.table({"x": [1]}), tmp_path, "ds")
    (tmp_path / "ds" / "LATEST").write_bytes(pointer)
    with pytest.raises(ValueError, match=re.escape(str(tmp_path / "ds" / "LATEST")) + ".*(delete|re-materialize)"):
        latest(tmp_path, "ds")


@pytest.mark.parametrize("blocked", ["root", "dataset"])
def test_a_file_where_a_store_folder_should_be_is_named(tmp_path: Path, blocked: str) -> None:
    root = tmp_path / "store"
    if blocked == "root":
        root.write_text("a file")
    else:
        root.mkdir()
        (root / "ds").write_text("a file")
    with pytest.raises(WriteError, match="a file stands where a folder is expected") as caught:
        write_table(pa.table({"x": [1]}), root, "ds")
    assert str(root) in str(caught.value)


def test_a_folder_that_refuses_writes_keeps_the_previous_file(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "report.json"
    atomic.atomic_write_bytes(target, b"old")

    def refuse(source: object, dest: object) -> None:
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))

    monkeypatch.setattr(atomic.os, "replace", refuse)
    with pytest.raises(WriteError, match=re.escape(f"cannot write {target}: Permission denied; make {tmp_path} writable")):
        atomic.atomic_write_bytes(target, b"new")
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
@pytest.mark.parametrize("command", ["synth", "rollout"])
def test_a_read_only_out_folder_is_named(tmp_path: Path, command: str) -> None:
    out = tmp_path / "out"
    out.mkdir()
    out.chmod(0o555)
    args = {"synth": ["synth", "--out", str(out), "-c", "ticket_triage_update", "--n", "1"],
            "rollout": ["rollout", str(spec_folder(tmp_path / "in")), "--out", str(out)]}[command]
    refused(args, str(out), "writable", code=1)


# -- settings and secrets ------------------------------------------------------------------------------------------
_UNUSABLE = {int: ["abc", "1.5", "", "99999999999999999999999"], float: ["x", "nan", "inf", "-1"],
             bool: ["maybe", "2"]}


@pytest.mark.parametrize("field", sorted(f for f, info in CoworkenvSettings.model_fields.items()
                                         if info.annotation is not str))
def test_every_setting_refuses_unusable_values_naming_its_variable(field: str) -> None:
    annotation = CoworkenvSettings.model_fields[field].annotation
    for value in _UNUSABLE[annotation]:  # type: ignore[index]
        with pytest.raises(SettingsError, match=f"{env_var(field)}=") as caught:
            settings_from_env({env_var(field): value})
        assert "fix or unset the variable" in str(caught.value)


@pytest.mark.parametrize("url", ["user:hunter2secret@127.0.0.1:9/v1", "ht!tp://admin:hunter2secret@host/v1",
                                 "http://admin:hunter2secret@127.0.0.1:99999/v1",
                                 "http://127.0.0.1:9/v1?api_key=hunter2secret"])
@pytest.mark.parametrize("via", ["flag", "environment"])
def test_credentials_in_a_server_url_never_reach_the_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            url: str, via: str) -> None:
    specs = spec_folder(tmp_path / "in")
    args = ["validate", str(specs), "--out", str(tmp_path / "out"), "--model", "m", "--llm-timeout", "0.5"]
    if via == "flag":
        args += ["--llm", url]
    else:
        monkeypatch.setenv("COWORKENV_LLM_URL", url)
    result = runner.invoke(app, args)
    assert result.exit_code in (2, 3), result.output
    assert "hunter2secret" not in result.output
    assert "Traceback" not in result.output


def test_the_api_key_never_reaches_the_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COWORKENV_LLM_API_KEY", "sk-hunter2secret")
    specs = spec_folder(tmp_path / "in")
    result = runner.invoke(app, ["rollout", str(specs), "--out", str(tmp_path / "out"), "--llm",
                                 "http://127.0.0.1:9/v1", "--model", "m", "--llm-timeout", "0.5"])
    assert result.exit_code == 3 and "hunter2secret" not in result.output


@pytest.mark.parametrize("address", ["garbage here", "http://scheduler:8786", "tcp://scheduler",
                                     "tcp://scheduler:99999", "tcp://user:hunter2secret@scheduler"])
def test_an_unusable_dask_scheduler_address_is_refused_before_any_run(address: str, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    from pipelines import run as pipeline_run

    for name in CoworkenvSettings.model_fields:
        monkeypatch.delenv(env_var(name), raising=False)
    monkeypatch.setenv("COWORKENV_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path))
    monkeypatch.setenv("COWORKENV_DASK_SCHEDULER", address)
    monkeypatch.setenv("COWORKENV_TAXONOMY_DIR", str(Path(__file__).resolve().parents[2] / "taxonomy"))
    assert pipeline_run.main(["--no-train"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("error: COWORKENV_DASK_SCHEDULER=") and "tcp://HOST:PORT" in line
    assert "hunter2secret" not in line
    assert not (tmp_path / "data").exists()


def test_a_duplicate_key_in_a_taxonomy_file_is_named_with_its_line(tmp_path: Path) -> None:
    source = Path(__file__).resolve().parents[2] / "taxonomy" / "tickets.yaml"
    lines = source.read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip().startswith("multi_turn:"))
    lines.insert(at + 1, lines[at].replace("false", "true") if "false" in lines[at] else lines[at])
    folder = tmp_path / "taxonomy"
    folder.mkdir()
    (folder / "tickets.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    refused(["taxonomy", "--path", str(folder)], f"{folder / 'tickets.yaml'}:{at + 2}", "'multi_turn' appears twice")


def _texts_under(folder: Path) -> list[str]:
    """Every file under `folder` as text; Parquet as its decoded values (its bytes are compressed)."""
    texts = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        if path.suffix == ".parquet":
            texts.append(str(pq.read_table(path).to_pylist()))
        else:
            texts.append(path.read_bytes().decode("utf-8", "replace"))
    return texts


def test_secrets_of_a_real_llm_run_reach_no_output_file_or_message(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.support.fake_openai_server import FakeOpenAIServer

    monkeypatch.setenv("COWORKENV_LLM_API_KEY", "sk-hunter2apikey")
    specs = spec_folder(tmp_path / "in")
    with FakeOpenAIServer(fault_rate=0.3, seed=1, hang_s=1) as server:
        url = server.url.replace("http://", "http://admin:hunter2password@")
        fast = ["--llm", url, "--model", "fake", "--llm-timeout", "0.5", "--llm-retries", "3"]
        runs = [runner.invoke(app, ["synth", "--out", str(tmp_path / "synth"), "-c", "ticket_triage_update",
                                    "--n", "2", "--json", *fast]),
                runner.invoke(app, ["validate", str(specs), "--out", str(tmp_path / "validated"), *fast]),
                runner.invoke(app, ["rollout", str(specs), "--out", str(tmp_path / "traj"), "--k", "1", "--json",
                                    *fast])]
    for result in runs:
        assert "Traceback" not in result.output, result.output
        assert "hunter2" not in result.output
    written = [text for folder in ("synth", "validated", "traj") for text in _texts_under(tmp_path / folder)]
    assert written and not [text for text in written if "hunter2" in text]


@pytest.mark.parametrize("value", ["bogus", "landlock,bogus", "seccomp;landlock"])
def test_an_unknown_required_sandbox_layer_stops_every_command_and_the_pipeline(
        value: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A typo in COWORKENV_SANDBOX_REQUIRE stops a command before it starts, whether or not its specs carry code:
    before, only a spec with Python checks hit it (as a crash), so the typo went unnoticed on the others."""
    from pipelines import run as pipeline_run

    monkeypatch.setenv("COWORKENV_SANDBOX_REQUIRE", value)
    specs = spec_folder(tmp_path / "in")
    result = runner.invoke(app, ["validate", str(specs), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2, result.output
    (line,) = [x for x in result.output.splitlines() if x.startswith("error: ")]
    assert "COWORKENV_SANDBOX_REQUIRE" in line and "unknown sandbox isolation layer" in line
    assert not (tmp_path / "out").exists()
    for name in CoworkenvSettings.model_fields:
        monkeypatch.delenv(env_var(name), raising=False)
    monkeypatch.setenv("COWORKENV_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path))
    monkeypatch.setenv("COWORKENV_TAXONOMY_DIR", str(Path(__file__).resolve().parents[2] / "taxonomy"))
    assert pipeline_run.main(["--no-train"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("error: COWORKENV_SANDBOX_REQUIRE") and "fix or unset" in line
    assert not (tmp_path / "data").exists()
