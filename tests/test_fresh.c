/*
** test_fresh.c -- kf_plan_options.fresh_outputs: the plan's streaming
** threshold (its "stream" choice) is the warm one without the hint (a
** quarter of the LLC, or less where this CPU measured that streaming pays:
** kf_stream.c) and the L2 with it, whatever wisdom or the plan mode say;
** and the same call with every output streamed or none (KFORGE_STREAM)
** gives bitwise the same outputs, with and without the hint too (the input
** gradient; batch norm's fresh plan sweeps pass 1: f32 rounding), so
** whatever the measurement decides changes no result; a plan measured
** cold keeps the fresh threshold; the input gradient's fresh plans
** prefetch dx (wahead=1) and read dy further ahead (ahead: half the L1d,
** not a quarter), its warm ones not; fresh batch-norm plans, and NHWC
** filter-gradient ones at every stride, stream the next block's rows
** (next=1), warm ones not. The filter
** gradient, whose output is small, reads the hint as "the inputs come from
** DRAM too": its unit-stride plans prefetch (llc=1; NHWC span by its
** rule), its strided ones keep the rule's LLC; the two plans' results agree within f32
** rounding (span and, off AVX-512, the prefetching walker's order round
** differently: docs/tuning.md). The caches are fixed by KFORGE_L2/KFORGE_LLC.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kfi.h"

#define L2 ((int64_t)1 << 20)
#define LLC ((int64_t)32 << 20)

/* The value of choice name (" stream=", " llc=") in a plan's choices, -1 if it has none. */
static int64_t choice_of(const kf_plan *p, const char *name) {
  char buf[300];
  const char *s = strstr(kf_plan_choices(p, buf, sizeof buf), name);
  return s ? strtoll(s + strlen(name), NULL, 10) : -1;
}
#define stream_of(p) choice_of(p, " stream=")
#define llc_of(p) choice_of(p, " llc=")

typedef struct call {
  kf_op op;
  kf_attrs attrs;
  kf_tensor_desc in[6];
  int nin;
  int32_t sizes[4];
} call;

static void bn_call(call *k, int64_t n, int64_t hw, int64_t c) {
  int64_t d4[4] = { n, hw, hw, c }, d1[1] = { c }, d0[1] = { 0 };
  int i;
  k->op = KF_OP_FUSED_BATCH_NORM_GRAD_V3;
  kf_attrs_init(k->op, &k->attrs);
  k->attrs.T = KF_FLOAT;
  k->attrs.is_training = 1;
  k->nin = 6;
  k->in[0] = th_desc(KF_FLOAT, 4, d4);
  k->in[1] = th_desc(KF_FLOAT, 4, d4);
  for (i = 2; i < 5; i++) k->in[i] = th_desc(KF_FLOAT, 1, d1);
  k->in[5] = th_desc(KF_FLOAT, 1, d0);
}

static void dw_call(call *k, int64_t n, int64_t hw, int64_t c) {
  int64_t four[1] = { 4 }, fd[4] = { 3, 3, c, 1 }, gd[4] = { n, hw, hw, c };
  k->op = KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT;
  kf_attrs_init(k->op, &k->attrs);
  kf_attrs_set(k->op, &k->attrs, "padding", "SAME", NULL);
  kf_attrs_set(k->op, &k->attrs, "strides", "1,1,1,1", NULL);
  k->nin = 3;
  k->sizes[0] = (int32_t)n, k->sizes[1] = (int32_t)hw, k->sizes[2] = (int32_t)hw, k->sizes[3] = (int32_t)c;
  k->in[0] = th_desc(KF_INT32, 1, four);
  k->in[0].host_data = k->sizes;
  k->in[1] = th_desc(KF_FLOAT, 4, fd);
  k->in[2] = th_desc(KF_FLOAT, 4, gd);
}

static size_t bytes_of(const kf_tensor_desc *d) {
  size_t b = 4;
  int i;
  for (i = 0; i < d->rank; i++) b *= (size_t)d->dims[i];
  return b;
}

static void *alloc64(size_t n) { return aligned_alloc(64, (n + 63) / 64 * 64 + 64); }

/* Runs plan p on inputs in; outputs into fresh buffers out[] (caller frees). */
static int run(const call *k, const kf_plan *p, void *const *in, void **out) {
  kf_error err = {0};
  size_t sb = kf_plan_scratch_bytes(p);
  void *scratch = sb ? alloc64(sb) : NULL;
  int i, ok;
  for (i = 0; i < kf_plan_num_outputs(p); i++) out[i] = alloc64(bytes_of(kf_plan_output_desc(p, i)));
  ok = kf_execute(p, (const void *const *)in, out, scratch, sb, &err) == KF_OK;
  free(scratch);
  (void)k;
  return th_check(ok, "runs (%s)", ok ? "ok" : err.message);
}

static void check_call(call *k, const char *what) {
  kf_plan_options none, fresh, fresh_rule;
  kf_plan pn, p0, pf, pr, pa, pv;
  kf_error err = {0};
  kfi_caches c;
  int64_t warm;
  void *in[6] = { 0 }, *o0[5] = { 0 }, *of[5] = { 0 }, *oa[5] = { 0 }, *ov[5] = { 0 };
  th_rng r;
  size_t dx;
  int i, j;
  if (!th_case("%s", what)) return;
  memset(&none, 0, sizeof none);
  fresh = none;
  fresh.fresh_outputs = 1;
  fresh_rule = fresh;
  fresh_rule.measure = KF_PLAN_RULE;
  if (!th_check(kf_plan_op(&pn, k->op, &k->attrs, k->in, k->nin, NULL, &err) == KF_OK &&
                  kf_plan_op(&p0, k->op, &k->attrs, k->in, k->nin, &none, &err) == KF_OK &&
                  kf_plan_op(&pf, k->op, &k->attrs, k->in, k->nin, &fresh, &err) == KF_OK &&
                  kf_plan_op(&pr, k->op, &k->attrs, k->in, k->nin, &fresh_rule, &err) == KF_OK,
                "plans (%s)", err.message))
    return;
  kfi_cpu_caches(&c);
  warm = kfi_stream_warm(&c);
  th_check(warm == LLC / 4 || warm == 2 * L2 || warm == L2 / 2,
           "the warm threshold: a quarter of the LLC, two L2s or half the L2 (%lld)", (long long)warm);
  th_check(stream_of(&pn) == warm && stream_of(&p0) == warm,
           "no options and a zeroed struct: stream from the warm threshold (%lld, %lld)", (long long)stream_of(&pn),
           (long long)stream_of(&p0));
  th_check(stream_of(&pf) == L2 && stream_of(&pr) == L2, "fresh outputs: stream from the L2 (%lld, %lld)",
           (long long)stream_of(&pf), (long long)stream_of(&pr));
  th_check(!strcmp(kf_plan_kernel_name(&p0), kf_plan_kernel_name(&pf)), "the hint keeps the kernel (%s)",
           kf_plan_kernel_name(&pf));
  { /* measured cold (no hint): the search starts from the fresh plan and never varies the streaming
       threshold (its cost falls on the next op, which a call timed alone does not see) */
    kf_plan_options cold = none;
    kf_plan pc;
    cold.measure = KF_PLAN_MEASURE_COLD;
    kf_wisdom_forget();
    if (th_check(kf_plan_op(&pc, k->op, &k->attrs, k->in, k->nin, &cold, &err) == KF_OK, "cold measured plan (%s)",
                 err.message))
      th_check(stream_of(&pc) == L2, "measured cold: stream from the L2, the fresh rule's (%lld)", (long long)stream_of(&pc));
    kf_wisdom_forget();
  }
  { /* the input gradient prefetches its dx rows for writing with the hint only; batch norm has no such choice */
    const int dw = k->op == KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT;
    th_check(choice_of(&p0, " wahead=") == (dw ? 0 : -1) && choice_of(&pf, " wahead=") == (dw ? 1 : -1),
             "wahead: %s (%lld without the hint, %lld with it)", dw ? "0, then 1" : "none", (long long)choice_of(&p0, " wahead="),
             (long long)choice_of(&pf, " wahead="));
    th_check(choice_of(&p0, " next=") == (dw ? -1 : 0) && choice_of(&pf, " next=") == (dw ? -1 : 1),
             "next: %s (%lld without the hint, %lld with it)", dw ? "none" : "0, then 1",
             (long long)choice_of(&p0, " next="), (long long)choice_of(&pf, " next="));
    th_check(choice_of(&p0, " ahead=") == (dw ? c.l1d / 4 : -1) && choice_of(&pf, " ahead=") == (dw ? c.l1d / 2 : -1),
             "ahead: %s (%lld without the hint, %lld with it)", dw ? "a quarter of the L1d, then half" : "none",
             (long long)choice_of(&p0, " ahead="), (long long)choice_of(&pf, " ahead="));
  }
  dx = bytes_of(kf_plan_output_desc(&pf, 0));
  printf("%s: dx %zu bytes: past the streaming threshold %s without the hint, %s with it\n", what, dx,
         (int64_t)dx >= stream_of(&p0) ? "yes" : "no", (int64_t)dx >= stream_of(&pf) ? "yes" : "no");
  th_seed_case(&r, "%s", what);
  for (i = 0; i < k->nin; i++) {
    size_t n = bytes_of(&k->in[i]);
    if (k->in[i].host_data) continue;
    in[i] = alloc64(n);
    for (j = 0; j < (int)(n / 4); j++) ((float *)in[i])[j] = (float)th_uniform(&r, i == 4 ? 0.5 : -1, 1);
  }
  if (run(k, &p0, in, o0) && run(k, &pf, in, of))
    for (i = 0; i < kf_plan_num_outputs(&pf); i++) {
      const size_t m = bytes_of(kf_plan_output_desc(&pf, i)) / 4;
      double big = 0, diff = 0;
      size_t e;
      for (e = 0; e < m; e++) {
        const double a = ((float *)o0[i])[e], b = ((float *)of[i])[e];
        big = fmax(big, fabs(a));
        diff = fmax(diff, fabs(a - b));
      }
      if (k->op == KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT) /* prefetches only */
        th_check(memcmp(o0[i], of[i], m * 4) == 0, "output %d bitwise the same with and without the hint", i);
      else /* batch norm's fresh plan sweeps pass 1 (llc=1): other partial sums of rows, the same to f32 rounding
              (sums of up to 2^16 terms of at most 1 in two groupings: 1e-5 of the largest is ten times that) */
        th_check(diff <= 1e-5 * big, "output %d with and without the hint: the same to f32 rounding (%.2g of %.2g)",
                 i, diff, big);
    }
  setenv("KFORGE_STREAM", "1", 1); /* every output streamed */
  th_check(kf_plan_op(&pa, k->op, &k->attrs, k->in, k->nin, NULL, &err) == KF_OK && stream_of(&pa) == 1,
           "KFORGE_STREAM=1: stream from 1 byte (%lld)", (long long)stream_of(&pa));
  setenv("KFORGE_STREAM", "1G", 1); /* none */
  th_check(kf_plan_op(&pv, k->op, &k->attrs, k->in, k->nin, NULL, &err) == KF_OK && stream_of(&pv) == 1 << 30,
           "KFORGE_STREAM=1G: stream from 1 GiB (%lld)", (long long)stream_of(&pv));
  unsetenv("KFORGE_STREAM");
  if (run(k, &pa, in, oa) && run(k, &pv, in, ov))
    for (i = 0; i < kf_plan_num_outputs(&pa); i++)
      th_check(memcmp(o0[i], oa[i], bytes_of(kf_plan_output_desc(&pa, i))) == 0 &&
                   memcmp(o0[i], ov[i], bytes_of(kf_plan_output_desc(&pa, i))) == 0,
               "output %d bitwise the same streamed always, never and by the rule", i);
  for (i = 0; i < 6; i++) free(in[i]);
  for (i = 0; i < 5; i++) free(o0[i]), free(of[i]), free(oa[i]), free(ov[i]);
  th_case_end();
}

static void filter_call(call *k, int64_t n, int64_t hw, int64_t c, int stride, int nchw) {
  int64_t four[1] = { 4 }, xd[4] = { n, hw, hw, c }, gd[4] = { n, (hw + stride - 1) / stride, (hw + stride - 1) / stride, c };
  char st[32];
  k->op = KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_FILTER;
  kf_attrs_init(k->op, &k->attrs);
  kf_attrs_set(k->op, &k->attrs, "padding", "SAME", NULL);
  snprintf(st, sizeof st, nchw ? "1,1,%d,%d" : "1,%d,%d,1", stride, stride);
  kf_attrs_set(k->op, &k->attrs, "strides", st, NULL);
  if (nchw) {
    kf_attrs_set(k->op, &k->attrs, "data_format", "NCHW", NULL);
    xd[1] = c, xd[3] = hw, gd[3] = gd[1], gd[1] = c;
  }
  k->nin = 3;
  k->sizes[0] = 3, k->sizes[1] = 3, k->sizes[2] = (int32_t)c, k->sizes[3] = 1;
  k->in[0] = th_desc(KF_FLOAT, 4, xd);
  k->in[1] = th_desc(KF_INT32, 1, four);
  k->in[1].host_data = k->sizes;
  k->in[2] = th_desc(KF_FLOAT, 4, gd);
}

static void check_filter(call *k, const char *what, int cold) {
  kf_plan_options fresh;
  kf_plan p0, pf;
  kf_error err = {0};
  void *in[3] = { 0 }, *o0[1] = { 0 }, *of[1] = { 0 };
  th_rng r;
  int i, j;
  if (!th_case("%s", what)) return;
  memset(&fresh, 0, sizeof fresh);
  fresh.fresh_outputs = 1;
  if (!th_check(kf_plan_op(&p0, k->op, &k->attrs, k->in, k->nin, NULL, &err) == KF_OK &&
                  kf_plan_op(&pf, k->op, &k->attrs, k->in, k->nin, &fresh, &err) == KF_OK,
                "plans (%s)", err.message))
    return;
  th_check(llc_of(&p0) == LLC, "without the hint: the detected LLC (llc=%lld)", (long long)llc_of(&p0));
  th_check(llc_of(&pf) == (cold ? 1 : LLC), "with it: %s (llc=%lld)", cold ? "inputs from DRAM, prefetched" : "the LLC",
           (long long)llc_of(&pf));
  { /* NHWC streams the next piece with the hint, at every stride; NCHW never */
    const int nhwc = k->attrs.data_format != KF_NCHW;
    th_check(choice_of(&p0, " next=") == 0 && choice_of(&pf, " next=") == nhwc, "next: %s (%lld, then %lld)",
             nhwc ? "0, then 1" : "0 both", (long long)choice_of(&p0, " next="), (long long)choice_of(&pf, " next="));
  }
  th_seed_case(&r, "%s", what);
  for (i = 0; i < 3; i += 2) {
    size_t n = bytes_of(&k->in[i]);
    in[i] = alloc64(n);
    for (j = 0; j < (int)(n / 4); j++) ((float *)in[i])[j] = (float)th_uniform(&r, -1, 1);
  }
  if (run(k, &p0, in, o0) && run(k, &pf, in, of)) {
    const size_t m = bytes_of(kf_plan_output_desc(&pf, 0)) / 4;
    double big = 0, diff = 0;
    size_t e;
    for (e = 0; e < m; e++) {
      const double a = ((float *)o0[0])[e], b = ((float *)of[0])[e];
      big = fmax(big, fabs(a));
      diff = fmax(diff, fabs(a - b));
    }
    /* sums of about n*oh*ow terms of |x dy| <= 1 in two orders: 1e-5 of the largest is
       over ten times their rounding */
    th_check(big > 0 && diff <= 1e-5 * big, "with and without the hint: the same sums to f32 rounding (%.2g of %.2g)", diff,
             big);
  }
  for (i = 0; i < 3; i++) free(in[i]);
  free(o0[0]), free(of[0]);
  th_case_end();
}

int main(void) {
  call k;
  setenv("KFORGE_L2", "1M", 1);
  setenv("KFORGE_LLC", "32M", 1);
  unsetenv("KFORGE_PLAN");
  unsetenv("KFORGE_WISDOM");
  unsetenv("KFORGE_STREAM");
  /* dx of 2 MiB: streamed with the hint only; of 64 KiB: by neither. */
  bn_call(&k, 8, 32, 64);
  check_call(&k, "batch norm 8x32x32x64");
  bn_call(&k, 4, 8, 128);
  check_call(&k, "batch norm 4x8x8x128");
  dw_call(&k, 8, 32, 64);
  check_call(&k, "depthwise input 8x32x32x64");
  dw_call(&k, 4, 8, 128);
  check_call(&k, "depthwise input 4x8x8x128");
  filter_call(&k, 8, 16, 64, 1, 0);
  check_filter(&k, "filter gradient NHWC 8x16x16x64 stride 1", 1);
  filter_call(&k, 8, 16, 64, 2, 0);
  check_filter(&k, "filter gradient NHWC 8x16x16x64 stride 2", 0);
  filter_call(&k, 8, 16, 64, 1, 1);
  check_filter(&k, "filter gradient NCHW 8x64x16x16 stride 1", 1);
  filter_call(&k, 8, 16, 64, 2, 1);
  check_filter(&k, "filter gradient NCHW 8x64x16x16 stride 2", 0);
  return th_done();
}
