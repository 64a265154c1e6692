/*
** bngrad_plan.c -- FusedBatchNormGrad{,V2,V3}: TF's validation in TF's
** order (tf_semantics.md 1.11), the 4-D view of 5-D tensors, kernel
** selection and execution: the family's plug-in (kfi_plan_bngrad /
** kfi_exec_bngrad, reached through kfg_families). Its typed entry point
** is bngrad_entry.c.
*/
#include <string.h>

#include "kfi.h"
#include "kfi_bngrad.h"

enum { DY, X, SCALE, MEAN, VAR, RS3 };

/* Float training channels last, where dy, x and dx exceed half the LLC
   and the channels take two AVX-512 register tiles (64 < C <= 128): the
   AVX2 kernel's pass 1, sweeping every row, beat the AVX-512 kernel's two
   tiles on Zen 5 (128 channels: 1.08-1.22x); within one tile the AVX-512
   kernel stays faster, and where it sweeps too (C > 128) the two measured
   either way (docs/performance.md, "the rule at the 10% line"). */
static int yields_to_avx2(const kfi_plan *p, const kfi_bngrad_args *g, kf_dtype T, const kf_plan_options *opt) {
  if (opt && (opt->kernel || opt->generic_only)) return 0;
  return p->kernel && p->kernel->isa == KF_ISA_AVX512 && !p->kernel->generic && T == KF_FLOAT && g->training &&
         g->layout == KFI_CHANNELS_LAST && g->c > 64 && g->c <= 128 && kfi_bngrad_far(g, (int64_t)sizeof(float));
}

kf_status kfi_plan_bngrad(kfi_plan *p, const kfi_op_def *od, const kf_attrs *a, const kf_tensor_desc *in,
                          const kf_plan_options *opt, kf_error *err) {
  const kf_op op = od->op;
  char s1[32 * KF_MAX_RANK], s2[32 * KF_MAX_RANK];
  kf_dtype T = a->T != KF_DT_INVALID ? a->T : in[DY].dtype;
  kf_dtype U = op == KF_OP_FUSED_BATCH_NORM_GRAD ? T : KF_FLOAT;
  kfi_bngrad_args *g = KFI_ARGS(p, kfi_bngrad_args);
  int32_t key[KFG_BNGRAD_KEY_LEN];
  int64_t c, n, s, numel;
  int i, last, r;
  kf_status st;

  /* Op-def constraints: attr values, then input dtypes. */
  if ((st = kfi_check_attr_value(od, "T", kf_dtype_name(T), err)) != KF_OK) return st;
  if ((unsigned)a->data_format >= 4)
    return kfi_fail(err, KF_INVALID_ARGUMENT, "attr.format", "Invalid data format");
  if ((st = kfi_check_attr_value(od, "data_format", kfg_enum_data_format[a->data_format], err)) != KF_OK) return st;
  if ((st = kfi_check_dtype(&in[DY], "y_backprop", T, KFG_RULE_BNGRAD_INPUT_DTYPE, err)) != KF_OK) return st;
  if ((st = kfi_check_dtype(&in[X], "x", T, KFG_RULE_BNGRAD_INPUT_DTYPE, err)) != KF_OK) return st;
  if ((st = kfi_check_dtype(&in[SCALE], "scale", U, KFG_RULE_BNGRAD_INPUT_DTYPE, err)) != KF_OK) return st;
  if ((st = kfi_check_dtype(&in[MEAN], "reserve_space_1", U, KFG_RULE_BNGRAD_INPUT_DTYPE, err)) != KF_OK) return st;
  if ((st = kfi_check_dtype(&in[VAR], "reserve_space_2", U, KFG_RULE_BNGRAD_INPUT_DTYPE, err)) != KF_OK) return st;
  if (op == KF_OP_FUSED_BATCH_NORM_GRAD_V3 && (st = kfi_check_dtype(&in[RS3], "reserve_space_3", U, KFG_RULE_BNGRAD_INPUT_DTYPE, err)) != KF_OK)
    return st;

  /* Kernel checks, in TF's order. */
  if (in[DY].rank != 4 && in[DY].rank != 5)
    return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_BNGRAD_DY_RANK, kfi_shape_str(&in[DY], s1, sizeof s1));
  if (in[X].rank != 4 && in[X].rank != 5)
    return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_BNGRAD_X_RANK, kfi_shape_str(&in[X], s1, sizeof s1));
  if (in[SCALE].rank != 1)
    return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_BNGRAD_SCALE_RANK,
                         kfi_shape_str(&in[SCALE], s1, sizeof s1));
  if (in[MEAN].rank != 1)
    return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_BNGRAD_MEAN_RANK,
                         kfi_shape_str(&in[MEAN], s1, sizeof s1));
  if (in[VAR].rank != 1)
    return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_BNGRAD_VAR_RANK, kfi_shape_str(&in[VAR], s1, sizeof s1));
  r = in[X].rank;
  for (i = 0; i < r && in[DY].rank == r; i++)
    if (in[DY].dims[i] != in[X].dims[i]) break;
  if (in[DY].rank != r || i < r)
    return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_BNGRAD_SAME_SHAPE, kfi_shape_str(&in[X], s1, sizeof s1),
                         kfi_shape_str(&in[DY], s2, sizeof s2));
  numel = kfi_num_elements(&in[X]); /* >= 0: kf_plan_op bounded every input by KF_MAX_ELEMENTS */

  /* The 4-D view: channels last (NHWC, NDHWC) or first (NCHW, NCDHW). */
  last = a->data_format == KF_NHWC || a->data_format == KF_NDHWC;
  n = in[X].dims[0];
  c = last ? in[X].dims[r - 1] : in[X].dims[1];
  /* s only matters when there is something to compute; with a zero dim
     the other dims may be up to KF_MAX_ELEMENTS each and their product
     would overflow. */
  s = numel > 0 ? 1 : 0;
  for (i = last ? 1 : 2; numel > 0 && i < (last ? r - 1 : r); i++) s *= in[X].dims[i];
  if (in[SCALE].dims[0] != c)
    return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_BNGRAD_SCALE_CHANNELS, (long long)in[SCALE].dims[0],
                         (long long)c);
  if (in[MEAN].dims[0] != c)
    return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_BNGRAD_MEAN_CHANNELS, (long long)in[MEAN].dims[0],
                         (long long)c);
  if (in[VAR].dims[0] != c)
    return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_BNGRAD_VAR_CHANNELS, (long long)in[VAR].dims[0],
                         (long long)c);

  /* Outputs: x_backprop like x; [C] gradients; [0] placeholders. */
  p->outputs[0] = in[X];
  p->outputs[0].dtype = T;
  for (i = 1; i < 5; i++) {
    memset(&p->outputs[i], 0, sizeof p->outputs[i]);
    p->outputs[i].dtype = U;
    p->outputs[i].rank = 1;
    p->outputs[i].dims[0] = i < 3 ? c : 0;
  }

  memset(g, 0, sizeof *g);
  g->n = n;
  g->c = c;
  g->s = s;
  g->layout = last ? KFI_CHANNELS_LAST : KFI_CHANNELS_FIRST;
  g->training = a->is_training != 0;
  g->epsilon = a->epsilon;
  kfi_cpu_caches(&g->cache);
  g->columns = 1;
  g->next = 0; /* warm: the tiles' rows from the L2 or the LLC need no stream; fresh outputs: kfi_choices_rule_cold */
  if (numel == 0) return KF_OK; /* TF: zero scale/offset gradients, empty x_backprop */

  key[KFG_BNGRAD_KEY_T] = (int32_t)T;
  key[KFG_BNGRAD_KEY_LAYOUT] = g->layout;
  key[KFG_BNGRAD_KEY_MODE] = g->training;
  st = kfi_select(p, KFG_FAMILY_BNGRAD, key, opt, err);
  if (st == KF_OK && yields_to_avx2(p, g, T, opt)) {
    kf_plan_options o;
    kfi_plan q = *p;
    if (opt) o = *opt;
    else memset(&o, 0, sizeof o);
    o.isas = (o.isas ? o.isas : ~0u) & ~(unsigned)KF_ISA_AVX512;
    if (kfi_select(&q, KFG_FAMILY_BNGRAD, key, &o, NULL) == KF_OK && q.kernel->isa == KF_ISA_AVX2) *p = q;
  }
  return st;
}

kf_status kfi_exec_bngrad(const kfi_plan *p, const void *const *in, void *const *out, void *scratch,
                          kf_error *err) {
  kfi_bngrad_args g = *KFI_CARGS(p, kfi_bngrad_args);
  int i;
  for (i = 0; i <= VAR && p->kernel; i++)
    if (!in[i]) return kfi_fail(err, KF_INVALID_ARGUMENT, "api.null", "input %s must not be NULL",
                                kf_op_input_name(p->op, i));
  if (!p->kernel) {
    if (g.c > 0) {
      memset(out[1], 0, (size_t)g.c * sizeof(float));
      memset(out[2], 0, (size_t)g.c * sizeof(float));
    }
    return KF_OK;
  }
  g.dy = in[DY];
  g.x = in[X];
  g.scale = (const float *)in[SCALE];
  g.mean = (const float *)in[MEAN];
  g.var = (const float *)in[VAR];
  g.dx = out[0];
  g.dscale = (float *)out[1];
  g.doffset = (float *)out[2];
  g.scratch = scratch;
  p->kernel->run(&g, &p->par);
  return KF_OK;
}
