"""python/setup.py's own compile path, the one taken where no ninja build of the checkout can be
reused (the suite's `pip install` links ninja's `pylib`): on three of the library's sources, the
objects are compiled, linked into a shared library that exports only kf_* and kfpy_*, and reused
by the next build."""
import importlib.util
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ["runtime/kf_cpu.c", "python/src/kfpy_abi.c", "python/src/kfpy_pool.c"]


def load_setup():
    spec = importlib.util.spec_from_file_location("kforge_setup_py", ROOT / "python" / "setup.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # not __main__: defines the functions, runs no setup()
    return mod


@pytest.mark.skipif(shutil.which("nm") is None, reason="needs nm (binutils)")
def test_compile_path_builds_exports_and_reuses(tmp_path, capfd):
    st = load_setup()
    lib = tmp_path / "lib" / "libkforge.so"
    st.compile_library(lib, SOURCES, tmp_path / "cache")
    assert "compiling 3 of 3 C files" in capfd.readouterr().out
    nm = subprocess.run(["nm", "-D", "--defined-only", str(lib)], stdout=subprocess.PIPE, text=True, check=True)
    names = {line.split()[-1] for line in nm.stdout.splitlines() if line.strip()}
    assert {"kf_cpu_isas", "kf_isa_name", "kfpy_sizeof"} <= names
    assert all(n.startswith(("kf_", "kfpy_")) for n in names), sorted(names)
    st.compile_library(lib, SOURCES, tmp_path / "cache")
    assert "compiling 0 of 3 C files" in capfd.readouterr().out
