"""Fault corpus, a number or a switch written in a capability file or a training config in a form YAML 1.1 (PyYAML)
reads as another number, without a word: `quota: 010` (a leading 0: octal, 8), `quota: 1:30` (base 60, 90),
`max_steps: 0:24` (24 minutes? 24), and a boolean where a number is expected (`quota: yes` read as 1,
`difficulty: [true, 3]` read as [1, 3]). On main each loaded with the other number: a capability quota of 8 made 8
environments where 10 were meant. Now each is refused at its line, saying what YAML made of it and what to write.
dagster.yaml, which Dagster reads with PyYAML, is checked the same way before it reads it.
Regression guards: plain numbers, hex (`0x10`, written on purpose), `0` and a boolean where a boolean is expected
load as before, and the same digits in quotes stay text where text is expected."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from coworkenv.synth import TaxonomyError, load_taxonomy
from coworkenv.yaml_files import YAMLFileError
from pipelines.instance_errors import InstanceError, check_instance_config
from tests.faults.harness import ROOT
from trainers.config import CONFIGS_DIR, load_sft_config

CAPABILITY = "ticket_triage_update"
# (the capability's line in tickets.yaml, the same written in a form YAML reads as another number, line, what the
# message must say)
WRITTEN: dict[str, tuple[str, str, int, tuple[str, ...]]] = {
    "a quota with a leading 0 (octal)": ("    quota: ", "    quota: 010", 14, ("010", "octal", "8")),
    "a quota in base 60": ("    quota: ", "    quota: 1:30", 14, ("1:30", "base 60", "90")),
    "a quota 'yes'": ("    quota: ", "    quota: yes", 14, ("yes", "a boolean", "1")),
    "a difficulty [true, 3]": ("    difficulty: ", "    difficulty: [true, 3]", 11, ("true", "a boolean", "1")),
}


def _edited_taxonomy(tmp_path: Path, before: str, after: str) -> Path:
    folder = Path(shutil.copytree(ROOT / "taxonomy", tmp_path / "taxonomy"))
    file = folder / "tickets.yaml"
    text = file.read_text(encoding="utf-8")
    start = text.index(f"  - id: {CAPABILITY}\n")
    at = text.index(before, start)
    line_end = text.index("\n", at)
    edited = text[:at] + after + text[line_end:]
    file.write_text(edited, encoding="utf-8")
    return folder


@pytest.mark.parametrize("case", WRITTEN)
def test_a_capability_number_yaml_reads_as_another_number_is_refused_at_its_line(tmp_path: Path, case: str) -> None:
    before, after, line, says = WRITTEN[case]
    folder = _edited_taxonomy(tmp_path, before, after)
    with pytest.raises(TaxonomyError) as caught:
        load_taxonomy(folder)
    message = str(caught.value)
    assert message.startswith(f"{folder / 'tickets.yaml'}:{line}: "), message
    assert all(part in message for part in says) and "write" in message, message


def test_a_training_config_number_in_base_60_or_octal_is_refused_at_its_line(tmp_path: Path) -> None:
    text = (CONFIGS_DIR / "tiny.yaml").read_text(encoding="utf-8")
    found = re.search(r"^  max_steps: \d+ ", text, re.M)
    assert found, "tiny.yaml has no `max_steps: N` line"
    line = text.count("\n", 0, found.start()) + 1
    for written, says in (("1:30", "base 60"), ("024", "octal"), ("on", "a boolean")):
        config = tmp_path / f"tiny-{says.replace(' ', '-')}.yaml"
        config.write_text(text.replace(found.group(), f"  max_steps: {written} ", 1), encoding="utf-8")
        with pytest.raises(YAMLFileError) as caught:
            load_sft_config(config)
        assert f"{config}:{line}: " in str(caught.value) and says in str(caught.value), str(caught.value)


def test_numbers_written_plainly_or_on_purpose_load_as_before(tmp_path: Path) -> None:
    """Regression guard (passes on main): decimal, hex, 0, a boolean for a switch, quoted digits as text."""
    folder = _edited_taxonomy(tmp_path, "    quota: ", "    quota: 0x10")
    assert load_taxonomy(folder)[CAPABILITY].quota == 16
    for written, quota in (("10", 10), ("0", 0), ("1_0", 10)):
        folder = _edited_taxonomy(tmp_path / written, "    quota: ", f"    quota: {written}")
        assert load_taxonomy(folder)[CAPABILITY].quota == quota
    folder = _edited_taxonomy(tmp_path / "switch", "    multi_turn: ", "    multi_turn: yes")
    assert load_taxonomy(folder)[CAPABILITY].multi_turn is True
    folder = _edited_taxonomy(tmp_path / "hint", "    hints: ", '    hints: ["010", "1:30"]')
    assert load_taxonomy(folder)[CAPABILITY].hints[:2] == ["010", "1:30"]
    text = (CONFIGS_DIR / "tiny.yaml").read_text(encoding="utf-8")
    written_steps = re.search(r"^  max_steps: (\d+) ", text, re.M)
    assert written_steps and load_sft_config(CONFIGS_DIR / "tiny.yaml").training.max_steps == int(written_steps[1])


def test_a_dagster_yaml_limit_written_in_octal_is_refused_before_dagster_reads_it(tmp_path: Path) -> None:
    """dagster.yaml is read by Dagster's PyYAML: `max_concurrent_runs: 010` ran 8 at a time."""
    (tmp_path / "dagster.yaml").write_text("run_coordinator:\n  module: dagster._core.run_coordinator\n"
                                           "  class: QueuedRunCoordinator\n  config:\n"
                                           "    max_concurrent_runs: 010\n", encoding="utf-8")
    with pytest.raises(InstanceError) as caught:
        check_instance_config(tmp_path)
    assert f"{tmp_path / 'dagster.yaml'}:5: " in str(caught.value) and "octal number 8" in str(caught.value)
