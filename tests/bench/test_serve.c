/*
** test_serve.c -- the bench's PyTorch servers (bench/bench_torch_serve.c):
** the client against a scripted server (tests/bench/fake_server.sh, two
** families by two names) and, where /usr/bin/python3 has torch, against
** the real scripts (bench/torch_timing.py) on two small rows.
**
**   test_serve FAKE_DIR REPO_DIR
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

static int passed, failed, skipped;
static char printed[4096];

/* bench_main.c's, here collecting what the client prints */
void bench_printf(const bench_ctx *ctx, const char *fmt, ...) {
  va_list ap;
  size_t n = strlen(printed);
  (void)ctx;
  va_start(ap, fmt);
  vsnprintf(printed + n, sizeof printed - n, fmt, ap);
  va_end(ap);
}

static void check(int ok, const char *what, double got) {
  if (ok) passed++;
  else failed++;
  printf("%s - %s (got %g)\n", ok ? "ok" : "FAIL", what, got);
}

int main(int argc, char **argv) {
  bench_ctx ctx;
  char fake[2][512], real[2][512];
  const char *fakes[2] = { fake[0], fake[1] }, *reals[2] = { real[0], real[1] };
  double v;
  if (argc != 3) return 2;
  memset(&ctx, 0, sizeof ctx);
  ctx.reps = 7;
  ctx.all_threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
  setenv("ATEN_CPU_CAPABILITY", "avx2", 1); /* one dispatch, whatever the CPU */
  snprintf(fake[0], sizeof fake[0], "%s/fake_server.sh", argv[1]);
  snprintf(fake[1], sizeof fake[1], "%s/other_server.sh", argv[1]);
  v = bench_torch_serve_init("sh", fakes, 2);
  check(v == 2, "init: both scripts name their prefix", v);
  v = bench_torch_serve_ms(&ctx, "fake reps", 1);
  check(v == 7, "the row's reps reach the server", v);
  v = bench_torch_serve_ms(&ctx, "fake cpus", 1);
  check(v == 1, "the 1-thread server is pinned to one CPU", v);
  v = bench_torch_serve_ms(&ctx, "fake cpus", ctx.all_threads);
  check(v == ctx.all_threads, "the all-thread server has every CPU", v);
  v = bench_torch_serve_ms(&ctx, "fake env", 1);
  check(v == 1, "the heap, OpenMP and dispatch variables reach the server", v);
  v = bench_torch_serve_ms(&ctx, "fake half", 1);
  check(v < 0, "a case PyTorch cannot run: no figure", v);
  v = bench_torch_serve_ms(&ctx, "fake nonsense", 1);
  check(v < 0, "an unknown case: no figure", v);
  v = bench_torch_serve_ms(&ctx, "nobody's key", 1);
  check(v < 0, "a key of no family: no figure", v);
  v = bench_torch_serve_ms(&ctx, "other reps", 1); /* the next family: fake's servers stop */
  check(v == 7, "the next family's server answers", v);
  v = bench_torch_serve_ms(&ctx, "fake reps", 1); /* and fake's start again */
  check(v == 7, "a family asked again gets a new server", v);
  v = bench_torch_serve_ms(&ctx, "fake die", 1);
  check(v < 0, "a server that exits: no figure", v);
  v = bench_torch_serve_ms(&ctx, "fake reps", 1);
  check(v < 0, "and no more from it", v);
  v = bench_torch_serve_ms(&ctx, "fake reps", ctx.all_threads);
  check(v == 7, "its sibling still answers", v);
  bench_torch_serve_close(&ctx);
  check(strstr(printed, "PyTorch did not time fake half: \"slow_conv2d_cpu\" not implemented for 'Half'") != NULL,
        "close names the case PyTorch could not run, with its reason", 0);
  check(strstr(printed, "the server of") != NULL && strstr(printed, "stopped") != NULL,
        "close names the server that stopped", 0);
  printf("printed at close:\n%s", printed);

  if (system("/usr/bin/python3 -c 'import torch' >/dev/null 2>&1") != 0) {
    printf("skip - /usr/bin/python3 has no torch: the real scripts not run\n");
    skipped += 2;
  } else {
    snprintf(real[0], sizeof real[0], "%s/bench/bench_torch.py", argv[2]);
    snprintf(real[1], sizeof real[1], "%s/bench/bench_torch_dwbpf.py", argv[2]);
    ctx.reps = 3;
    v = bench_torch_serve_init("/usr/bin/python3", reals, 2);
    check(v == 2, "init: the real scripts name their prefixes", v);
    v = bench_torch_serve_ms(&ctx, "bngrad f32 nhwc 64x1x1x2048", 1);
    check(v > 0 && v < 1e4, "PyTorch times a batch-norm row", v);
    v = bench_torch_serve_ms(&ctx, "dwbpf f32 nhwc 8x7x7x960 k3 s1 m1", 1);
    check(v > 0 && v < 1e4, "PyTorch times a filter-gradient row", v);
    bench_torch_serve_close(&ctx);
  }
  printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
  return failed != 0;
}
