/*
** test_api.c -- the C API's error paths: one negative test per validation
** rule of specs/ops/bngrad.lua (and a check that every rule of the spec has
** one), attribute parsing and defaults, op tables, plan/execute misuse.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kfi.h"

#define MAX_SEEN 64
static const char *seen[MAX_SEEN];
static int nseen;

static void saw(const char *rule) {
  int i;
  for (i = 0; i < nseen; i++)
    if (strcmp(seen[i], rule) == 0) return;
  if (nseen < MAX_SEEN) seen[nseen++] = rule;
}

/* Expects planning to fail with status st, rule id and a message containing text. */
static void expect(kf_op op, const kf_attrs *a, const kf_tensor_desc *in, int n, kf_status st, const char *rule,
                   const char *text, const char *what) {
  kf_plan p;
  kf_error err = {0};
  kf_status got;
  memset(&err, 0, sizeof err);
  err.rule = "";
  got = kf_plan_op(&p, op, a, in, n, NULL, &err);
  th_check(got == st && strcmp(err.rule, rule) == 0 && strstr(err.message, text) != NULL,
           "%s: %s / %s / \"%s\" (got %s / %s / \"%s\")", what, kf_status_name(st), rule, text, kf_status_name(got),
           err.rule ? err.rule : "(null)", err.message);
  if (got == st) saw(rule);
}

static void bn_inputs(kf_tensor_desc *in, kf_dtype t, int rank, const int64_t *dims, int64_t c) {
  int64_t cd[1];
  cd[0] = c;
  in[0] = th_desc(t, rank, dims);
  in[1] = in[0];
  in[2] = th_desc(KF_FLOAT, 1, cd);
  in[3] = in[2];
  in[4] = in[2];
  in[5] = in[2];
}

static void bngrad_rules(void) {
  const kf_op V1 = KF_OP_FUSED_BATCH_NORM_GRAD, V2 = KF_OP_FUSED_BATCH_NORM_GRAD_V2,
              V3 = KF_OP_FUSED_BATCH_NORM_GRAD_V3;
  int64_t d4[4] = { 2, 3, 4, 5 }, d3[3] = { 2, 3, 4 }, d2[2] = { 5, 1 }, d6[6] = { 1, 1, 1, 1, 1, 5 };
  int64_t dother[4] = { 2, 3, 5, 4 }, huge[4] = { 1 << 20, 1 << 10, 1 << 2, 5 };
  kf_tensor_desc in[6];
  kf_attrs a;

  kf_attrs_init(V2, &a);
  bn_inputs(in, KF_FLOAT, 4, d4, 5);

  /* Op-def constraints. */
  {
    kf_attrs b = a;
    b.T = KF_HALF;
    expect(V1, &b, in, 5, KF_INVALID_ARGUMENT, "attr.allowed",
           "Value for attr 'T' of half is not in the list of allowed values: float", "V1 with T=half");
    b.T = KF_DOUBLE;
    expect(V2, &b, in, 5, KF_INVALID_ARGUMENT, "attr.allowed", "attr 'T' of double ", "V2 with T=double");
    b = a;
    b.data_format = KF_NDHWC;
    expect(V2, &b, in, 5, KF_INVALID_ARGUMENT, "attr.allowed", "attr 'data_format' of \"NDHWC\"",
           "V2 does not allow NDHWC");
    b.data_format = (kf_data_format)9;
    expect(V3, &b, in, 6, KF_INVALID_ARGUMENT, "attr.format", "Invalid data format", "unknown data format");
  }
  in[1].dtype = KF_HALF;
  expect(V2, &a, in, 5, KF_INVALID_ARGUMENT, "bngrad.input_dtype", "x must be float, got half", "x dtype != T");
  bn_inputs(in, KF_HALF, 4, d4, 5);
  in[2].dtype = KF_HALF;
  expect(V2, &a, in, 5, KF_INVALID_ARGUMENT, "bngrad.input_dtype", "scale must be float, got half",
         "V2 scale must be float");
  bn_inputs(in, KF_FLOAT, 4, d4, 5);
  in[5].dtype = KF_DOUBLE;
  expect(V3, &a, in, 6, KF_INVALID_ARGUMENT, "bngrad.input_dtype", "reserve_space_3 must be float",
         "V3 reserve_space_3 dtype");

  /* TF's kernel checks, in order. */
  bn_inputs(in, KF_FLOAT, 4, d4, 5);
  in[0] = th_desc(KF_FLOAT, 3, d3);
  expect(V2, &a, in, 5, KF_INVALID_ARGUMENT, "bngrad.dy_rank", "input must be 4 or 5-dimensional[2,3,4]",
         "y_backprop rank 3");
  bn_inputs(in, KF_FLOAT, 4, d4, 5);
  in[1] = th_desc(KF_FLOAT, 6, d6);
  expect(V2, &a, in, 5, KF_INVALID_ARGUMENT, "bngrad.x_rank", "input must be 4 or 5-dimensional[1,1,1,1,1,5]",
         "x rank 6");
  bn_inputs(in, KF_FLOAT, 4, d4, 5);
  in[2] = th_desc(KF_FLOAT, 2, d2);
  expect(V2, &a, in, 5, KF_INVALID_ARGUMENT, "bngrad.scale_rank", "scale must be 1-dimensional[5,1]",
         "scale rank 2");
  bn_inputs(in, KF_FLOAT, 4, d4, 5);
  in[3] = th_desc(KF_FLOAT, 0, d2);
  expect(V2, &a, in, 5, KF_INVALID_ARGUMENT, "bngrad.mean_rank", "saved mean must be 1-dimensional[]",
         "reserve_space_1 rank 0");
  bn_inputs(in, KF_FLOAT, 4, d4, 5);
  in[4] = th_desc(KF_FLOAT, 2, d2);
  expect(V2, &a, in, 5, KF_INVALID_ARGUMENT, "bngrad.var_rank", "saved variance must be 1-dimensional",
         "reserve_space_2 rank 2");
  bn_inputs(in, KF_FLOAT, 4, d4, 5);
  in[0] = th_desc(KF_FLOAT, 4, dother);
  expect(V2, &a, in, 5, KF_INVALID_ARGUMENT, "bngrad.same_shape",
         "x and y_backprop must have same shape, but x has shape [2,3,4,5] and y_backprop has shape [2,3,5,4]",
         "x and y_backprop shapes differ");
  bn_inputs(in, KF_FLOAT, 4, d4, 4);
  expect(V2, &a, in, 5, KF_INVALID_ARGUMENT, "bngrad.scale_channels",
         "scale must have the same number of elements as the channels of x, got 4 and 5", "scale length");
  bn_inputs(in, KF_FLOAT, 4, d4, 5);
  in[3].dims[0] = 6;
  expect(V2, &a, in, 5, KF_INVALID_ARGUMENT, "bngrad.mean_channels",
         "reserve_space_1 must have the same number of elements as the channels of x, got 6 and 5",
         "reserve_space_1 length");
  bn_inputs(in, KF_FLOAT, 4, d4, 5);
  in[4].dims[0] = 0;
  expect(V2, &a, in, 5, KF_INVALID_ARGUMENT, "bngrad.var_channels",
         "reserve_space_2 must have the same number of elements as the channels of x, got 0 and 5",
         "reserve_space_2 length");
  {
    kf_attrs b = a;
    b.data_format = KF_NCHW; /* C is dim 1 = 3 */
    bn_inputs(in, KF_FLOAT, 4, d4, 5);
    expect(V2, &b, in, 5, KF_INVALID_ARGUMENT, "bngrad.scale_channels", "got 5 and 3", "NCHW channels are dim 1");
  }
  bn_inputs(in, KF_FLOAT, 4, huge, 5);
  expect(V2, &a, in, 5, KF_TOO_LARGE, "input.too_large", "more elements than the supported maximum of 2147483647",
         "x over 2^31-1 elements (TF's kernels index with int)");
  {
    int64_t ovf[4] = { (int64_t)1 << 40, (int64_t)1 << 40, 1, 1 };
    bn_inputs(in, KF_FLOAT, 4, ovf, 1);
    expect(V2, &a, in, 5, KF_TOO_LARGE, "input.too_large", "more elements than the supported maximum",
           "dims whose product overflows 64 bits");
    ovf[0] = -3;
    bn_inputs(in, KF_FLOAT, 4, ovf, 1);
    expect(V2, &a, in, 5, KF_INVALID_ARGUMENT, "input.dims", "negative dimension -3", "negative dim");
  }
  /* kforge computes NCHW with is_training=false natively (TF's CPU kernel refuses it). */
  {
    kf_attrs b = a;
    kf_plan p;
    b.data_format = KF_NCHW;
    b.is_training = 0;
    bn_inputs(in, KF_FLOAT, 4, d4, 3);
    th_check(kf_plan_op(&p, V2, &b, in, 5, NULL, NULL) == KF_OK, "NCHW with is_training=false is planned");
  }
}

static void attr_rules(void) {
  kf_attrs a;
  kf_error e = {0};
  const kf_op V3 = KF_OP_FUSED_BATCH_NORM_GRAD_V3;
  kf_attrs_init(V3, &a);
  th_check(fabsf(a.epsilon - 0.0001f) == 0.0f && a.is_training == 1 && a.data_format == KF_NHWC &&
             a.T == KF_DT_INVALID, "V3 defaults: epsilon 0.0001, is_training true, NHWC, T inferred");
  th_check(kf_attrs_set(V3, &a, "epsilon", "0.001", &e) == KF_OK && a.epsilon == 0.001f, "epsilon=0.001");
  th_check(kf_attrs_set(V3, &a, "epsilon", "-1.5", &e) == KF_OK && a.epsilon == -1.5f, "negative epsilon accepted");
  /* any literal a float32 attr can hold, rounded as TF 2.21 rounds the
     Python float (it accepts 1e-40, 1e-50 and 1e40) */
  th_check(kf_attrs_set(V3, &a, "epsilon", "1e-40", &e) == KF_OK && a.epsilon == 1e-40f && a.epsilon > 0,
           "epsilon=1e-40 (a denormal) accepted: %s", e.message);
  th_check(kf_attrs_set(V3, &a, "epsilon", "1e-45", &e) == KF_OK && a.epsilon == 1e-45f && a.epsilon > 0,
           "epsilon=1e-45 (the smallest denormal) accepted");
  th_check(kf_attrs_set(V3, &a, "epsilon", "1.17549435e-38", &e) == KF_OK && a.epsilon == 1.17549435e-38f,
           "epsilon=FLT_MIN accepted");
  th_check(kf_attrs_set(V3, &a, "epsilon", "1e-50", &e) == KF_OK && a.epsilon == 0.0f, "epsilon=1e-50 rounds to 0");
  th_check(kf_attrs_set(V3, &a, "epsilon", "1e40", &e) == KF_OK && isinf(a.epsilon) && a.epsilon > 0,
           "epsilon=1e40 rounds to inf");
  th_check(kf_attrs_set(V3, &a, "is_training", "false", &e) == KF_OK && a.is_training == 0, "is_training=false");
  th_check(kf_attrs_set(V3, &a, "data_format", "NCDHW", &e) == KF_OK && a.data_format == KF_NCDHW,
           "V3 data_format=NCDHW");
  th_check(kf_attrs_set(V3, &a, "T", "bfloat16", &e) == KF_OK && a.T == KF_BFLOAT16, "T=bfloat16");
  th_check(kf_attrs_set(V3, &a, "epsilon", "abc", &e) == KF_INVALID_ARGUMENT && strcmp(e.rule, "attr.syntax") == 0,
           "epsilon=abc: %s", e.message);
  th_check(kf_attrs_set(V3, &a, "is_training", "yes", &e) == KF_INVALID_ARGUMENT, "is_training=yes: %s", e.message);
  th_check(kf_attrs_set(V3, &a, "data_format", "NCWH", &e) == KF_INVALID_ARGUMENT &&
             strstr(e.message, "Value for attr 'data_format' of \"NCWH\" is not in the list of allowed values") != NULL,
           "data_format=NCWH: %s", e.message);
  th_check(kf_attrs_set(KF_OP_FUSED_BATCH_NORM_GRAD, &a, "data_format", "NDHWC", &e) == KF_INVALID_ARGUMENT,
           "V1 data_format=NDHWC rejected: %s", e.message);
  th_check(kf_attrs_set(V3, &a, "T", "double", &e) == KF_INVALID_ARGUMENT, "V3 T=double rejected: %s", e.message);
  th_check(kf_attrs_set(V3, &a, "strides", "1,1,1,1", &e) == KF_INVALID_ARGUMENT && strcmp(e.rule, "attr.unknown") == 0,
           "V3 has no strides: %s", e.message);
  th_check(kf_attrs_set(V3, NULL, "epsilon", "1", &e) == KF_INVALID_ARGUMENT, "NULL attrs");
  th_check(kf_attrs_set(KF_OP_INVALID, &a, "epsilon", "1", &e) == KF_INVALID_ARGUMENT, "unknown op");
}

static void op_tables(void) {
  th_check(kf_op_from_name("FusedBatchNormGradV3") == KF_OP_FUSED_BATCH_NORM_GRAD_V3 &&
             kf_op_from_name("FusedBatchNormGrad") == KF_OP_FUSED_BATCH_NORM_GRAD &&
             kf_op_from_name("fusedbatchnormgrad") == KF_OP_INVALID && kf_op_from_name(NULL) == KF_OP_INVALID,
           "op names are TF's, case-sensitive");
  th_check(kf_op_num_inputs(KF_OP_FUSED_BATCH_NORM_GRAD_V3) == 6 &&
             strcmp(kf_op_input_name(KF_OP_FUSED_BATCH_NORM_GRAD_V3, 5), "reserve_space_3") == 0 &&
             strcmp(kf_op_output_name(KF_OP_FUSED_BATCH_NORM_GRAD_V3, 4), "reserve_space_5") == 0 &&
             strcmp(kf_op_output_name(KF_OP_FUSED_BATCH_NORM_GRAD_V2, 3), "reserve_space_3") == 0 &&
             kf_op_input_name(KF_OP_FUSED_BATCH_NORM_GRAD, 5) == NULL,
           "TF input/output names and counts");
  th_check(kf_dtype_from_name("bfloat16") == KF_BFLOAT16 && kf_dtype_size(KF_HALF) == 2 &&
             strcmp(kf_dtype_name(KF_DOUBLE), "double") == 0, "dtype names and sizes");
  th_check(kf_kernel_count() > 0 && kf_kernel_name(0) && kf_kernel_config(0) && !kf_kernel_name(kf_kernel_count()),
           "kernel list (%d kernels)", kf_kernel_count());
}

/* The name of the batch-norm kernel of the given key and ISA, from the
   registry's metadata ("(none)" if the set has none: the check then fails). */
static const char *bn_kernel(unsigned isa, const char *key) {
  int k = th_find_kernel(kf_op_family(KF_OP_FUSED_BATCH_NORM_GRAD_V2), 0, isa, "%s", key);
  return k >= 0 ? th_kernel(k)->name : "(none)";
}

static void api_misuse(void) {
  const kf_op V2 = KF_OP_FUSED_BATCH_NORM_GRAD_V2;
  int64_t d4[4] = { 1, 2, 2, 3 };
  kf_tensor_desc in[6];
  kf_attrs a;
  kf_plan p, bad;
  kf_error e = {0};
  float buf[64] = { 0 }, scratch[256];
  const void *ins[5] = { buf, buf, buf, buf, buf };
  void *outs[5] = { buf, buf, buf, NULL, NULL };
  kf_attrs_init(V2, &a);
  bn_inputs(in, KF_FLOAT, 4, d4, 3);
  th_check(kf_plan_op(NULL, V2, &a, in, 5, NULL, &e) == KF_INVALID_ARGUMENT, "NULL plan");
  th_check(kf_plan_op(&p, V2, &a, in, 6, NULL, &e) == KF_INVALID_ARGUMENT && strstr(e.message, "takes 5 inputs"),
           "wrong input count: %s", e.message);
  th_check(kf_plan_op(&p, V2, NULL, in, 5, NULL, &e) == KF_INVALID_ARGUMENT, "NULL attrs");
  th_check(kf_plan_op(&p, (kf_op)99, &a, in, 5, NULL, &e) == KF_INVALID_ARGUMENT, "unknown op");
  in[0].rank = 42;
  th_check(kf_plan_op(&p, V2, &a, in, 5, NULL, &e) == KF_INVALID_ARGUMENT && strcmp(e.rule, "input.rank") == 0,
           "rank beyond KF_MAX_RANK: %s", e.message);
  bn_inputs(in, KF_FLOAT, 4, d4, 3);
  memset(&bad, 0, sizeof bad);
  th_check(kf_execute(&bad, ins, outs, NULL, 0, &e) == KF_INVALID_ARGUMENT, "execute an unplanned plan: %s",
           e.message);
  th_check(kf_plan_scratch_bytes(&bad) == 0 && kf_plan_kernel_name(&bad) == NULL, "queries on an unplanned plan");
  th_check(kf_plan_op(&p, V2, &a, in, 5, NULL, &e) == KF_OK, "valid plan");
  th_check(kf_plan_scratch_bytes(&p) > 0, "NHWC training kernel needs scratch (%zu bytes)", kf_plan_scratch_bytes(&p));
  th_check(kf_execute(&p, ins, outs, scratch, kf_plan_scratch_bytes(&p) - 1, &e) == KF_SCRATCH_TOO_SMALL,
           "scratch one byte short: %s", e.message);
  th_check(kf_execute(&p, ins, outs, NULL, 4096, &e) == KF_SCRATCH_TOO_SMALL, "NULL scratch");
  outs[1] = NULL;
  th_check(kf_execute(&p, ins, outs, scratch, sizeof scratch, &e) == KF_INVALID_ARGUMENT &&
             strstr(e.message, "scale_backprop"), "NULL output: %s", e.message);
  outs[1] = buf;
  ins[1] = NULL;
  th_check(kf_execute(&p, ins, outs, scratch, sizeof scratch, &e) == KF_INVALID_ARGUMENT && strstr(e.message, "x "),
           "NULL input: %s", e.message);
  ins[1] = buf;
  {
    kf_plan_options o;
    memset(&o, 0, sizeof o);
    o.kernel = "no_such_kernel";
    th_check(kf_plan_op(&p, V2, &a, in, 5, &o, &e) == KF_NO_KERNEL && strcmp(e.rule, "kernel.unknown") == 0,
             "forcing an unknown kernel: %s", e.message);
    o.kernel = bn_kernel(KF_ISA_SCALAR, "T=f16 layout=nchw mode=infer");
    th_check(kf_plan_op(&p, V2, &a, in, 5, &o, &e) == KF_NO_KERNEL && strstr(e.message, "does not serve bngrad T=f32"),
             "forcing a kernel of another configuration: %s", e.message);
  }
}

/* The ISA of the kernel a plan runs (from the registry's metadata). */
static unsigned plan_isa(const kf_plan *p) {
  const kf_kernel_info *k = th_kernel(kf_plan_kernel_index(p));
  return k ? k->isa : 0;
}

/* The last-level cache the runtime detects (kf_cpu.c: cpuid on x86-64),
   against what Linux reports in sysfs (kfi_cpu_llc_sysfs: the largest data
   or unified cache of the highest level of cpu0), where Linux reports one
   (on AArch64 the runtime reads sysfs itself, so only the env checks bite). */
static void llc_detection(void) {
  const int64_t sys = kfi_cpu_llc_sysfs();
  const char *env = getenv("KFORGE_LLC");
  char keep[64]; /* the value this run was started with, restored at the end */
  int64_t llc;
  snprintf(keep, sizeof keep, "%s", env ? env : "");
  unsetenv("KFORGE_LLC");
  llc = kfi_cpu_llc_bytes(); /* detected */
#if defined(__x86_64__)
  th_check(llc >= (64 << 10) && llc <= ((int64_t)4 << 30), "x86-64: a last-level cache is detected (%lld KiB)",
           (long long)(llc >> 10));
#endif
  { /* KFORGE_LLC overrides it, read as a person writes a size; anything else is an error */
    static const struct { const char *v; int64_t bytes; } good[] = {
      { "65536", 65536 }, { " 64k ", 65536 }, { "3MiB", (int64_t)3 << 20 }, { "2g", (int64_t)2 << 30 }, { "32MB", (int64_t)32 << 20 } };
    static const char *const bad[] = { "garbage", "0", "-5", "12Q", "2 G", "1.5M", "K" };
    kf_attrs a;
    kf_tensor_desc in[6];
    int64_t d4[4] = { 1, 2, 2, 3 };
    kf_plan p;
    kf_error e = {0};
    size_t g;
    kf_attrs_init(KF_OP_FUSED_BATCH_NORM_GRAD_V3, &a);
    bn_inputs(in, KF_FLOAT, 4, d4, 3);
    in[5] = in[4];
    for (g = 0; g < sizeof good / sizeof good[0]; g++) {
      setenv("KFORGE_LLC", good[g].v, 1);
      th_check(kfi_cpu_llc_bytes() == good[g].bytes && kf_plan_op(&p, KF_OP_FUSED_BATCH_NORM_GRAD_V3, &a, in, 6, NULL, &e) == KF_OK,
               "KFORGE_LLC='%s' is %lld bytes", good[g].v, (long long)good[g].bytes);
    }
    for (g = 0; g < sizeof bad / sizeof bad[0]; g++) {
      setenv("KFORGE_LLC", bad[g], 1);
      th_check(kfi_cpu_llc_bytes() == llc && kf_plan_op(&p, KF_OP_FUSED_BATCH_NORM_GRAD_V3, &a, in, 6, NULL, &e) ==
                   KF_INVALID_ARGUMENT && strcmp(e.rule, "env.llc") == 0 && strstr(e.message, "no cache size") != NULL,
               "KFORGE_LLC='%s' is an error (and overrides nothing): %s", bad[g], e.message);
    }
  }
  if (*keep) setenv("KFORGE_LLC", keep, 1);
  else unsetenv("KFORGE_LLC");
  if (sys > 0)
    th_check(llc == sys, "detected last-level cache %lld KiB = Linux's sysfs %lld KiB", (long long)(llc >> 10),
             (long long)(sys >> 10));
  else
    th_skip("Linux reports no caches here (no sysfs to compare the detected %lld KiB with)", (long long)(llc >> 10));
}

/* The L1 data and L2 caches (kfi_cpu_cache_bytes), likewise against sysfs
   (/sys/devices/system/cpu/cpu0/cache/index*: that level's data or unified
   cache), and their overrides KFORGE_L1D and KFORGE_L2, parsed and refused
   as KFORGE_LLC is (rules env.l1d, env.l2). */
static void l1d_l2_detection(void) {
  static const struct { const char *var, *rule, *what; int which; } lv[] = {
    { "KFORGE_L1D", "env.l1d", "L1 data", KFI_CACHE_L1D }, { "KFORGE_L2", "env.l2", "L2", KFI_CACHE_L2 } };
  size_t l;
  for (l = 0; l < sizeof lv / sizeof lv[0]; l++) {
    const char *env = getenv(lv[l].var);
    const int64_t sys = kfi_cpu_cache_sysfs(lv[l].which);
    char keep[64];
    int64_t got;
    kf_attrs a;
    kf_tensor_desc in[6];
    int64_t d4[4] = { 1, 2, 2, 3 };
    kf_plan p;
    kf_error e = {0};
    snprintf(keep, sizeof keep, "%s", env ? env : "");
    unsetenv(lv[l].var);
    got = kfi_cpu_cache_bytes(lv[l].which);
#if defined(__x86_64__)
    th_check(got >= (4 << 10) && got <= (64 << 20), "x86-64: an %s cache is detected (%lld KiB)", lv[l].what,
             (long long)(got >> 10));
#endif
    if (sys > 0)
      th_check(got == sys, "detected %s cache %lld KiB = Linux's sysfs %lld KiB", lv[l].what, (long long)(got >> 10),
               (long long)(sys >> 10));
    else
      th_skip("Linux reports no %s cache here (detected %lld KiB)", lv[l].what, (long long)(got >> 10));
    kf_attrs_init(KF_OP_FUSED_BATCH_NORM_GRAD_V3, &a);
    bn_inputs(in, KF_FLOAT, 4, d4, 3);
    in[5] = in[4];
    setenv(lv[l].var, " 48k ", 1);
    th_check(kfi_cpu_cache_bytes(lv[l].which) == 48 << 10 && kf_plan_op(&p, KF_OP_FUSED_BATCH_NORM_GRAD_V3, &a, in, 6, NULL, &e) == KF_OK,
             "%s=' 48k ' is 48 KiB", lv[l].var);
    setenv(lv[l].var, "2MiB", 1);
    th_check(kfi_cpu_cache_bytes(lv[l].which) == 2 << 20, "%s='2MiB' is 2 MiB", lv[l].var);
    setenv(lv[l].var, "1.5M", 1);
    th_check(kfi_cpu_cache_bytes(lv[l].which) == got && kf_plan_op(&p, KF_OP_FUSED_BATCH_NORM_GRAD_V3, &a, in, 6, NULL, &e) ==
                 KF_INVALID_ARGUMENT && strcmp(e.rule, lv[l].rule) == 0 && strstr(e.message, lv[l].var) != NULL,
             "%s='1.5M' is an error naming it (and overrides nothing): %s", lv[l].var, e.message);
    if (*keep) setenv(lv[l].var, keep, 1);
    else unsetenv(lv[l].var);
  }
}

/* Runtime ISA selection: the best variant the CPU runs, capped per plan or by KFORGE_ISA. */
static void isa_selection(void) {
  const kf_op V2 = KF_OP_FUSED_BATCH_NORM_GRAD_V2;
  int64_t d4[4] = { 2, 3, 4, 16 };
  kf_tensor_desc in[6];
  kf_attrs a;
  kf_plan p;
  kf_plan_options o;
  kf_error e = {0};
  kf_status st;
  unsigned isas = kf_cpu_isas(), b;
  const char *env = getenv("KFORGE_ISA");
  char cap[16]; /* the cap this run was started with (tests/run.sh's capped reruns), restored at the end */
  snprintf(cap, sizeof cap, "%s", env ? env : "");
  kf_attrs_init(V2, &a);
  bn_inputs(in, KF_FLOAT, 4, d4, 16);
  th_check((isas & KF_ISA_SCALAR) != 0, "the CPU runs scalar kernels (isas 0x%x)", isas);
  th_check(strcmp(kf_isa_name(KF_ISA_AVX512), "avx512") == 0 && strcmp(kf_isa_name(KF_ISA_NEON), "neon") == 0 &&
             strcmp(kf_isa_name(3), "unknown") == 0, "ISA names");
  memset(&o, 0, sizeof o);
  for (b = KF_ISA_SCALAR; b <= KF_ISA_AVX512; b <<= 1) {
    if (!(isas & b)) continue;
    o.isas = b | KF_ISA_SCALAR;
    /* plan before th_check: its arguments are evaluated in no set order */
    st = kf_plan_op(&p, V2, &a, in, 5, &o, &e);
    th_check(st == KF_OK && plan_isa(&p) == b, "ISAs capped at %s: selects %s", kf_isa_name(b),
             st == KF_OK ? kf_plan_kernel_name(&p) : e.message);
  }
  if (isas & KF_ISA_AVX512) {
    o.isas = 0;
    st = kf_plan_op(&p, V2, &a, in, 5, &o, &e);
    th_check(st == KF_OK && plan_isa(&p) == KF_ISA_AVX512, "uncapped on an AVX-512 CPU: selects %s",
             st == KF_OK ? kf_plan_kernel_name(&p) : e.message);
    o.isas = KF_ISA_SCALAR;
    o.kernel = bn_kernel(KF_ISA_AVX512, "T=f32 layout=nhwc mode=train");
    th_check(kf_plan_op(&p, V2, &a, in, 5, &o, &e) == KF_NO_KERNEL && strcmp(e.rule, "kernel.isa") == 0,
             "forcing a kernel of an excluded ISA: %s", e.message);
  } else {
    th_skip("uncapped on an AVX-512 CPU: selects an avx512 kernel (this CPU, as capped, has no AVX-512)");
    th_skip("forcing a kernel of an excluded ISA (needs an AVX-512 CPU)");
  }
  setenv("KFORGE_ISA", "scalar", 1);
  st = kf_plan_op(&p, V2, &a, in, 5, NULL, &e);
  th_check(kf_cpu_isas() == KF_ISA_SCALAR && st == KF_OK && plan_isa(&p) == KF_ISA_SCALAR,
           "KFORGE_ISA=scalar: selects %s", st == KF_OK ? kf_plan_kernel_name(&p) : e.message);
  setenv("KFORGE_ISA", "avx2", 1);
  th_check((kf_cpu_isas() & KF_ISA_AVX512) == 0, "KFORGE_ISA=avx2 excludes AVX-512");
  { /* read as a person writes it; a typo is an error, never scalar kernels */
    static const char *const good[] = { "AVX2", " avx2 ", "Avx2\n", "\tavx2" };
    static const char *const bad[] = { "garbage", "0", "avx", "avx2x", "avx 2", "scalarr" };
    unsigned all;
    size_t g;
    unsetenv("KFORGE_ISA");
    all = kf_cpu_isas(); /* uncapped, whatever cap this run started with */
    for (g = 0; g < sizeof good / sizeof good[0]; g++) {
      setenv("KFORGE_ISA", good[g], 1);
      th_check(kf_cpu_isas() == (all & (KF_ISA_SCALAR | KF_ISA_AVX2)) && kf_plan_op(&p, V2, &a, in, 5, NULL, &e) == KF_OK,
               "KFORGE_ISA='%s' means avx2", good[g]);
    }
    for (g = 0; g < sizeof bad / sizeof bad[0]; g++) {
      setenv("KFORGE_ISA", bad[g], 1);
      th_check(kf_plan_op(&p, V2, &a, in, 5, NULL, &e) == KF_INVALID_ARGUMENT && strcmp(e.rule, "env.isa") == 0 &&
                   strstr(e.message, "scalar, avx2, avx512 or neon") != NULL,
               "KFORGE_ISA='%s' is an error naming the accepted values: %s", bad[g], e.message);
    }
    setenv("KFORGE_ISA", "  ", 1);
    th_check(kf_cpu_isas() == all && kf_plan_op(&p, V2, &a, in, 5, NULL, &e) == KF_OK, "blank KFORGE_ISA caps nothing");
  }
  unsetenv("KFORGE_ISA");
  th_check((kf_cpu_isas() & isas) == isas, "without KFORGE_ISA every detected ISA is back");
  if (*cap) setenv("KFORGE_ISA", cap, 1);
  th_check(kf_cpu_isas() == isas, "KFORGE_ISA restored to \"%s\"", cap);
}

/* A run capped by KFORGE_ISA (tests/run.sh runs the C tests again under
   KFORGE_ISA=avx2 and KFORGE_ISA=scalar) really runs the capped kernels:
   default selection picks, for every configuration of the default set, the
   best variant the capped CPU runs, and under KFORGE_ISA=scalar a portable
   one. Without a cap, the same holds for every ISA the CPU has. */
static void capped_selection(void) {
  static const kf_dtype ts[] = { KF_HALF, KF_BFLOAT16, KF_FLOAT, KF_DOUBLE };
  const kf_op BN = KF_OP_FUSED_BATCH_NORM_GRAD_V3, DW = KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT;
  const char *cap = getenv("KFORGE_ISA");
  const int scalar_only = cap && strcmp(cap, "scalar") == 0;
  const unsigned isas = kf_cpu_isas();
  int t, f, m, n = 0, best = 0, scalar = 0;
  if (scalar_only)
    th_check(isas == KF_ISA_SCALAR, "KFORGE_ISA=scalar: the CPU runs scalar kernels only (isas 0x%x)", isas);
  if (cap && strcmp(cap, "avx2") == 0)
    th_check(!(isas & KF_ISA_AVX512), "KFORGE_ISA=avx2: no AVX-512 (isas 0x%x)", isas);
  for (t = 0; t < 4; t++)
    for (f = 0; f < 2; f++)
      for (m = 0; m < 2; m++) {
        kf_tensor_desc in[6];
        kf_attrs a;
        kf_plan p;
        kf_error e = {0};
        kf_status st;
        int32_t sizes[4];
        if (m == 0 && ts[t] == KF_DOUBLE) continue; /* batch norm: half, bfloat16, float */
        if (ts[t] != KF_DOUBLE) { /* batch norm, training (m = 1) and inference (m = 0) */
          int64_t d4[4] = { 2, 5, 6, 16 };
          kf_attrs_init(BN, &a);
          a.T = ts[t];
          a.data_format = f ? KF_NCHW : KF_NHWC;
          a.is_training = m;
          bn_inputs(in, ts[t], 4, d4, f ? 5 : 16);
          st = kf_plan_op(&p, BN, &a, in, 6, NULL, &e);
          n++;
          if (!th_check(st == KF_OK, "capped selection: batch norm plan: %s", e.message)) continue;
          best += th_kernel_best_here(kf_plan_kernel_name(&p));
          scalar += th_kernel_isa(kf_plan_kernel_name(&p)) == KF_ISA_SCALAR;
          th_check(th_kernel_best_here(kf_plan_kernel_name(&p)) &&
                     (!scalar_only || th_kernel_isa(kf_plan_kernel_name(&p)) == KF_ISA_SCALAR),
                   "selection (KFORGE_ISA=%s): batch norm T=%s %s %s runs %s, the best variant this CPU runs",
                   cap ? cap : "", kf_dtype_name(ts[t]), f ? "NCHW" : "NHWC", m ? "train" : "infer",
                   kf_plan_kernel_name(&p));
        }
        if (m == 1) { /* depthwise 3x3, stride 1, multiplier 1, SAME: a specialization for every dtype and layout */
          int64_t four[1] = { 4 }, fd[4] = { 3, 3, 8, 1 }, gd[4];
          kf_attrs_init(DW, &a);
          kf_attrs_set(DW, &a, "data_format", f ? "NCHW" : "NHWC", NULL);
          kf_attrs_set(DW, &a, "padding", "SAME", NULL);
          kf_attrs_set(DW, &a, "strides", "1,1,1,1", NULL);
          sizes[0] = 2, sizes[1] = f ? 8 : 9, sizes[2] = f ? 9 : 10, sizes[3] = f ? 10 : 8;
          gd[0] = sizes[0], gd[1] = sizes[1], gd[2] = sizes[2], gd[3] = sizes[3];
          in[0] = th_desc(KF_INT32, 1, four);
          in[0].host_data = sizes;
          in[1] = th_desc(ts[t], 4, fd);
          in[2] = th_desc(ts[t], 4, gd);
          st = kf_plan_op(&p, DW, &a, in, 3, NULL, &e);
          n++;
          if (!th_check(st == KF_OK, "capped selection: depthwise plan: %s", e.message)) continue;
          best += th_kernel_best_here(kf_plan_kernel_name(&p));
          scalar += th_kernel_isa(kf_plan_kernel_name(&p)) == KF_ISA_SCALAR;
          th_check(th_kernel_best_here(kf_plan_kernel_name(&p)) &&
                     (!scalar_only || th_kernel_isa(kf_plan_kernel_name(&p)) == KF_ISA_SCALAR),
                   "selection (KFORGE_ISA=%s): depthwise T=%s %s runs %s, the best variant this CPU runs",
                   cap ? cap : "", kf_dtype_name(ts[t]), f ? "NCHW" : "NHWC", kf_plan_kernel_name(&p));
        }
      }
  printf("selection%s%s: %d of %d configurations run the best variant this CPU runs, %d of them scalar\n",
         cap ? " under KFORGE_ISA=" : "", cap ? cap : "", best, n, scalar);
  if (isas & (KF_ISA_AVX2 | KF_ISA_AVX512 | KF_ISA_NEON))
    th_check(scalar < n, "with SIMD available (isas 0x%x) some configuration runs a SIMD kernel", isas);
}

/* th_plan_forced (tests/harness.c), on which every suite that forces kernels
   relies: only the runtime's "needs ISA x, which is not available here"
   refusal of a kernel this CPU lacks the ISA of, for a call the kernel
   serves, is "not applicable"; everything else keeps its meaning. Checked
   against the runtime: a CPU without SIMD is simulated with
   KFORGE_ISA=scalar, and where this CPU runs the kernel, the capped answer
   must agree with the uncapped one. */
static void forced_classification(void) {
  const kf_op V2 = KF_OP_FUSED_BATCH_NORM_GRAD_V2;
  int64_t d4[4] = { 2, 3, 4, 16 };
  kf_tensor_desc in[6];
  kf_attrs a;
  kf_plan p;
  kf_plan_options o;
  kf_error e = {0};
  th_forced got;
  const char *env = getenv("KFORGE_ISA");
  char cap[16];
  int i, simd = 0, not_here = 0, other = 0;
  snprintf(cap, sizeof cap, "%s", env ? env : "");
  kf_attrs_init(V2, &a);
  bn_inputs(in, KF_FLOAT, 4, d4, 16);
  memset(&o, 0, sizeof o);
  o.kernel = "no_such_kernel";
  got = th_plan_forced(&p, V2, &a, in, 5, &o, &e);
  th_check(got == TH_REFUSED && strcmp(e.rule, "kernel.unknown") == 0, "forced: an unknown kernel fails (%d %s)", got,
           e.rule);
  o.kernel = bn_kernel(KF_ISA_SCALAR, "T=f16 layout=nchw mode=infer");
  got = th_plan_forced(&p, V2, &a, in, 5, &o, &e);
  th_check(got == TH_OTHER_CONFIG, "forced: a kernel of another configuration serves other configurations (%d %s)", got,
           e.rule);
  o.kernel = bn_kernel(KF_ISA_SCALAR, "T=f32 layout=nhwc mode=train");
  got = th_plan_forced(&p, V2, &a, in, 5, &o, &e);
  th_check(got == TH_PLANNED, "forced: the scalar kernel of the configuration plans (%d %s)", got, e.message);
  o.isas = KF_ISA_AVX512 | KF_ISA_NEON; /* the call's own option excludes scalar: the CPU runs it, so not N/A */
  got = th_plan_forced(&p, V2, &a, in, 5, &o, &e);
  th_check(got == TH_REFUSED && strcmp(e.rule, "kernel.isa") == 0,
           "forced: an ISA refusal of a kernel this CPU runs is a failure, not N/A (%d %s)", got, e.rule);
  o.isas = 0;
  for (i = -1; (i = th_next_kernel(kf_op_family(V2), i)) >= 0;) {
    const kf_kernel_info *k = th_kernel(i);
    th_forced capped, real;
    int runs;
    if (k->isa == KF_ISA_SCALAR) continue;
    simd++;
    o.kernel = k->name;
    setenv("KFORGE_ISA", "scalar", 1);
    capped = th_plan_forced(&p, V2, &a, in, 5, &o, &e);
    unsetenv("KFORGE_ISA");
    runs = th_kernel_runnable(k->name);
    real = th_plan_forced(&p, V2, &a, in, 5, &o, &e);
    not_here += capped == TH_NOT_HERE;
    other += capped == TH_OTHER_CONFIG;
    if (runs)
      th_check((capped == TH_NOT_HERE && real == TH_PLANNED) || (capped == TH_OTHER_CONFIG && real == TH_OTHER_CONFIG),
               "forced %s: N/A under KFORGE_ISA=scalar exactly where this CPU runs it (%d, %d)", k->name, capped, real);
    else
      th_check(capped == real && (capped == TH_NOT_HERE || capped == TH_OTHER_CONFIG),
               "forced %s: this CPU lacks its ISA: N/A or another configuration, capped or not (%d, %d)", k->name,
               capped, real);
  }
  if (*cap) setenv("KFORGE_ISA", cap, 1);
  if (simd)
    th_check(not_here > 0 && other > 0, "forced SIMD kernels under KFORGE_ISA=scalar: %d N/A, %d other configurations",
             not_here, other);
  else
    th_skip("forced SIMD kernels under KFORGE_ISA=scalar: this kernel set has none");
}

/* The runtime's own printf (no stdio in the library). */
static void formatter(void) {
  char b[64], t[8];
  int n;
  kfi_format(b, sizeof b, "%d|%lld|%zu|%u|%x|%s|%.3s|%c|%%|%ld", -42, (long long)-9223372036854775807LL - 1,
             (size_t)123, 4000000000u, 255u, "ab", "abcdef", 'z', -7L);
  th_check(strcmp(b, "-42|-9223372036854775808|123|4000000000|ff|ab|abc|z|%|-7") == 0, "kfi_format: %s", b);
  n = kfi_format(t, sizeof t, "%s", "0123456789");
  th_check(n == 10 && strcmp(t, "0123456") == 0, "kfi_format truncates safely and returns the full length");
  {
    const char *volatile none = NULL; /* volatile: gcc would reject a literal NULL for %s */
    kfi_format(b, sizeof b, "%s", none);
  }
  th_check(strcmp(b, "(null)") == 0, "kfi_format of a NULL string");
}

int main(void) {
  int i, j;
  bngrad_rules();
  attr_rules();
  op_tables();
  api_misuse();
  isa_selection();
  llc_detection();
  l1d_l2_detection();
  capped_selection();
  forced_classification();
  formatter();
  /* Every rule of specs/ops/bngrad.lua has a negative test above. */
  for (i = 0; i < KFG_RULE_COUNT; i++) {
    int found = 0;
    if (strncmp(kfg_rules[i].id, "bngrad.", 7) != 0) continue;
    for (j = 0; j < nseen; j++) found |= strcmp(seen[j], kfg_rules[i].id) == 0;
    th_check(found, "rule %s has a negative test", kfg_rules[i].id);
  }
  return th_done();
}
