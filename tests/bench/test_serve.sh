#!/bin/sh
# The bench's PyTorch servers: builds tests/bench/test_serve.c with the
# client (bench/bench_torch_serve.c; warnings are errors) and runs it.
set -e
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
${CC:-cc} -std=gnu11 -O1 -Wall -Wextra -Werror -Iruntime -Igenerated -Ibench \
  tests/bench/test_serve.c bench/bench_torch_serve.c -o "$d/test_serve"
cp tests/bench/fake_server.sh "$d/fake_server.sh"
cp tests/bench/fake_server.sh "$d/other_server.sh"
"$d/test_serve" "$d" "$(pwd)"
