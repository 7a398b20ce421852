"""The xdist controller's assertion rewriting of the test modules (tests/support/rewrite_ahead.py): the pycs it
writes are the ones pytest's own import hook reads, and hold the code that hook would have made."""

from __future__ import annotations

from pathlib import Path

import pytest
from _pytest.assertion import rewrite

from tests.support import rewrite_ahead


def _pyc(path: Path) -> Path:
    return rewrite.get_cache_dir(path) / (path.name[:-3] + rewrite.PYC_TAIL)


def test_the_test_modules_get_the_rewritten_pycs_pytest_reads(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    (tmp_path / "sub").mkdir()
    test_file = tmp_path / "sub" / "test_sample.py"
    test_file.write_text("def check(a, b):\n    assert a == b\n", encoding="utf-8")
    (tmp_path / "conftest.py").write_text("X = 1\n", encoding="utf-8")
    (tmp_path / "helper.py").write_text("Y = 2\n", encoding="utf-8")  # not a test module: pytest never rewrites it
    config = request.config

    assert rewrite_ahead.rewrite_ahead(config, tmp_path, processes=1) == 2
    assert not _pyc(tmp_path / "helper.py").exists()
    code = rewrite._read_pyc(test_file, _pyc(test_file))
    assert code is not None  # what the import hook reads instead of rewriting
    assert code == rewrite._rewrite_test(test_file, config)[1]  # the same code object as a rewrite now
    namespace: dict[str, object] = {}
    exec(code, namespace)
    with pytest.raises(AssertionError, match=r"assert 1 == 2"):  # the rewritten assert explains itself
        namespace["check"](1, 2)  # type: ignore[operator]

    assert rewrite_ahead.rewrite_ahead(config, tmp_path, processes=1) == 0  # fresh: left as they are
    test_file.write_text("def check(a, b):\n    assert a != b\n", encoding="utf-8")
    assert rewrite_ahead.rewrite_ahead(config, tmp_path, processes=1) == 1  # a changed source: rewritten again
    assert rewrite._read_pyc(test_file, _pyc(test_file)) is not None
