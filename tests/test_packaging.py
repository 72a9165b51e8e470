"""The five packages of the design card import, and nothing else is needed to start."""

import importlib

import pytest


@pytest.mark.parametrize("name", ["server", "tools", "store", "evaluator", "web"])
def test_each_top_level_package_imports(name: str) -> None:
    module = importlib.import_module(name)
    assert module.__doc__
