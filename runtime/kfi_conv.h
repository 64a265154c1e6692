/*
** kfi_conv.h -- convolution geometry shared by the convolution families'
** planners: TF's strides/dilations/explicit-padding checks and its
** windowed output size (tf_semantics.md 2.3), with kforge's true dilation.
** Messages stay each family's (TF words them per op): a planner hands in
** its own rule ids.
*/
#ifndef kfi_conv_h
#define kfi_conv_h

#include "kfi.h"

/* The family's KFG_RULE_* ids for the shared checks. */
typedef struct kfi_conv_rules {
  int strides_len, strides_batch_depth, dilations_len, dilations_batch_depth;
  int explicit_len, explicit_negative, explicit_batch_depth, explicit_not_empty;
  int stride_positive, dilation_positive, negative_output;
} kfi_conv_rules;

/* A 2-D convolution's attrs, indexed by data_format (NHWC or NCHW). */
typedef struct kfi_conv2d {
  int ih, iw, ic;                /* dim index of H, W and C */
  int64_t sh, sw, dh, dw;        /* strides and dilations */
  int64_t pt, pb, pl, pr;        /* explicit paddings (EXPLICIT), else 0 */
} kfi_conv2d;

/* The op-def checks of a 2-D convolution's attrs, in TF's order: T, then
   data_format and padding against the op's allowed values (padding unset:
   TF's missing-attr error). */
kf_status kfi_conv2d_attr_values(const kfi_op_def *od, const kf_attrs *a, kf_dtype T, kf_error *err);

/* Strides (4 values, 1 in batch and depth), dilations (likewise: kforge
   applies them), explicit paddings (8 values >= 0, none in batch and
   depth, and only with EXPLICIT): TF's construction-time checks in TF's
   order. TF's CPU kernels also require equal row and column strides;
   kforge computes unequal ones (tf_semantics.md policy), so that check is
   deliberately absent. data_format must be NHWC or NCHW. */
kf_status kfi_conv2d_attrs(const kf_attrs *a, const kfi_conv_rules *r, kfi_conv2d *g, kf_error *err);

/* GetWindowedOutputSizeVerbose with true dilation: the effective filter
   size (k-1)*d+1 for every padding mode. pb/pa hold the explicit paddings
   on entry (EXPLICIT) and the paddings used on return. */
kf_status kfi_conv_window(int64_t in, int64_t k, int64_t d, int64_t s, kf_padding pad, int64_t *pb, int64_t *pa,
                          int64_t *out, const kfi_conv_rules *r, kf_error *err);

/* The padding before the first row/col, clamped where no filter tap can
   reach the input any more (keeps kernel indices far from overflow
   without changing any result). */
int64_t kfi_conv_clamp_pad(int64_t pad, int64_t out, int64_t s, int64_t k, int64_t d);

#endif
