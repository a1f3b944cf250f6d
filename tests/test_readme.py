"""The README is executed code: every ```python block runs as written.

Each block runs alone, in a fresh namespace, with nothing injected: a block
that used a name from an earlier one would fail here, so every block brings
its own imports and data. The blocks run in a temporary directory, since one
of them writes a ledger file (``budget.sqlite``) where it runs.
"""

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def python_blocks():
    """(heading, code) of every ```python block, in order; the heading is
    the last markdown heading before it (outside code blocks)."""
    text = README.read_text(encoding="utf-8")
    blocks, heading, position = [], "top", 0
    for match in FENCE.finditer(text):
        headings = re.findall(r"^#+ (.+)$", text[position : match.start()], re.M)
        heading = headings[-1] if headings else heading
        position = match.end()
        if match.group(1) == "python":
            blocks.append((heading, match.group(2)))
    return blocks


BLOCKS = python_blocks()


def _ids():
    seen = {}
    ids = []
    for heading, _ in BLOCKS:
        seen[heading] = seen.get(heading, 0) + 1
        ids.append(f"{heading} #{seen[heading]}")
    return ids


def run_block(code):
    namespace = {"__name__": "__readme__"}
    exec(compile(code, str(README), "exec"), namespace)
    return namespace


def test_readme_has_python_blocks():
    headings = {heading for heading, _ in BLOCKS}
    assert len(BLOCKS) >= 5
    assert {
        "Use",
        "Private ridge regression and model selection",
        "Tuning privately",
        "Accounting across fits, clones and processes",
    } <= headings


# The tuning block's run (about 1.5 s), kept for the test of its stated cost
# when both run in one process.
_TUNING_RUNS = {}


def _is_tuning(code):
    return "PrivateRandomSearch(" in code


@pytest.mark.parametrize("code", [code for _, code in BLOCKS], ids=_ids())
def test_readme_block_runs_as_written(code, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace = run_block(code)
    if _is_tuning(code):
        _TUNING_RUNS[code] = namespace


def test_tuning_snippet_budget_covers_the_stated_cost(tmp_path, monkeypatch):
    # The comment states what search.cost() computes, and the accountant's
    # budget covers it (the fit would raise BudgetExceededError otherwise).
    monkeypatch.chdir(tmp_path)
    (code,) = [code for _, code in BLOCKS if _is_tuning(code)]
    namespace = _TUNING_RUNS.get(code) or run_block(code)
    search = namespace["search"]
    epsilon = search.cost().to_approx_dp(1e-6)
    assert f"ε = {epsilon:.3f}" in code
    (budget,) = re.findall(r"PrivacyAccountant\(epsilon=([\d.]+), delta=1e-6\)", code)
    assert epsilon <= float(budget)
    assert search.accountant.spent_epsilon(1e-6) == pytest.approx(epsilon)


def test_ridge_section_leads_with_the_models_own_release():
    blocks = [
        code
        for heading, code in BLOCKS
        if heading == "Private ridge regression and model selection"
    ]
    assert "PrivateRidge(estimator=" in blocks[0]
