"""scripts/run_tests.py (`make test`): what it prepares for the pytest processes it starts."""
import sys

from conftest import REPO

sys.path.insert(0, str(REPO / "scripts"))
import run_tests  # noqa: E402


def test_rewritten_test_modules_are_read_by_pytest(tmp_path):
    """run_tests.rewrite_test_modules writes pytest's cached form of a test module (its asserts
    rewritten): pytest's reader accepts the file for that source, the code it holds explains a
    failed assert as pytest does, and an edited source no longer matches it."""
    from _pytest.assertion.rewrite import PYC_TAIL, _read_pyc

    module = tmp_path / "test_probe.py"
    module.write_text("def test_probe():\n    x = 2\n    assert x + 1 == 4\n", encoding="utf8")
    assert run_tests.rewrite_test_modules([module]) == 1
    pyc = tmp_path / "__pycache__" / f"test_probe{PYC_TAIL}"
    code = _read_pyc(module, pyc, lambda *a: None)
    assert code is not None, f"pytest does not read {pyc.name}"
    namespace: dict = {}
    exec(code, namespace)
    try:
        namespace["test_probe"]()
    except AssertionError as e:
        assert "assert (2 + 1) == 4" in str(e), str(e)  # rewritten: the values shown
    else:
        raise AssertionError("the probe's assert did not fail")
    module.write_text("def test_probe():\n    assert True\n", encoding="utf8")
    assert _read_pyc(module, pyc, lambda *a: None) is None
