# SPDX-License-Identifier: GPL-2.0
"""Load one of the project's Python scripts that has no .py suffix (for
example scripts/klp-variant) as a module, for the tests and benchmarks
that call its functions."""
import importlib.machinery
import importlib.util
import os

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def load_script(relpath):
    """The script at TOP/relpath, executed once as a module."""
    name = os.path.basename(relpath).replace("-", "_")
    loader = importlib.machinery.SourceFileLoader(
        name, os.path.join(TOP, relpath))
    spec = importlib.util.spec_from_loader(name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod
