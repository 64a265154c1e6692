"""Compiles kforge's TensorFlow custom-op library (kforge_tf.c) against the running TF.

The library is built on first use (kforge.tf.load()) or ahead of time
(``python -m kforge.tf.build``) with the machine's C compiler ($CC, else cc,
gcc or clang), against:

- TF's C op/kernel API headers (tf.sysconfig.get_include()) and its
  framework library (tf.sysconfig.get_link_flags());
- the package's libkforge.so and its headers (kforge._native), among them
  kfg_tf_ops.h, the op table generated from the specs.

It goes to a cache directory keyed by the TF version and a hash of the C
source, the headers, the compiler, the flags and libkforge.so:
$KFORGE_TF_CACHE, else $XDG_CACHE_HOME/kforge/tfop, else
~/.cache/kforge/tfop; the file is <tf-version>-<hash>/libkforge_tf.so,
compiled to a temporary name and renamed into place, so two processes
building at once both end with a complete library.
"""
import hashlib
import os
import shlex
import shutil
import subprocess
import tempfile

from .. import _native

_HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(_HERE, "kforge_tf.c")
LIB_NAME = "libkforge_tf.so"
CFLAGS = ["-std=c11", "-O2", "-fPIC", "-shared", "-Wall", "-Wextra", "-Werror"]


class BuildError(RuntimeError):
    """The custom-op library could not be built."""


def _tf():
    import tensorflow as tf  # noqa: F401 -- deferred: importing TF is slow
    return tf


def compiler():
    """The C compiler command (a list): $CC, else the first of cc, gcc, clang on PATH."""
    env = os.environ.get("CC")
    if env:
        cmd = shlex.split(env)
        if cmd and shutil.which(cmd[0]):
            return cmd
        raise BuildError("kforge.tf: the C compiler CC=%r is not found; install a C compiler "
                         "(e.g. apt-get install gcc) or set CC" % env)
    for name in ("cc", "gcc", "clang"):
        if shutil.which(name):
            return [name]
    raise BuildError("kforge.tf: no C compiler found (tried $CC, cc, gcc, clang): kforge's TensorFlow "
                     "ops are compiled on first use against the installed TensorFlow; install one "
                     "(e.g. apt-get install gcc) or build ahead of time with `python -m kforge.tf.build`")


def _link_dir_and_lib(tf):
    """TF's framework library directory and its -l flag, from tf.sysconfig.get_link_flags()."""
    libdir, libs = None, []
    for f in tf.sysconfig.get_link_flags():
        if f.startswith("-L"):
            libdir = f[2:]
        elif f.startswith("-l"):
            libs.append(f)
    if libdir is None:
        libdir = tf.sysconfig.get_lib()
    return libdir, libs or ["-l:libtensorflow_framework.so.2"]


def _file_hash(path, h):
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)


def cache_dir():
    """The root of the build cache."""
    d = os.environ.get("KFORGE_TF_CACHE")
    if d:
        return d
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "kforge", "tfop")


def command(output):
    """The compile-and-link command for the running TF (a list), and the cache key."""
    tf = _tf()
    cc = compiler()
    kf_lib = _native.library_path()
    kf_inc = _native.include_dir()
    tf_inc = tf.sysconfig.get_include()
    tf_libdir, tf_libs = _link_dir_and_lib(tf)
    kf_libdir = os.path.dirname(kf_lib)
    extra = shlex.split(os.environ.get("CFLAGS", ""))
    cmd = (cc + CFLAGS + extra + ["-I" + tf_inc, "-I" + kf_inc, SOURCE, "-o", output,
                                  "-L" + tf_libdir] + tf_libs +
           ["-L" + kf_libdir, "-l:libkforge.so", "-lpthread",
            "-Wl,-rpath," + tf_libdir, "-Wl,-rpath," + kf_libdir])
    h = hashlib.sha256()
    h.update(repr((cc, CFLAGS, extra, tf.__version__, tf_inc, tf_libdir, kf_libdir)).encode())
    _file_hash(SOURCE, h)
    _file_hash(kf_lib, h)
    for name in ("kforge.h", "kforge_ops.h", "kfpy_pool.h", "kfg_tf_ops.h"):
        p = os.path.join(kf_inc, name)
        if os.path.exists(p):
            _file_hash(p, h)
    return cmd, "%s-%s" % (tf.__version__, h.hexdigest()[:16])


def library_path():
    """Where the library for the running TF and this kforge is (built or not)."""
    _, key = command("OUT")
    return os.path.join(cache_dir(), key, LIB_NAME)


def build(force=False, verbose=False):
    """Builds the library if it is not in the cache (or force); returns its path."""
    _, key = command("OUT")
    dest_dir = os.path.join(cache_dir(), key)
    dest = os.path.join(dest_dir, LIB_NAME)
    if os.path.exists(dest) and not force:
        return dest
    try:
        os.makedirs(dest_dir, exist_ok=True)
    except OSError as e:
        raise BuildError("kforge.tf: cannot create the build cache %s: %s (set KFORGE_TF_CACHE)"
                         % (dest_dir, e)) from e
    fd, tmp = tempfile.mkstemp(prefix=".%s." % LIB_NAME, suffix=".tmp", dir=dest_dir)
    os.close(fd)
    try:
        cmd, _ = command(tmp)
        if verbose:
            print("kforge.tf: " + " ".join(shlex.quote(c) for c in cmd), flush=True)
        try:
            r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        except OSError as e:
            raise BuildError("kforge.tf: cannot run the C compiler %s: %s" % (cmd[0], e)) from e
        if r.returncode != 0:
            raise BuildError("kforge.tf: compiling %s failed:\n%s\n%s"
                             % (SOURCE, " ".join(shlex.quote(c) for c in cmd), r.stdout))
        os.chmod(tmp, 0o755)
        os.replace(tmp, dest)  # atomic: a concurrent build's rename just replaces an identical file
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return dest
