#!/bin/bash
# tests/tf/venv.sh -- the pinned TensorFlow virtualenv of the TF differential
# tests (tests/tf/run.sh). For the tests only: tools/setup.sh and the build
# never download anything.
#
#   bash tests/tf/venv.sh            create it if missing, verify it (imports
#                                    tensorflow), print its python
#   . tests/tf/venv.sh; kforge_tf_venv [--rebuild]
#                                    the same as a function; sets KFORGE_TF_PY
#
# Where: ${KFORGE_TF_VENV:-$HOME/.cache/kforge/tf-2.21.0}, outside the
# checkout and keyed by the pinned version, so the next run reuses it.
# Made with `python3 -m venv` of the python3 on PATH (on Debian that needs
# the package python3-venv, which tests/run.sh installs). A venv with the
# completion stamp of these pins is reused as it is; one without it is
# verified (imports tensorflow, versions are the pins) and adopted, or, when
# that fails (an interrupted install, other versions), removed and rebuilt. Returns non-zero with one clear "tf-venv: ..." line on failure.

KFORGE_TF_VERSION=2.21.0
# Exact pins (the versions `pip freeze` showed in the venv these tests were
# written against).
# keras: Keras 3, what `import keras` gives (a dependency of tensorflow-cpu, pinned here).
KFORGE_TF_PINS="tensorflow-cpu==2.21.0 tf-keras==2.21.0 keras==3.15.1 numpy==2.4.6 ml_dtypes==0.6.0"

# kforge_tf_verify PYTHON: imports tensorflow, numpy and ml_dtypes and checks
# that the installed versions are the pins.
kforge_tf_verify() {
  TF_CPP_MIN_LOG_LEVEL=3 "$1" -c '
import sys
from importlib import metadata
import numpy, ml_dtypes, tensorflow
bad = []
for pin in sys.argv[1].split():
    name, version = pin.split("==")
    try:
        have = metadata.version(name)
    except metadata.PackageNotFoundError:
        have = None
    if have != version:
        bad.append("%s is %s" % (pin, have))
sys.exit("not the pins: " + ", ".join(bad) if bad else 0)
' "$KFORGE_TF_PINS"
}

kforge_tf_venv() {
  local rebuild=0
  [ "${1:-}" = "--rebuild" ] && rebuild=1
  local dir="${KFORGE_TF_VENV:-$HOME/.cache/kforge/tf-$KFORGE_TF_VERSION}"
  local py="$dir/bin/python" stamp="$dir/.kforge-tf-pins"
  KFORGE_TF_PY=

  if [ "$rebuild" -eq 0 ] && [ -x "$py" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$KFORGE_TF_PINS" ]; then
    KFORGE_TF_PY=$py
    return 0
  fi
  if [ "$rebuild" -eq 0 ] && [ -x "$py" ] && kforge_tf_verify "$py" >/dev/null 2>&1; then
    # complete but without our stamp (made by hand or an older script): adopt it
    printf '%s\n' "$KFORGE_TF_PINS" >"$stamp" 2>/dev/null
    KFORGE_TF_PY=$py
    return 0
  fi
  if [ -e "$dir" ]; then
    # remove only what is a (half-built) virtualenv, never an arbitrary directory
    if [ -f "$dir/pyvenv.cfg" ] || [ -z "$(ls -A "$dir" 2>/dev/null)" ]; then
      echo "tf-venv: $dir is incomplete, stale or broken; removing it and building it again"
      rm -rf "$dir"
    else
      echo "tf-venv: $dir exists and is not a virtualenv; set KFORGE_TF_VENV to another path"
      return 1
    fi
  fi

  local sys_py
  sys_py=$(command -v python3) || { echo "tf-venv: no python3 on PATH"; return 1; }
  echo "tf-venv: creating $dir with $sys_py ($("$sys_py" --version 2>&1)): $KFORGE_TF_PINS"
  mkdir -p "$(dirname "$dir")" || { echo "tf-venv: cannot create $(dirname "$dir")"; return 1; }
  local log
  log=$(mktemp "${TMPDIR:-/tmp}/kforge-tf-venv.XXXXXX")
  if ! "$sys_py" -m venv "$dir" >"$log" 2>&1; then
    sed 's/^/tf-venv:   /' "$log" | tail -5
    echo "tf-venv: '$sys_py -m venv' failed; on Debian/Ubuntu install python3-venv" \
         "(apt-get install python3-venv; tests/run.sh does this)"
    rm -f "$log"; rm -rf "$dir"
    return 1
  fi
  # shellcheck disable=SC2086 -- the pins are separate words
  if ! "$dir/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
       $KFORGE_TF_PINS >"$log" 2>&1; then
    sed 's/^/tf-venv:   /' "$log" | tail -15
    echo "tf-venv: pip could not install $KFORGE_TF_PINS into $dir (network? PyPI?)"
    rm -f "$log"; rm -rf "$dir"
    return 1
  fi
  if ! kforge_tf_verify "$dir/bin/python" >"$log" 2>&1; then
    sed 's/^/tf-venv:   /' "$log" | tail -10
    echo "tf-venv: the new venv $dir cannot import tensorflow $KFORGE_TF_VERSION"
    rm -f "$log"; rm -rf "$dir"
    return 1
  fi
  rm -f "$log"
  printf '%s\n' "$KFORGE_TF_PINS" >"$stamp"
  echo "tf-venv: ready: $py"
  KFORGE_TF_PY=$py
  return 0
}

# kforge_tf_with_kforge: after kforge_tf_venv, pip-installs this checkout's
# ./python into the venv (--no-deps: it has numpy and ml_dtypes; a few
# seconds when python/build/native is populated) and builds the custom-op
# library against its TF (cached). One "tf-venv: ..." line on failure.
kforge_tf_with_kforge() {
  local log
  log=$(mktemp "${TMPDIR:-/tmp}/kforge-tf-pip.XXXXXX")
  if ! "$KFORGE_TF_PY" -m pip install --quiet --disable-pip-version-check --no-input --no-deps \
       --force-reinstall ./python >"$log" 2>&1; then
    tail -20 "$log"; rm -f "$log"
    echo "tf-venv: pip could not install ./python into the TensorFlow venv"
    return 1
  fi
  rm -f "$log"
  if ! TF_CPP_MIN_LOG_LEVEL=3 "$KFORGE_TF_PY" -m kforge.tf.build --quiet >/dev/null \
       2> >(grep -v "^WARNING: All log messages\|cudart_stub\|^I0000" >&2); then
    echo "tf-venv: the custom-op library does not build (python -m kforge.tf.build)"
    return 1
  fi
}

# run directly: create/verify and print the python
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  kforge_tf_venv "$@" || exit 1
  # verify by importing tensorflow (an existing venv is re-checked too)
  if ! kforge_tf_verify "$KFORGE_TF_PY" >/dev/null 2>&1; then
    echo "tf-venv: $KFORGE_TF_PY cannot import tensorflow; rebuilding"
    kforge_tf_venv --rebuild || exit 1
  fi
  echo "$KFORGE_TF_PY"
fi
