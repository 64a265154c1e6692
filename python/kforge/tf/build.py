"""Builds kforge's TensorFlow custom-op library ahead of time.

    python -m kforge.tf.build [--force] [--quiet]

Prints the library's path. Normally kforge.tf.load() builds it on first use.
"""
import argparse
import os
import sys


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m kforge.tf.build", description=__doc__.splitlines()[0])
    p.add_argument("--force", action="store_true", help="rebuild even if the cache has it")
    p.add_argument("--quiet", action="store_true", help="do not print the compiler command")
    args = p.parse_args(argv)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    from . import _build
    try:
        path = _build.build(force=args.force, verbose=not args.quiet)
    except _build.BuildError as e:
        print(str(e), file=sys.stderr)
        return 1
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
