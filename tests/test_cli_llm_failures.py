"""LLM outages are reported, never passed off as results: exit codes, counts and messages of every command that
talks to a server (synth, validate, rollout, eval, env run), against the fault-injecting fake server.

Exit codes: 2 for a URL the caller must fix, 3 for a server that is not there or failed requests after retries.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from coworkenv.cli import app
from coworkenv.examples import example_names, load_example
from coworkenv.store.stages import read_trajectories
from tests.support.fake_openai_server import FakeOpenAIServer

ROOT = Path(__file__).resolve().parents[1]
TAXONOMY = str(ROOT / "taxonomy")
CAPABILITY = "adapt_announced_change"
FAST = ["--llm-timeout", "0.3", "--llm-retries", "1"]
runner = CliRunner()


@pytest.fixture
def refused_url() -> str:
    """A loopback URL where nothing listens (the port was just free)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


@pytest.fixture
def silent_url() -> Iterator[str]:
    """A loopback URL that accepts connections and never answers (the kernel queues them; nobody reads)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


@pytest.fixture
def envs(tmp_path: Path) -> Path:
    folder = tmp_path / "envs"
    folder.mkdir()
    pq.write_table(pa.table({"spec_json": [load_example(n).to_json() for n in example_names()]}),
                   folder / "part-0.parquet")
    return folder


def _synth(url: str, out: Path, *extra: str, n: int = 1) -> object:
    return runner.invoke(app, ["synth", "--taxonomy", TAXONOMY, "--capability", CAPABILITY, "--n", str(n),
                               "--llm", url, "--model", "fake", "--out", str(out), *extra])


def _no_traceback(result: object) -> None:
    assert "Traceback" not in result.output  # type: ignore[attr-defined]
    assert result.exception is None or isinstance(result.exception, SystemExit)  # type: ignore[attr-defined]


# -- URLs checked up front -------------------------------------------------------------------------------------
@pytest.mark.parametrize(("url", "says"), [
    ("http://127.0.0.1:99999/v1", "port '99999'"),
    ("ftp://127.0.0.1:8000/v1", "scheme 'ftp'"),
    ("http:///v1", "no host name"),
])
def test_a_bad_url_is_one_clear_line_and_exit_2(url: str, says: str, tmp_path: Path) -> None:
    result = _synth(url, tmp_path / "out")
    assert result.exit_code == 2, result.output
    assert says in result.output and "http://127.0.0.1:8000/v1" in result.output
    _no_traceback(result)


def test_nothing_listening_is_named_at_once_by_every_command(refused_url: str, envs: Path, tmp_path: Path) -> None:
    commands = {
        "synth": ["synth", "--taxonomy", TAXONOMY, "--capability", CAPABILITY, "--n", "1", "--llm", refused_url,
                  "--model", "fake", "--out", str(tmp_path / "s")],
        "validate": ["validate", str(envs), "--llm", refused_url, "--model", "fake", "--out", str(tmp_path / "v")],
        "rollout": ["rollout", str(envs), "--llm", refused_url, "--model", "fake", "--out", str(tmp_path / "r")],
        "eval": ["eval", "--llm", refused_url, "--model", "fake", "--envs", str(envs)],
        "env run": ["env", "run", "incident_rollback", "--agent", "llm", "--llm", refused_url, "--model", "fake"],
    }
    for name, args in commands.items():
        result = runner.invoke(app, args)
        assert result.exit_code == 3, (name, result.output)
        assert f"nothing listens at {refused_url}" in result.output, (name, result.output)
        _no_traceback(result)
    assert not (tmp_path / "s").exists() and not (tmp_path / "r").exists()


def test_a_server_that_never_answers_fails_the_probe_quickly(silent_url: str, tmp_path: Path) -> None:
    result = _synth(silent_url, tmp_path / "out", "--llm-timeout", "0.5")
    assert result.exit_code == 3, result.output
    assert "accepted the connection but sent no answer within 0.5s" in result.output


# -- synth: every request outcome counted ------------------------------------------------------------------------
def test_synth_whose_requests_all_hang_exits_3_naming_the_server(tmp_path: Path) -> None:
    with FakeOpenAIServer(fault_rate=1.0, fault_kinds=("hang",), hang_s=5) as server:
        result = _synth(server.url, tmp_path / "out", *FAST, n=2)
    assert result.exit_code == 3, result.output
    assert f"the LLM server {server.url} (model 'fake') answered none of the 2 generation requests" in result.output
    assert "generation lost to server errors: timeout 2" in result.output
    assert "2 retries (timeout 2)" in result.output
    assert not (tmp_path / "out").exists()  # nothing written that could pass for a result


def test_a_rejected_request_is_counted_not_lost(tmp_path: Path) -> None:
    """A 400 is not retried; the candidate it cost shows in the funnel (requested = generated + lost)."""
    with FakeOpenAIServer(schedule=["400"]) as server:
        one = _synth(server.url, tmp_path / "one", *FAST)
        assert one.exit_code == 3 and "client_error 1" in one.output and "HTTP 400 1" in one.output
        server.reset()
        two = _synth(server.url, tmp_path / "two", *FAST, "--json", n=2)
    assert two.exit_code == 0, two.output
    (row,) = json.loads(two.stdout)
    funnel = row["funnel"]
    assert funnel["requested"] == 2 and funnel["generated"] == 1
    assert funnel["generation_failures"] == {"client_error": 1}
    assert funnel["infrastructure_failures"] == {"client_error": 1} and funnel["model_failures"] == {}
    assert funnel["llm"]["http_status"] == {"400": 1}
    assert funnel["generated"] == funnel["accepted"] + sum(funnel["rejected_by_gate"].values())
    assert "failed 1 of" in two.output  # the partial loss is a warning on stderr, with the server


def test_thirty_percent_mixed_faults_are_retried_and_counted(tmp_path: Path) -> None:
    with FakeOpenAIServer(fault_rate=0.3, seed=3, hang_s=3) as server:  # 429, 500, hang and malformed bodies
        result = _synth(server.url, tmp_path / "out", "--llm-timeout", "0.5", "--llm-retries", "8", "--json", n=6)
        outcomes = server.stats()["outcomes"]
    assert result.exit_code == 0, result.output
    (row,) = json.loads(result.stdout)
    llm = row["funnel"]["llm"]
    faults = outcomes["429"] + outcomes["500"] + outcomes["malformed"] + outcomes["hang"]
    assert outcomes["hang"] and faults > 2 and llm["retries"] == faults  # every fault was retried, none lost
    assert llm["retry_reasons"] == {k: v for k, v in {"rate_limited": outcomes["429"], "server_error": outcomes["500"],
                                                      "malformed": outcomes["malformed"],
                                                      "timeout": outcomes["hang"]}.items() if v}
    assert llm["http_status"] == {k: v for k, v in {"429": outcomes["429"], "500": outcomes["500"]}.items() if v}
    assert row["funnel"]["requested"] == 6 and row["funnel"]["generation_failures"] == {}


def test_a_cut_off_generation_is_a_model_failure(tmp_path: Path) -> None:
    def cut_off(body: dict[str, object]) -> dict[str, object]:
        return {"content": '{"capability": "adapt_ann', "finish_reason": "length"}

    with FakeOpenAIServer(responder=cut_off) as server:
        result = _synth(server.url, tmp_path / "out", *FAST, "--json", n=2)
    assert result.exit_code == 0, result.output  # the server worked: the model's answers were too long
    funnel = json.loads(result.stdout)[0]["funnel"]
    assert funnel["model_failures"] == {"truncated": 2} and funnel["infrastructure_failures"] == {}
    assert funnel["llm"]["truncated"] == 2 and "model failures: truncated 2" in result.output


def test_synth_whose_repairs_all_fail_exits_3_after_writing_what_passed(tmp_path: Path) -> None:
    from tests.support.fake_openai_server import echo_responder

    def no_repairs(body: dict[str, object]) -> dict[str, object]:
        if "Validation rejected this environment" in json.dumps(body["messages"]):
            raise LookupError("injected: repairs are down")  # answered with HTTP 400
        return echo_responder(body)  # a schema-shaped answer that fails the gates, so it goes to repair

    with FakeOpenAIServer(responder=no_repairs) as server:
        result = _synth(server.url, tmp_path / "out", *FAST, n=2)
    assert result.exit_code == 3, result.output
    assert "answered none of the 6 repair requests" in result.output  # 3 rounds x 2 specs
    assert (tmp_path / "out" / f"specs-{CAPABILITY}.parquet").is_file()


# -- validate, rollout, eval, env run -------------------------------------------------------------------------
def test_validate_whose_repairs_all_fail_writes_its_tables_and_exits_3(tmp_path: Path) -> None:
    bad = json.loads(load_example("incident_rollback").to_json())
    bad["checks"][0]["rule"]["target"]["id"] = "svc-ghost"
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    with FakeOpenAIServer(fault_rate=1.0, fault_kinds=("500",)) as server:
        result = runner.invoke(app, ["validate", str(tmp_path / "bad.json"), "--llm", server.url, "--model", "fake",
                                     "--rounds", "1", "--out", str(tmp_path / "out"), *FAST])
    assert result.exit_code == 3, result.output
    assert "answered none of the 1 repair requests (server_error 1; 1 retries)" in result.output
    funnel = json.loads((tmp_path / "out" / "funnel.json").read_text())
    assert funnel["infrastructure_failures"] == {"server_error": 1} and funnel["llm"]["http_status"] == {"500": 2}


def test_rollout_against_a_failing_server_scores_nothing_and_exits_3(envs: Path, tmp_path: Path) -> None:
    with FakeOpenAIServer(fault_rate=1.0, fault_kinds=("500",)) as server:
        result = runner.invoke(app, ["rollout", str(envs), "--llm", server.url, "--model", "fake", "--json",
                                     "--k", "1", "--out", str(tmp_path / "traj"), *FAST])
    assert result.exit_code == 3, result.output
    summary = json.loads(result.stdout)
    n = len(example_names())
    assert summary["episodes"] == 0 and summary["mean_score"] is None and summary["path"] is None
    assert summary["infrastructure_failures"] == n and summary["infrastructure_failure_kinds"] == {"server_error": n}
    assert f"the LLM server {server.url} (model 'fake') failed all {n} episodes" in result.output
    assert not (tmp_path / "traj").exists()


def test_rollout_keeps_episodes_that_ran_and_exits_3_for_those_lost(envs: Path, tmp_path: Path) -> None:
    n = len(example_names())
    lost_request = load_example("incident_rollback").turns[0].content

    def reject_one_env(body: dict[str, object]) -> dict[str, object]:
        # The fake server answers a LookupError with HTTP 400 (not retried): this env's episode is lost.
        if any(m.get("content") == lost_request for m in body["messages"]):  # type: ignore[attr-defined]
            raise LookupError("injected: this server cannot serve that request")
        return {"content": "Done."}

    with FakeOpenAIServer(responder=reject_one_env) as server:
        result = runner.invoke(app, ["rollout", str(envs), "--llm", server.url, "--model", "fake", "--json",
                                     "--k", "1", "--out", str(tmp_path / "traj"), *FAST])
    assert result.exit_code == 3, result.output
    summary = json.loads(result.stdout)
    assert summary["infrastructure_failures"] == 1 and summary["infrastructure_failure_kinds"] == {"client_error": 1}
    assert summary["episodes"] == n - 1 and summary["llm"]["http_status"] == {"400": 1}
    records = read_trajectories(Path(summary["path"]))
    assert len(records) == n - 1 and load_example("incident_rollback").id not in {r.env_id for r in records}
    assert f"failed 1 of {n} episodes" in result.output and "injected: this server cannot serve" in result.output


def test_deprecated_teacher_url_still_works_with_a_warning(envs: Path, tmp_path: Path) -> None:
    with FakeOpenAIServer(responder=lambda body: {"content": "Done."}) as server:
        result = runner.invoke(app, ["rollout", str(envs), "--teacher", server.url, "--model", "fake",
                                     "--out", str(tmp_path / "traj")])
    assert result.exit_code == 0, result.output
    assert "--teacher URL is deprecated" in result.output and "use --llm URL --model NAME" in result.output


def test_eval_against_a_failing_server_exits_3_without_a_report(envs: Path, tmp_path: Path) -> None:
    with FakeOpenAIServer(fault_rate=1.0, fault_kinds=("malformed",)) as server:
        result = runner.invoke(app, ["eval", "--llm", server.url, "--model", "fake", "--envs", str(envs),
                                     "--out", str(tmp_path / "report"), *FAST])
    assert result.exit_code == 3, result.output
    assert f"the LLM server {server.url} (model 'fake') failed all" in result.output
    assert "malformed" in result.output and "no report written" in result.output
    assert not (tmp_path / "report").exists()


def test_eval_deprecated_model_url_is_accepted_with_a_warning(envs: Path) -> None:
    with FakeOpenAIServer(responder=lambda body: {"content": "Done."}) as server:
        result = runner.invoke(app, ["eval", "--model", server.url, "--served-model", "fake", "--envs", str(envs),
                                     "--json"])
    assert result.exit_code == 0, result.output
    assert "--model URL is deprecated" in result.output and "--served-model NAME is deprecated" in result.output


def test_env_run_plays_a_spec_with_an_llm_server(tmp_path: Path) -> None:
    with FakeOpenAIServer(responder=lambda body: {"content": "Nothing to do."}) as server:
        ok = runner.invoke(app, ["env", "run", "incident_rollback", "--agent", "llm", "--llm", server.url,
                                 "--model", "fake", "--json"])
        assert ok.exit_code == 0, ok.output
        played = json.loads(ok.stdout)
        assert played["agent"] == "llm" and played["model"] == "openai:fake" and played["stop_reason"] == "done"
        assert played["passed"] is False and {c["id"] for c in played["checks"]} == {
            c.id for c in load_example("incident_rollback").checks}
    with FakeOpenAIServer(fault_rate=1.0, fault_kinds=("500",)) as server:
        down = runner.invoke(app, ["env", "run", "incident_rollback", "--agent", "llm", "--llm", server.url,
                                   "--model", "fake", *FAST])
    assert down.exit_code == 3 and "failed all 1 episodes after its retries (server_error 1)" in down.output
    assert "\nscore " not in down.output and "no score" in down.output  # the cut episode's score is not the model's
    alone = runner.invoke(app, ["env", "run", "incident_rollback", "--agent", "llm"])
    assert alone.exit_code == 2 and "--agent llm and --llm URL go together" in alone.output
