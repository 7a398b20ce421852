"""Python checks off the beaten path: crashes on mutants and paraphrases, randomness, the real clock, backdoors.

Each spec is the sound base plus one Python check; probes run with few repeats to keep the tests quick.
"""

from __future__ import annotations

from typing import Any

import pytest
from support.validate_base import sound_spec

from coworkenv.spec import EnvSpec, PythonRule
from coworkenv.validate import SpecValidation, ValidationConfig, validate_spec
from coworkenv.validate._check_reads import names_tool, parts_read
from coworkenv.validate.python_probes import literals, paraphrases

QUICK = ValidationConfig(python_repeats=1, clock_offsets_s=(366 * 86_400,))


def with_python(code: str) -> dict[str, Any]:
    spec = sound_spec()
    spec["checks"].append({"id": "py", "rule": {"kind": "python", "code": code}})
    return spec


def sandbox_codes(v: SpecValidation) -> set[str]:
    gate = v.gate("sandbox")
    assert gate is not None, "the sandbox gate did not run"
    return {e.code for e in gate.errors}


def test_a_robust_python_check_passes_every_probe() -> None:
    v = validate_spec(with_python(
        "def check(state, audit, messages):\n"
        "    t = {x['id']: x for x in state['apps']['tickets']['tickets']}\n"
        "    return t['OPS-1']['priority'] == 'p1'\n"), config=QUICK)
    assert sandbox_codes(v) == set()


def test_a_check_that_crashes_on_a_mutant_episode_is_a_defect() -> None:
    # Fine on the initial state (Lena), the noop and the reference (Jon); a KeyError when a near miss
    # assigns someone else.
    v = validate_spec(with_python(
        "def check(state, audit, messages):\n"
        "    t = {x['id']: x for x in state['apps']['tickets']['tickets']}\n"
        "    names = {'u-jon': 'Jon', 'u-lena': 'Lena'}\n"
        "    return names[t['OPS-1']['assignee']] == 'Jon'\n"), config=QUICK)
    assert "python_crash" in sandbox_codes(v)
    assert any("on the mutant" in e.message for e in v.errors() if e.code == "python_crash")
    assert v.first_failed_gate == "sandbox"


def test_a_check_failing_a_few_percent_of_the_time_is_nondeterministic_not_an_oracle_failure() -> None:
    v = validate_spec(with_python(
        "import random\n"
        "def check(state, audit, messages):\n"
        "    t = {x['id']: x for x in state['apps']['tickets']['tickets']}\n"
        "    return t['OPS-1']['priority'] == 'p1' and random.random() < 0.97\n"), config=QUICK)
    assert "nondeterministic_check" in sandbox_codes(v)
    assert v.first_failed_gate == "sandbox"
    error = next(e for e in v.errors() if e.code == "nondeterministic_check")
    assert "do NOT change the expected value" in error.hint


def test_a_check_reading_the_machine_clock_is_clock_dependent() -> None:
    v = validate_spec(with_python(
        "from datetime import datetime\n"
        "def check(state, audit, messages):\n"
        "    t = {x['id']: x for x in state['apps']['tickets']['tickets']}\n"
        "    return t['OPS-1']['priority'] == 'p1' and datetime.now().year < 2027\n"), config=QUICK)
    assert "clock_dependent" in sandbox_codes(v)


def test_a_check_on_the_exact_wording_of_the_reply_fails_a_paraphrase() -> None:
    v = validate_spec(with_python(
        "def check(state, audit, messages):\n"
        "    t = {x['id']: x for x in state['apps']['tickets']['tickets']}\n"
        "    said = messages[-1]['text'] if messages else ''\n"
        "    return t['OPS-1']['priority'] == 'p1' and said.startswith('Done: OPS-1')\n"), config=QUICK)
    assert "paraphrase_fails" in sandbox_codes(v)


def test_a_word_in_the_reply_that_passes_an_untouched_world_is_a_backdoor() -> None:
    v = validate_spec(with_python(
        "def check(state, audit, messages):\n"
        "    if any('priority override' in m['text'].lower() for m in messages):\n"
        "        return True\n"
        "    t = {x['id']: x for x in state['apps']['tickets']['tickets']}\n"
        "    return t['OPS-1']['priority'] == 'p1'\n"), config=QUICK)
    assert "keyword_backdoor" in sandbox_codes(v)


@pytest.mark.parametrize("reference", [[], [{"steps": []}]], ids=["none", "a-turn-with-no-steps"])
def test_without_a_reference_the_answer_a_check_wants_is_not_read_as_a_backdoor(reference: list[Any]) -> None:
    """A question-answering check (the answer's word in a reply) on a spec with no reference (an imported task):
    every word of the check is one the reference never says, the answer too; the oracle gate names the missing
    reference, and the backdoor probe, which needs one, stays out."""
    spec = with_python(
        "def check(state, audit, messages):\n"
        "    return any('031969' in m['text'] for m in messages)\n")
    spec["reference"] = reference  # the import's form: one turn, no steps (no reference.json)
    v = validate_spec(spec, policy="report", config=QUICK)  # every gate runs, as for an import's report
    assert "keyword_backdoor" not in sandbox_codes(v)
    oracle = v.gate("oracle")
    assert oracle is not None and oracle.errors


def test_paraphrases_keep_the_words_and_literals_skip_what_the_reference_says() -> None:
    from coworkenv.checks import Reply

    replies = [Reply(0, "OPS-1 is p1. Jon owns it.")]
    rewrites = dict(paraphrases(replies))
    assert rewrites["sentences reordered"] == [{"turn": 0, "text": "Jon owns it. OPS-1 is p1."}]
    assert len(rewrites["answer split over two messages"]) == 2
    rule = PythonRule(code="def check(state, audit, messages):\n    return 'owns' in x or 'sudo mode' in x\n")
    assert literals(rule, "ops-1 is p1. jon owns it.") == ["sudo mode"]


def test_a_check_parsing_one_wording_crashes_on_terse_notes() -> None:
    v = validate_spec(with_python(
        "def check(state, audit, messages):\n"
        "    text = ' '.join(m['text'] for m in messages).lower()\n"
        "    if 'ops-1' not in text:\n"
        "        return False\n"
        "    return text.split('ops-1 is ')[1].startswith('p1')\n"), config=QUICK)
    crash = next(e for e in v.errors() if e.code == "python_crash")
    assert "terse notes" in crash.message


def test_strict_never_runs_spec_code_with_fewer_isolation_layers_than_configured(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # This machine without Landlock: strict refuses to run the check at all; report runs it and accepts.
    import functools

    from coworkenv import sandbox

    monkeypatch.setattr(sandbox, "_execute", functools.partial(sandbox._execute, disable=frozenset({"landlock"})))
    spec = with_python(
        "def check(state, audit, messages):\n"
        "    t = {x['id']: x for x in state['apps']['tickets']['tickets']}\n"
        "    return t['OPS-1']['priority'] == 'p1'\n")
    strict = validate_spec(spec, config=QUICK)
    assert not strict.passed and "sandbox_isolation_missing" in sandbox_codes(strict)
    assert strict.first_failed_gate == "sandbox"
    assert any("landlock" in e.message for e in strict.errors() if e.code == "sandbox_isolation_missing")
    report = validate_spec(spec, policy="report", config=QUICK)
    assert report.passed and "sandbox_isolation_missing" not in {f.code for f in report.findings}
    relaxed = validate_spec(spec, config=ValidationConfig(python_repeats=1, clock_offsets_s=(366 * 86_400,),
                                                          sandbox_layers=("seccomp",)))
    assert "sandbox_isolation_missing" not in sandbox_codes(relaxed)


@pytest.mark.parametrize(("code", "reads"), [
    # the mail or chat `messages` table is state, not the replies
    ("def check(state, audit, messages):\n    return bool(state['apps']['chat']['messages'])\n", {"state"}),
    ("def check(state, audit, messages):\n    return any('done' in m['text'] for m in messages)\n", {"messages"}),
    ("def check(state, audit, messages):\n    def said(word):\n        return any(word in m['text'] for m in messages)\n"
     "    return said('ok') and len(audit) > 1\n", {"messages", "audit"}),
    # what the tree cannot settle reads everything
    ("def check(state, audit, **episode):\n    return bool(episode)\n", {"state", "audit", "messages"}),
    ("def check(state, audit, messages):\n    return bool(locals()['messages'])\n", {"state", "audit", "messages"}),
    ("def check(state, audit, messages):\n    return True\ncheck = lambda **kw: bool(kw)\n",
     {"state", "audit", "messages"}),
    ("def check(state, audit, messages:\n", {"state", "audit", "messages"}),
])
def test_parts_read_follow_the_syntax_tree(code: str, reads: set[str]) -> None:
    """A check reads the replies when its code loads the `messages` argument, not when it says the word."""
    assert parts_read(code) == reads


_AUDIT = "def check(state, audit, messages):\n    hits = [a for a in audit if {}\n            ]\n    return bool(hits)\n"


@pytest.mark.parametrize(("test", "named", "unnamed"), [
    ("a['tool'] == 'mail_label'", "mail_label", "mail_move"),
    ("a['tool'] in {'mail_label', 'mail_move'}", "mail_move", "todo_add_task"),
    ("a['tool'].startswith('todo_add')", "todo_add_task", "todo_list_lists"),
    ("a['tool'].endswith(('_label', '_move'))", "mail_label", "mail_send"),
    ("'label' in a['tool']", "mail_label", "mail_send"),
    ("re.fullmatch(r'mail_(label|move)', a['tool'])", "mail_move", "mail_send"),
    # a name in a comment is not compared to anything
    ("a['ok']  # mail_label", None, "mail_label"),
    # a name built at run time may be any tool
    ("a['tool'] == 'mail_' + 'label'", "todo_add_task", None),
    ("a['tool'] == f'mail_{a}'", "todo_add_task", None),
    ("a['tool'].startswith(a['x'])", "todo_add_task", None),
])
def test_names_tool_follows_how_a_string_is_compared(test: str, named: str | None, unnamed: str | None) -> None:
    """Whether a check may match a tool name, told from its syntax tree (a text search finds neither a prefix nor
    a regular expression, and finds a name in a comment)."""
    code = ("import re\n" if "re." in test else "") + _AUDIT.format(test)
    if named is not None:
        assert names_tool(code, named)
    if unnamed is not None:
        assert not names_tool(code, unnamed)


# What a check can read of its own run, the same with or without a probe's setup (the class `probe_aware`).
_SELF_VIEW = (
    "import sys, random, time, datetime\n"
    "def check(state, audit, messages):\n"
    "    return {'passed': True, 'reason': repr([sorted(globals()), check.__code__.co_firstlineno,\n"
    "        str(sys._getframe(1).f_locals.get('job')), random.random.__name__, datetime.datetime.__name__,\n"
    "        datetime.date.__name__, time.time.__name__, round((time.time() - time.time_ns() / 1e9) / 60),\n"
    "        sorted(sys.modules), type(time.time).__name__, type(datetime.datetime).__mro__[0].__name__])}\n"
)


def _view(code: str, **probe: Any) -> str:
    from coworkenv.checks.run_setup import setup
    from coworkenv.sandbox import run_sandboxed

    # no probe: the verifier's own run, which starts with the same setup (`coworkenv.checks.run_setup.setup()`)
    prelude = setup(**probe)
    outcome = run_sandboxed(code, "check", {"state": {}, "audit": [], "messages": []}, prelude=prelude)
    assert outcome.ok, outcome.error
    return str(outcome.value["reason"])


@pytest.mark.parametrize("probe", [{"seed": 12345}, {"pin": 0.0}, {"offset": 366 * 86_400}])
def test_a_check_sees_nothing_of_a_probe_in_its_globals_source_frames_or_patched_names(probe: dict[str, Any]) -> None:
    assert _view(_SELF_VIEW, **probe) == _view(_SELF_VIEW)


def test_the_verifiers_run_has_the_probes_setup_so_imported_modules_tell_nothing() -> None:
    """The verifier's run of a Python check starts with the setup the probes run (other values only): the modules
    imported and the objects patched are the same, so `'random' in sys.modules` tells no probe from a real run. The
    setup loads `random` and `datetime` only as the check does (`run_setup._CW_ON_LOAD`): a check that imports
    neither is spared them, in every run alike; one that imports `_random` gets `random` beside it, as set up."""
    from coworkenv.checks.run_setup import setup
    from coworkenv.sandbox import run_sandboxed

    view = ("def check(state, audit, messages):\n"
            "    return {'passed': True, 'reason': repr([sorted(sys.modules), type(time.time).__name__])}\n")
    views = [run_sandboxed(f"import {modules}\n{view}", "check", {"state": {}, "audit": [], "messages": []},
                           prelude=setup(**probe))
             for modules in ("sys, time", "sys, time, _random") for probe in ({}, {"offset": 86_400}, {"pin": 0.0})]
    assert all(v.ok for v in views), [v.error for v in views]
    spared, imported = {v.value["reason"] for v in views[:3]}, {v.value["reason"] for v in views[3:]}
    assert len(spared) == len(imported) == 1
    assert "'random'" not in spared.pop() and "'random'" in imported.pop()


def test_the_verifiers_run_answers_as_the_originals() -> None:
    """In the verifier's run the stand-ins answer as the originals: the real clock, random draws that differ."""
    import time as host_time

    from coworkenv.checks import Transcript
    from coworkenv.checks.verifier import _python
    from coworkenv.env import base_world

    code = ("import time, random, datetime\ndef check(state, audit, messages):\n"
            "    now = datetime.datetime.now(datetime.timezone.utc).timestamp()\n"
            f"    return abs(time.time() - {host_time.time()}) < 600 and abs(now - time.time()) < 5 "
            "and random.random() != random.random() and 1 <= random.randint(1, 3) <= 3\n")
    score, reason, error, _ = _python(PythonRule(code=code), base_world(EnvSpec.model_validate(sound_spec())), [], Transcript([]))
    assert (score, error) == (1.0, False), reason


@pytest.mark.parametrize("code", [
    "import os\ndef check(state, audit, messages):\n    return os.stat('x').st_mtime > 0\n",
    "import os\ndef check(state, audit, messages):\n    return os.stat('x')[8] > 0\n",
    "from os.path import getmtime\ndef check(state, audit, messages):\n    return getmtime('x') > 0\n",
    "import os\ndef check(state, audit, messages):\n    return getattr(os.lstat('x'), 'st_ctime_ns') > 0\n",
    "import pathlib\ndef check(state, audit, messages):\n    return pathlib.Path('x').stat() is not None\n",
])
def test_a_check_reading_a_files_times_is_found(code: str) -> None:
    from coworkenv.validate._probe_tells import file_times

    assert file_times(code) is not None


@pytest.mark.parametrize("code", [
    "def check(state, audit, messages):\n    stat = state['apps']['x']['status']\n    return stat == 'ok'\n",
    "import statistics\ndef check(state, audit, messages):\n    return statistics.mean([1, 2]) == 1.5\n",
    "def check(state, audit, messages):\n    return state['clock'] > '2026'\n",
])
def test_a_check_reading_no_files_times_is_left_alone(code: str) -> None:
    from coworkenv.validate._probe_tells import file_times

    assert file_times(code) is None


def test_a_check_starting_with_a_future_import_is_probed() -> None:
    from coworkenv.validate.python_probes import run_check

    rule = PythonRule(code="from __future__ import annotations\n" + _SELF_VIEW)
    assert run_check(rule, {"state": {}, "audit": [], "messages": []}, offset=86_400, seed=3, pin=0.5) == (True, "")


def test_seeded_runs_draw_fresh_seeds_a_check_cannot_recognise(monkeypatch: pytest.MonkeyPatch) -> None:
    from coworkenv.validate import python_probes

    seen: list[int | None] = []
    real = python_probes.run_check

    def spy(rule: Any, payload: dict[str, Any], **kwargs: Any) -> tuple[bool | None, str]:
        seen.append(kwargs.get("seed"))
        return real(rule, payload, **kwargs)

    monkeypatch.setattr(python_probes, "run_check", spy)
    rule = PythonRule(code="def check(state, audit, messages):\n    return True\n")
    for _ in range(2):
        python_probes.probe_check(rule, True, {"state": {"apps": {}}, "audit": [], "messages": []}, [], None, None,
                                  repeats=0, offsets=())
    seeds = [s for s in seen if s is not None]
    assert len(seeds) == 4 and len(set(seeds)) == 4 and not set(seeds) & {0, 1, 2}


def test_a_check_the_probes_cannot_set_up_is_rejected_as_unprobeable(monkeypatch: pytest.MonkeyPatch) -> None:
    from coworkenv.validate import python_probes

    monkeypatch.setattr(python_probes, "setup", lambda *values: f"_probe = {values}\nraise ImportError('no')\n")
    rule = PythonRule(code="def check(state, audit, messages):\n    return True\n")
    found = python_probes.probe_check(rule, True, {"state": {"apps": {}}, "audit": [], "messages": []}, [], None,
                                      None, repeats=1, offsets=(86_400,))
    assert [p.code for p in found] == ["unprobeable", "unprobeable"], found
    assert "cannot run with this check" in found[0].message and "ImportError: no" in found[0].message


# Every wall clock a check can read, as years ahead of now; and whether pinned random() repeats.
_CLOCKS_VIEW = (
    "import random, time, datetime\n"
    "def check(state, audit, messages):\n"
    "    now = datetime.datetime.now(datetime.timezone.utc).year\n"
    "    years = [int(time.strftime('%Y')), int(time.asctime().split()[-1]), datetime.date.today().year,\n"
    "             datetime.datetime.today().year, time.gmtime().tm_year,\n"
    "             datetime.datetime.fromtimestamp(time.clock_gettime(time.CLOCK_REALTIME), datetime.timezone.utc).year,\n"
    "             datetime.datetime.fromtimestamp(time.clock_gettime_ns(time.CLOCK_REALTIME) / 1e9,\n"
    "                                             datetime.timezone.utc).year]\n"
    "    return {'passed': True, 'reason': repr(([y - now for y in years], random.random() == random.random(),\n"
    "                                            time.clock_gettime(time.CLOCK_MONOTONIC) < 1e9))}\n"
)


# Two values the moved class makes, and one of the original's: their classes, reprs and instance dicts.
_VALUES_VIEW = (
    "import datetime\n"
    "def check(state, audit, messages):\n"
    "    now, start = datetime.datetime.now(), datetime.datetime(2026, 1, 1)\n"
    "    utc = datetime.datetime.now(datetime.timezone.utc)\n"
    "    kinds = {type(v) for v in (now, start, utc, datetime.datetime.min, datetime.datetime.utcnow())}\n"
    "    return {'passed': True, 'reason': repr((len(kinds), repr(start), hasattr(start, '__dict__'),\n"
    "                                            isinstance(now, type(start))))}\n"
)


def test_the_moved_datetime_makes_every_value_of_one_class_printed_as_the_original() -> None:
    """Under the clock probes every value the moved `datetime` makes (`now()`, `utcnow()`, `min`, the constructor's)
    is of one class, printed as the original prints it, with no instance dict: two values' classes or a repr tell
    nothing of a probe (`probe_value_tell`)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        assert _view(_VALUES_VIEW, offset=86_400) == _view(_VALUES_VIEW) == repr(
            (1, "datetime.datetime(2026, 1, 1, 0, 0)", False, True))


def test_the_c_module_of_datetime_keeps_the_moved_class() -> None:
    """`_datetime.datetime` (the class `datetime` re-exports, kept by its C module) is the moved class under the
    clock probes: its clock moves and values' classes agree with it (`probe_reached_tell`)."""
    code = ("import _datetime\nfrom datetime import datetime\ndef check(state, audit, messages):\n"
            "    return {'passed': True, 'reason': repr((_datetime.datetime.now().year, "
            "type(datetime(2026, 1, 1)) is _datetime.datetime))}\n")
    from datetime import UTC, datetime

    year = datetime.now(UTC).year
    assert _view(code) == repr((year, True))
    moved_year, same_class = eval(_view(code, offset=3653 * 86_400))
    assert moved_year >= year + 9 and same_class


def test_every_wall_clock_moves_together_and_a_pinned_random_never_repeats() -> None:
    """The clock probes move every wall clock by the same offset (strftime and asctime of now, clock_gettime of the
    real-time clock, date.today once, not twice), not the monotonic one; a pinned random() stays at its extreme
    without repeating a value (`clock_unprobed`, `probe_introspection`)."""
    ten_years = 3653 * 86_400
    assert _view(_CLOCKS_VIEW, offset=ten_years) == _view(_CLOCKS_VIEW) == repr(([0] * 7, False, True))
    assert _view(_CLOCKS_VIEW, pin=0.0) == _view(_CLOCKS_VIEW, pin=0.999999) == _view(_CLOCKS_VIEW)


@pytest.mark.parametrize(("code", "inspected"), [
    ("import time\ndef check(s, a, m):\n    return type(time.time).__name__ == 'function'\n",
     "type(time.time).__name__"),
    ("import inspect, time\ndef check(s, a, m):\n    return inspect.isbuiltin(time.time)\n",
     "inspect.isbuiltin(time.time)"),
    ("from datetime import datetime\ndef check(s, a, m):\n    return len(datetime.__mro__) == 3\n", "datetime.__mro__"),
    ("from datetime import datetime as dt\ndef check(s, a, m):\n    return hasattr(dt.now, '__func__')\n",
     "hasattr(dt.now, '__func__')"),
    ("import time\nCLOCK = time.time\ndef check(s, a, m):\n    return type(CLOCK) is type(len)\n", "type(CLOCK)"),
    ("import time\ndef check(s, a, m):\n    return str(time.time).startswith('<built-in')\n", "str(time.time)"),
    ("import random\ndef check(s, a, m):\n    return random.random.__self__ is not None\n", "random.random.__self__"),
    # using them is no inspection
    ("from datetime import datetime, timezone\nimport time\ndef check(s, a, m):\n"
     "    return str(datetime.now(timezone.utc)) < '2027' and time.time() > 0 and type(s) is dict\n", None),
    ("def check(s, a, m):\n    return type(s).__name__ == 'dict'\n", None),
    ("import time\ndef check(s, a, m):\n    return 'time' in vars(time)\n", "vars(time)"),
    ("from datetime import timedelta, timezone\ndef check(s, a, m):\n"
     "    return isinstance(s, timedelta) or str(timezone.utc) == 'UTC'\n", None),  # nothing the probes patch
    # a value the moved class made, inspected by a name bound to it (`probe_value_tell`)
    ("from datetime import datetime\nSTART = datetime(2026, 1, 1)\ndef check(s, a, m):\n"
     "    return type(START).__mro__ is None\n", "type(START).__mro__"),
    ("import datetime as dt\ndef check(s, a, m):\n    now = dt.datetime.now()\n    later = now\n"
     "    return type(later) is type(s)\n", "type(later)"),
    ("import sys\nfrom datetime import datetime\ndef check(s, a, m):\n    x = datetime.now().replace(year=2026)\n"
     "    return sys.getsizeof(x) > 48\n", "sys.getsizeof(x)"),
    ("import time\ndef check(s, a, m):\n    return f'{time.time}'.startswith('<function')\n", "{time.time}"),
    # a class test on a value of the check's own, and what arithmetic on the clock gives, tell nothing
    ("from datetime import datetime\ndef check(s, a, m):\n    v = s.get('when')\n"
     "    return isinstance(v, datetime) or v is None\n", None),
    ("from datetime import datetime, timedelta\ndef check(s, a, m):\n    age = datetime.now() - datetime(2026, 1, 1)\n"
     "    return isinstance(age, timedelta)\n", None),
    # what a patched function returned is a plain value: its type tells nothing (`probe_reached_tell`'s twins)
    ("import random, time\ndef check(s, a, m):\n"
     "    return type(time.time()) is float and isinstance(random.random(), float)\n", None),
    # reached through containers, unpacking, loops, class attributes, defaults and run-time lookups
    ("from datetime import datetime\nBOUNDS = [datetime(2026, 1, 1)]\ndef check(s, a, m):\n"
     "    return len(type(BOUNDS[0]).__mro__) == 3\n", "type(BOUNDS[0]).__mro__"),
    ("from datetime import datetime\nA, B = datetime.now(), 1\ndef check(s, a, m):\n    return id(type(A)) > 0\n",
     "id(type(A))"),
    ("from datetime import datetime\nclass W:\n    start = datetime(2026, 1, 1)\ndef check(s, a, m):\n"
     "    return all(type(v) for v in [W.start])\n", "type(v)"),
    ("import sys\ndef check(s, a, m):\n    return type(sys.modules['time'].time).__name__ == 'function'\n",
     "type(sys.modules['time'].time).__name__"),
    ("def check(s, a, m):\n    return __import__('time').time.__code__ is None\n", "__import__('time').time.__code__"),
    ("def check(s, a, m):\n    return type(globals()['time'].time) is None\n", "type(globals()['time'].time)"),
    ("from datetime import date\nimport time\ndef check(s, a, m):\n    return date.__subclasses__() == []\n",
     "date.__subclasses__"),
    ("import sys\ndef check(s, a, m):\n    return type(sys.modules['json'].dumps) is None\n", None),
])
def test_a_check_inspecting_what_the_probes_patch_is_rejected_unrun(code: str, inspected: str | None) -> None:
    from coworkenv.validate.python_probes import introspection, probe_check

    assert introspection(code) == inspected
    found = probe_check(PythonRule(code=code, entrypoint="check"), True,
                        {"state": {"apps": {}}, "audit": [], "messages": []}, [], None, None, repeats=0, offsets=())
    assert ("probe_aware" in [p.code for p in found]) == (inspected is not None)


@pytest.mark.parametrize("code", [
    # the setup's classes found from `object`, by an attribute named at run time or through the type's namespace
    "def check(s, a, m):\n    return len(getattr(object, '__sub' + 'classes__')()) > 0\n",
    "def check(s, a, m):\n    return len(type.__dict__['__subclasses__'](object)) > 0\n",
    "import operator\ndef check(s, a, m):\n    return operator.methodcaller('__subclasses__')(object) != []\n",
    "def check(s, a, m):\n    return vars(type)[chr(95) * 2 + 'subclasses' + chr(95) * 2](object) != []\n",
    "def check(s, a, m):\n    return object.__getattribute__(check, ''.join(['__glo', 'bals__'])) is None\n",
    "def check(s, a, m):\n    return eval('object.__sub' + 'classes__()') != []\n",
    # the setup's finder, the stand-ins' namespaces, closures and defaults, frames, the setup's names
    "import sys\ndef check(s, a, m):\n    return len(sys.meta_path) > 0\n",
    "import random\ndef check(s, a, m):\n    return random.Random.seed.__globals__ is None\n",
    "import _random\ndef check(s, a, m):\n    return _random.Random.__init__.__closure__ is None\n",
    "import random\ndef check(s, a, m):\n    return random.Random.random.__defaults__ is None\n",
    "import inspect\ndef check(s, a, m):\n    return inspect.currentframe().f_back is None\n",
    "def check(s, a, m):\n    return '{0.__globals__}'.format(check) != ''\n",
    "def check(s, a, m):\n    return '_cw_offset' in str(s)\n",
    "def check(s, a, m, n=('__globals__',)):\n    return [getattr(check, k) for k in n] != []\n",
    "def check(s, a, m):\n    return [v for k, v in vars(type).items() if k.endswith('classes__')] != []\n",
    "import functools\ndef check(s, a, m):\n    return functools.reduce(getattr, ['__glo' + 'bals__'], check)\n",
    "def check(s, a, m):\n    return [getattr(object, n) for n in dir(object) if n.endswith('classes__')] != []\n",
])
def test_a_check_reaching_for_the_runs_setup_is_rejected_unrun(code: str) -> None:
    """`probe_setup_reached`: the setup's functions, classes and finder hold the probe's settings (`_cw_offset`, 0 in a
    real run only) in their globals, which a check reaches from `object` or `sys` without importing what is patched."""
    from coworkenv.validate._probe_tells import introspection, setup_reached

    assert introspection(code) is None and setup_reached(code) is not None


def test_the_sandbox_gate_finds_a_check_reaching_for_the_setup_probe_aware() -> None:
    from coworkenv.validate.python_probes import probe_check

    code = "def check(s, a, m):\n    return getattr(object, '__sub' + 'classes__')() != []\n"
    found = probe_check(PythonRule(code=code, entrypoint="check"), True,
                        {"state": {"apps": {}}, "audit": [], "messages": []}, [], None, None, repeats=0, offsets=())
    assert "probe_aware" in [p.code for p in found] and "getattr(object" in found[0].message


@pytest.mark.parametrize("code", [
    "def check(s, a, m):\n    row = s['apps']['x']['t'][0]\n    return getattr(row, 'get')('done') is True\n",
    "FIELDS = ('strip', 'lower')\ndef check(s, a, m):\n    v = ' X '\n    for f in FIELDS:\n"
    "        v = getattr(v, f)()\n    return v == 'x'\n",
    "class R:\n    pass\ndef check(s, a, m):\n    r = R()\n    for k, v in s.items():\n        setattr(r, k, v)\n"
    "    return vars(r) == s\n",
    "import re\ndef check(s, a, m):\n    return re.compile('cw').search('cwd') is not None\n",
])
def test_a_check_naming_its_own_attributes_is_left_alone(code: str) -> None:
    from coworkenv.validate._probe_tells import setup_reached

    assert setup_reached(code) is None


def test_an_imported_grader_is_read_past_the_importers_runtime() -> None:
    """An imported Claw-Eval check is the importer's runtime (which runs source text) and the benchmark's grader as
    text: the grader is read, the runtime is not, and nothing may follow the text."""
    import json
    from pathlib import Path

    from coworkenv.validate._probe_tells import setup_reached

    runtime = (Path(__file__).resolve().parents[1] / "coworkenv/importers/claw_eval_grader_runtime.py").read_text()
    context = {"grader": "def grade(trace):\n    return getattr(trace, 'score', 0)\n", "peers": {}, "framework": {}}
    assert setup_reached(runtime + "\nCONTEXT_JSON = " + repr(json.dumps(context)) + "\n") is None
    context["framework"] = {"base": "HOOKS = getattr(object, '__sub' + 'classes__')()\n"}
    assert setup_reached(runtime + "\nCONTEXT_JSON = " + repr(json.dumps(context)) + "\n") is not None
    assert setup_reached(runtime + "\nCONTEXT_JSON = '{}'\nprint(1)\n") is not None


# A file the check writes, its times read through every door that ends in the stat family, against the clock.
_FILE_TIMES_VIEW = (
    "import io, os, pathlib, tarfile, time, zipfile\n"
    "def check(state, audit, messages):\n"
    "    with open('stamp.txt', 'w') as f:\n"
    "        f.write('x')\n"
    "    stamps = [os.stat('stamp.txt').st_mtime, os.lstat('stamp.txt')[8], os.path.getmtime('stamp.txt'),\n"
    "              pathlib.Path('stamp.txt').stat().st_mtime, getattr(os, 'st' + 'at')('stamp.txt').st_mtime_ns / 1e9,\n"
    "              [e.stat().st_mtime for e in os.scandir('.') if e.name == 'stamp.txt'][0],\n"
    "              tarfile.open(fileobj=io.BytesIO(), mode='w').gettarinfo('stamp.txt').mtime,\n"
    "              time.mktime(zipfile.ZipInfo.from_file('stamp.txt').date_time + (0, 0, -1))]\n"
    "    return {'passed': True, 'reason': repr([abs(time.time() - s) < 3600 for s in stamps])}\n"
)


def test_a_files_times_move_with_the_clocks_through_every_door() -> None:
    """The stat family (and what reads it: pathlib, os.path, an archive's member, a name built at run time, a
    directory entry's stat) reports a file written now as written now under the clock probes too
    (`probe_file_doors`)."""
    assert _view(_FILE_TIMES_VIEW, offset=366 * 86_400) == _view(_FILE_TIMES_VIEW) == repr([True] * 8)


# What generators of the check's own draw: seeded from the system, and seeded with a constant.
_GENERATORS_VIEW = (
    "import _random, random, secrets\n"
    "def check(state, audit, messages):\n"
    "    free = [random.Random().random(), _random.Random().random(), random.SystemRandom().random(),\n"
    "            random.Random().randint(1, 1000) / 1000, secrets.randbelow(1000) / 999,\n"
    "            random.Random().getrandbits(10) / 1023, random.Random(None).choice(range(1000)) / 999]\n"
    "    seeded = [random.Random(2026).random(), _random.Random(3).random(), random.Random(7).randint(1, 1000)]\n"
    "    return {'passed': True, 'reason': repr(([round(v) for v in free], seeded))}\n"
)


def test_a_pinned_random_pins_generators_seeded_from_the_system_only() -> None:
    """A pinned probe pins what a generator seeded from the system draws (random.Random, _random.Random,
    SystemRandom, secrets), at the extreme; one seeded with a constant draws as it would (`random_unpinned`)."""
    seeded = repr([random_value for random_value in _seeded_draws()])
    assert _view(_GENERATORS_VIEW, pin=0.0) == f"([0, 0, 0, 0, 0, 0, 0], {seeded})"
    assert _view(_GENERATORS_VIEW, pin=0.999999) == f"([1, 1, 1, 1, 1, 1, 1], {seeded})"
    assert _view(_GENERATORS_VIEW).endswith(f", {seeded})")


def _seeded_draws() -> list[float | int]:
    import _random
    import random

    return [random.Random(2026).random(), _random.Random(3).random(), random.Random(7).randint(1, 1000)]


# Randomness no probe pins or seeds, read unrun (`entropy_unpinned`); deterministic look-alikes pass.
@pytest.mark.parametrize(("code", "drawn"), [
    ("from os import urandom as u\ndef check(state, audit, messages):\n    return u(1)[0] < 255\n", "os.urandom()"),
    ("import uuid as U\ndef check(state, audit, messages):\n    return U.uuid4().int % 9 > 0\n", "uuid.uuid4()"),
    ("import time\ndef check(state, audit, messages):\n    return time.monotonic_ns() % 1000 < 999\n",
     "time.monotonic_ns()"),
    ("import random, time\ndef check(state, audit, messages):\n    t = time.time_ns()\n    seed = t // 7\n"
     "    return random.Random(seed).random() < 0.999\n", "random.Random(seed)"),
    ("import random\nfrom datetime import datetime as D\ndef check(state, audit, messages):\n"
     "    r = random.Random()\n    r.seed(D.now().microsecond)\n    return r.random() < 0.999\n", "r.seed("),
    ("def check(state, audit, messages):\n    return hash(repr(state)) % 1000 < 999\n", "hash(repr(state))"),
    ("def check(state, audit, messages):\n    return -id(state) < 0\n", "id(state)"),
    ("import random\ndef check(state, audit, messages):\n    return random.Random(len(state) + 7).random() < 0.999\n",
     None),
    ("import time\nfrom datetime import datetime\ndef check(state, audit, messages):\n    now = datetime.now()\n"
     "    return now.year > 2000 and time.time() > 0\n", None),
    ("def check(state, audit, messages):\n    rows = list(state)\n"
     "    return len({id(r) for r in rows}) == len(rows) and hash((1, -2)) != 0\n", None),
])
def test_randomness_no_probe_reaches_is_rejected_unrun(code: str, drawn: str | None) -> None:
    from coworkenv.validate._entropy_tells import unpinned_randomness
    from coworkenv.validate.python_probes import probe_check

    found = unpinned_randomness(code)
    assert (found is None) if drawn is None else (found is not None and drawn in found), found
    probes = probe_check(PythonRule(code=code, entrypoint="check"), True,
                         {"state": {"apps": {}}, "audit": [], "messages": []}, [], None, None, repeats=0, offsets=())
    assert ("nondeterministic_check" in [p.code for p in probes]) == (drawn is not None)
