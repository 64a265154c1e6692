/*
** dwbpi_entry.c -- DepthwiseConv2dNativeBackpropInput's typed entry point:
** a plan and an execution through the public API (above kf_plan.c), with
** input_sizes' descriptor built here.
*/
#include <string.h>

#include "kfi.h"

enum { DWE_SIZES, DWE_FILTER, DWE_DY };

kf_status kf_depthwise_conv2d_backprop_input(const kf_attrs *attrs, const int32_t input_sizes[4],
                                             const kf_tensor_desc *filter_desc, const void *filter,
                                             const kf_tensor_desc *out_backprop_desc,
                                             const void *out_backprop, void *output,
                                             void *scratch, size_t scratch_bytes, kf_error *err) {
  kf_plan plan;
  kf_tensor_desc in[3];
  const void *inputs[3];
  void *outputs[1];
  kf_status st;
  if (!input_sizes || !filter_desc || !out_backprop_desc)
    return kfi_fail(err, KF_INVALID_ARGUMENT, "api.null", "input_sizes and the descriptors must not be NULL");
  memset(&in[DWE_SIZES], 0, sizeof in[DWE_SIZES]);
  in[DWE_SIZES].dtype = KF_INT32;
  in[DWE_SIZES].rank = 1;
  in[DWE_SIZES].dims[0] = 4;
  in[DWE_SIZES].host_data = input_sizes;
  in[DWE_FILTER] = *filter_desc;
  in[DWE_DY] = *out_backprop_desc;
  st = kf_plan_op(&plan, KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT, attrs, in, 3, NULL, err);
  if (st != KF_OK) return st;
  inputs[DWE_SIZES] = input_sizes;
  inputs[DWE_FILTER] = filter;
  inputs[DWE_DY] = out_backprop;
  outputs[0] = output;
  return kf_execute(&plan, inputs, outputs, scratch, scratch_bytes, err);
}
