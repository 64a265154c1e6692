"""Builds kforge's C library into the package (kforge/_lib/libkforge.so).

The sources are the checkout's runtime/ and generated/ (the default kernel
set, as listed by generated/sources.ninja) plus python/src/ (the thread
pool), compiled with the machine's compiler (CC, else cc) in parallel into
python/build/native/, where later builds reuse every object whose source and
headers did not change. Only kforge.h's kf_* and the pool's kfpy_* symbols
(python/src/exports.map) are exported. No Lua and no download: generated/ is
checked in.

When the checkout's own ninja build has run (build/.ninja_log: `ninja`, or
`sh tools/setup.sh`), the library is instead its `pylib` target
(ninja/python.ninja): the same sources, from the objects that build already
compiled (clang, -fPIC), so no kernel is compiled twice. KFORGE_NO_NINJA=1
compiles here regardless; so does any failure of that path, with a note.
"""
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

CFLAGS = ["-std=c11", "-D_POSIX_C_SOURCE=200809L", "-O2", "-fPIC", "-ffp-contract=off",
          "-Wall", "-Wextra", "-Werror", "-Iruntime", "-Igenerated", "-Ipython/src"]
# Compiled from ROOT with relative paths: objects and the cache key do not
# depend on where the checkout is.
# kfg_tf_ops.h: the TensorFlow custom ops' table (kforge/tf/kforge_tf.c compiles against it).
HEADERS = [ROOT / "runtime" / "kforge.h", ROOT / "generated" / "kforge_ops.h", HERE / "src" / "kfpy_pool.h",
           ROOT / "generated" / "tf" / "kfg_tf_ops.h"]


def sources():
    """The C files of libkforge.a (the kcc and cc edges of generated/sources.ninja), then the pool."""
    ninja = ROOT / "generated" / "sources.ninja"
    if not ninja.exists():
        sys.exit("kforge: %s is missing: build from a kforge checkout (pip install ./python)" % ninja)
    out = []
    for line in ninja.read_text().splitlines():
        m = re.match(r"build \S+\.o: k?cc (\S+)$", line)
        if m:
            out.append(m.group(1).replace("$gen", "generated"))
    out += sorted(str(p.relative_to(ROOT)) for p in (HERE / "src").glob("*.c"))
    return out


def up_to_date(obj, dep):
    """True when obj is newer than its source and every header it read (its -MMD file)."""
    if not obj.exists() or not dep.exists():
        return False
    t = obj.stat().st_mtime
    text = dep.read_text().replace("\\\n", " ")
    for path in text.split(":", 1)[1].split():
        try:
            if os.stat(ROOT / path).st_mtime > t:
                return False
        except OSError:
            return False
    return True


def ninja_library(dest):
    """Links the checkout's ninja build's pylib and copies it to dest; False when that build
    has not run here, ninja is missing, KFORGE_NO_NINJA is set, or the build fails."""
    if os.environ.get("KFORGE_NO_NINJA") or not (ROOT / "build" / ".ninja_log").exists() \
            or not shutil.which("ninja"):
        return False
    print("kforge: linking build/python/libkforge.so with the checkout's ninja build (ninja pylib)", flush=True)
    r = subprocess.run(["ninja", "-C", str(ROOT), "pylib"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    if r.returncode != 0:
        print("kforge: `ninja pylib` failed, compiling here instead:\n" + r.stdout[-2000:], flush=True)
        return False
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_suffix(".so.tmp")
    shutil.copyfile(ROOT / "build" / "python" / "libkforge.so", tmp)
    os.replace(tmp, dest)
    return True


def install_headers(dest):
    inc = dest.parent / "include"
    inc.mkdir(exist_ok=True)
    for h in HEADERS:
        shutil.copyfile(h, inc / h.name)


def build_library(dest):
    if ninja_library(dest):
        install_headers(dest)
        return
    compile_library(dest, sources(), HERE / "build" / "native")
    install_headers(dest)


def compile_library(dest, srcs, cache):
    """Compiles srcs (paths relative to the checkout) with $CC into cache/<key of compiler and
    flags>/, reusing every up-to-date object, and links them into the shared library dest."""
    cc = shlex.split(os.environ.get("CC") or "cc")
    extra = shlex.split(os.environ.get("CFLAGS", ""))
    flags = CFLAGS + extra
    key = hashlib.sha256(repr((cc, flags)).encode()).hexdigest()[:12]
    objdir = cache / key
    jobs = []
    for src in srcs:
        obj = objdir / Path(src).with_suffix(".o")
        jobs.append((src, obj, obj.with_suffix(".d")))

    def compile_one(job):
        src, obj, dep = job
        if up_to_date(obj, dep):
            return None
        obj.parent.mkdir(parents=True, exist_ok=True)
        cmd = cc + flags + ["-MMD", "-MF", str(dep), "-c", src, "-o", str(obj)]
        r = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        return None if r.returncode == 0 else "%s\n%s" % (" ".join(cmd), r.stdout)

    n = int(os.environ.get("KFORGE_BUILD_JOBS") or os.cpu_count() or 1)
    todo = sum(not up_to_date(o, d) for _, o, d in jobs)
    print("kforge: compiling %d of %d C files with %s (%d jobs)" % (todo, len(jobs), " ".join(cc), n),
          flush=True)
    with ThreadPoolExecutor(max_workers=n) as ex:
        errors = [e for e in ex.map(compile_one, jobs) if e]
    if errors:
        sys.exit("kforge: compilation failed:\n" + errors[0])
    vers = HERE / "src" / "exports.map"
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_suffix(".so.tmp")
    cmd = cc + ["-shared", "-o", str(tmp)] + [str(o) for _, o, _ in jobs] + [
        "-Wl,--version-script=" + str(vers), "-lpthread", "-lm"] + shlex.split(os.environ.get("LDFLAGS", ""))
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        sys.exit("kforge: linking failed:\n%s\n%s" % (" ".join(cmd[:3]), r.stdout))
    os.replace(tmp, dest)


class BuildPyWithLibrary(build_py):
    """build_py that also builds the C library and copies the generated Python modules."""

    def run(self):
        super().run()
        pkg = Path(self.build_lib) / "kforge"
        for f in sorted((ROOT / "generated" / "python").glob("*.py")):
            shutil.copyfile(f, pkg / f.name)
        build_library(pkg / "_lib" / "libkforge.so")


class BinaryDistribution(Distribution):
    """The wheel holds a native library: platform-specific, not pure Python."""

    def has_ext_modules(self):
        return True


if __name__ == "__main__":  # setuptools runs it as __main__; tests import compile_library
    setup(cmdclass={"build_py": BuildPyWithLibrary}, distclass=BinaryDistribution)
