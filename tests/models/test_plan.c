/*
** test_plan.c -- the step arena planner (tools/model/arena.c) alone: random
** lifetimes and sizes place soundly (kfm_arena_verify: aligned, inside,
** no overlap between tensors live at one call, peak >= lower bound), the
** verifier catches broken placements, and simple cases reach the bound.
** Every shipped model's own plan is verified by its host check
** (tools/model/check.c, run by tests/models/test_models.sh).
*/
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"

static int passed, failed;

static void check(int ok, const char *what) {
  if (ok) passed++; else failed++;
  printf("%s - %s\n", ok ? "ok" : "FAIL", what);
}

static uint64_t next(uint64_t *s) {
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 0x2545F4914F6CDD1Dull;
}

#define N 600

int main(void) {
  static kfm_tensor t[N];
  static int order[N];
  uint64_t s = 0x1234567u;
  int round, bad = 0, tight = 1, i, a, b;
  char what[256];
  for (round = 0; round < 200; round++) {
    int n = 1 + (int)(next(&s) % N), calls = 1 + (int)(next(&s) % 90);
    size_t arena;
    for (i = 0; i < n; i++) {
      int f = (int)(next(&s) % (uint64_t)calls), len = (int)(next(&s) % 4);
      t[i].first = f;
      t[i].last = f + len;
      t[i].bytes = next(&s) % 5 == 0 ? 0 : (size_t)(next(&s) % (round % 2 ? 500000 : 300)); /* odd sizes too */
      t[i].off = 12345;
    }
    arena = kfm_arena_place(t, n, order);
    if (kfm_arena_verify(t, n, arena, &a, &b)) bad++;
  }
  snprintf(what, sizeof what, "200 random steps (up to %d tensors, sizes not multiples of 16, empty ones) place "
           "soundly: aligned, inside, no live overlap, peak >= lower bound (%d bad)", N, bad);
  check(bad == 0, what);

  /* Calls that each hold one tensor, in sequence: all share offset 0. */
  for (i = 0; i < 10; i++) { t[i].first = t[i].last = i; t[i].bytes = 100; }
  check(kfm_arena_place(t, 10, order) == 112 && kfm_arena_lower_bound(t, 10) == 112,
        "tensors never live together share one slot: arena = lower bound = one aligned tensor");
  /* A chain: a producer live over calls 0..2, each call's own tensor. */
  t[0].first = 0; t[0].last = 2; t[0].bytes = 1000;
  for (i = 1; i < 4; i++) { t[i].first = t[i].last = i - 1; t[i].bytes = 64; }
  t[4].first = t[4].last = 3; t[4].bytes = 2000;
  {
    size_t ar = kfm_arena_place(t, 5, order);
    check(ar == 2000 && kfm_arena_lower_bound(t, 5) == 2000 && t[4].off == 0 && !kfm_arena_verify(t, 5, ar, &a, &b),
          "a tensor live after the chain reuses the chain's bytes (arena = lower bound = 2000)");
    for (i = 0; i < 5; i++) tight &= kfm_arena_verify(t, 5, ar, &a, &b) == NULL;
  }
  /* The verifier: overlap, misalignment, past the end, below the bound. */
  t[0].first = 0; t[0].last = 1; t[0].bytes = 64; t[0].off = 0;
  t[1].first = 1; t[1].last = 1; t[1].bytes = 64; t[1].off = 48;
  check(kfm_arena_verify(t, 2, 256, &a, &b) != NULL && a == 0 && b == 1, "the verifier finds two live tensors that overlap");
  t[1].off = 8;
  check(kfm_arena_verify(t, 2, 256, &a, &b) != NULL, "the verifier finds a misaligned offset");
  t[1].off = 64;
  check(kfm_arena_verify(t, 2, 100, &a, &b) != NULL, "the verifier finds a tensor past the arena");
  t[1].first = t[1].last = 2;
  t[1].off = 0;
  check(kfm_arena_verify(t, 2, 64, &a, &b) == NULL && tight, "the verifier accepts tensors apart in time sharing bytes");
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
