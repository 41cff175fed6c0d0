# SPDX-License-Identifier: GPL-2.0
"""Load one of the project's Python files as a module: a script that has
no .py suffix (for example scripts/klp-variant), for the tests and
benchmarks that call its functions, and the test files tests/run and the
cases load by path."""
import importlib.machinery
import importlib.util
import os

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def load_script(relpath):
    """The file at TOP/relpath (or an absolute path), executed as a new
    module each call."""
    name = os.path.splitext(os.path.basename(relpath))[0].replace("-", "_")
    loader = importlib.machinery.SourceFileLoader(
        name, os.path.join(TOP, relpath))
    spec = importlib.util.spec_from_loader(name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod
