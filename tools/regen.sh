#!/bin/sh
# Ninja's manifest edge: regenerate generated/ with the generator, write the
# depfile of what it read, and touch the manifest so ninja reloads it (and
# with it generated/sources.ninja). Without lua5.4 the checked-in generated/
# is built as it is.
manifest=$1
depfile=$2
mkdir -p "$(dirname "$depfile")" || exit 1
if command -v lua5.4 >/dev/null 2>&1; then
  lua5.4 generator/kforge-gen.lua --quiet --depfile "$depfile" --deptarget "$manifest" || exit 1
else
  echo "regen: lua5.4 not found; building the checked-in generated/ as it is" >&2
  printf '%s: tools/regen.sh\n' "$manifest" > "$depfile"
fi
touch "$manifest"
