"""Every docstring example of the package runs and prints what it says."""
from __future__ import annotations

import doctest
import inspect

import pytest

import warpmatch


def docstrings():
    yield "warpmatch", warpmatch.__doc__
    for name in warpmatch.__all__:
        obj = getattr(warpmatch, name)
        yield name, obj.__doc__
        if inspect.isclass(obj):
            for attr, member in vars(obj).items():
                doc = getattr(member, "__doc__", None)
                if doc and ">>>" in doc and not attr.startswith("__"):
                    yield f"{name}.{attr}", doc


@pytest.mark.parametrize("name,doc", [d for d in docstrings() if d[1] and ">>>" in d[1]])
def test_docstring_examples(name, doc):
    parser = doctest.DocTestParser()
    test = parser.get_doctest(doc, {"warpmatch": warpmatch}, name, None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.failures == 0, f"{name}: {runner.failures} example(s) failed (see output above)"


def test_public_names_have_docstrings():
    for name in warpmatch.__all__:
        assert getattr(warpmatch, name).__doc__, name
