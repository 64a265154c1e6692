#!/bin/bash
# tests/python/run.sh -- proves `pip install ./python[test]` works in a fresh
# virtualenv (python3 -m venv, the python3 on PATH), with the pinned versions
# of tests/python/constraints.txt, then runs the package's pytest suite.
# Ends with one line "N passed, M failed" (any error counts as a failure;
# exit status non-zero then). KFORGE_PY_VENV=DIR: use (and keep) that venv
# instead of a temporary one. The library is the checkout's `ninja pylib`
# (build/'s objects; tests/run.sh built them) where that build has run, else
# compiled into python/build/native/ (tests/python/test_build.py covers that
# path).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
venv=${KFORGE_PY_VENV:-$tmp/venv}
fail() { echo "tests/python: $*" >&2; echo "0 passed, 1 failed"; exit 1; }

if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv" >"$tmp/venv.log" 2>&1 || { cat "$tmp/venv.log" >&2; fail "python3 -m venv failed"; }
fi
export PIP_DISABLE_PIP_VERSION_CHECK=1
# setuptools first: the package is built without isolation, with the pinned one.
"$venv/bin/python" -m pip install -q -c "$here/constraints.txt" setuptools >"$tmp/pip.log" 2>&1 \
  || { cat "$tmp/pip.log" >&2; fail "pip install setuptools failed"; }
# pip rebuilds a local directory on every install: the C library relinks (a
# few seconds), so a reused venv tests this checkout.
"$venv/bin/python" -m pip install -q --no-build-isolation -c "$here/constraints.txt" "$root/python[test]" \
  >"$tmp/pip.log" 2>&1 || { cat "$tmp/pip.log" >&2; fail "pip install ./python[test] failed"; }

# Outside the checkout, so `import kforge` is the installed package.
cd "$tmp" || fail "cd $tmp"
"$venv/bin/python" -m pytest -q -p no:cacheprovider "$here" >"$tmp/pytest.log" 2>&1
rc=$?
tail -n 30 "$tmp/pytest.log" >&2
summary=$(tail -n 1 "$tmp/pytest.log")
num() { printf '%s\n' "$summary" | grep -oE "[0-9]+ $1" | grep -oE '^[0-9]+' | head -n 1; }
passed=$(num passed); failed=$(num failed); errors=$(num error)
passed=${passed:-0}; failed=$(( ${failed:-0} + ${errors:-0} ))
if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
