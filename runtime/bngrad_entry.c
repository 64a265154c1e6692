/*
** bngrad_entry.c -- FusedBatchNormGrad{,V2,V3}'s typed entry point: a plan
** and an execution through the public API (above kf_plan.c), with the
** [C] descriptors built from x's.
*/
#include <string.h>

#include "kfi.h"

kf_status kf_fused_batch_norm_grad(int version, const kf_attrs *attrs, const kf_tensor_desc *x_desc,
                                   const void *y_backprop, const void *x, const float *scale,
                                   const float *reserve_space_1, const float *reserve_space_2,
                                   void *x_backprop, float *scale_backprop, float *offset_backprop,
                                   void *scratch, size_t scratch_bytes, kf_error *err) {
  kf_op op = version == 1 ? KF_OP_FUSED_BATCH_NORM_GRAD
             : version == 2 ? KF_OP_FUSED_BATCH_NORM_GRAD_V2
             : version == 3 ? KF_OP_FUSED_BATCH_NORM_GRAD_V3 : KF_OP_INVALID;
  kf_tensor_desc in[6];
  kf_plan plan;
  kf_status st;
  const void *ins[6];
  void *outs[5];
  int r, last;
  if (op == KF_OP_INVALID) return kfi_fail(err, KF_INVALID_ARGUMENT, "api.version", "version must be 1, 2 or 3");
  if (!attrs || !x_desc) return kfi_fail(err, KF_INVALID_ARGUMENT, "api.null", "attrs and x_desc must not be NULL");
  /* scale and the statistics are [C], C taken from x under data_format. */
  r = x_desc->rank;
  last = attrs->data_format == KF_NHWC || attrs->data_format == KF_NDHWC;
  memset(in, 0, sizeof in);
  in[0] = *x_desc;
  in[1] = *x_desc;
  in[2].dtype = version == 1 ? x_desc->dtype : KF_FLOAT;
  in[2].rank = 1;
  in[2].dims[0] = r >= 2 && r <= KF_MAX_RANK ? (last ? x_desc->dims[r - 1] : x_desc->dims[1]) : 0;
  in[3] = in[2];
  in[4] = in[2];
  in[5].dtype = KF_FLOAT;
  in[5].rank = 1;
  st = kf_plan_op(&plan, op, attrs, in, version == 3 ? 6 : 5, NULL, err);
  if (st != KF_OK) return st;
  ins[0] = y_backprop; ins[1] = x; ins[2] = scale; ins[3] = reserve_space_1; ins[4] = reserve_space_2;
  ins[5] = NULL;
  outs[0] = x_backprop; outs[1] = scale_backprop; outs[2] = offset_backprop; outs[3] = NULL; outs[4] = NULL;
  return kf_execute(&plan, ins, outs, scratch, scratch_bytes, err);
}
