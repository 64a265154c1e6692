/*
** dwbpi_plan.c -- DepthwiseConv2dNativeBackpropInput (placeholder until the
** op lands: reports Unimplemented).
*/
#include "kfi.h"

kf_status kfi_plan_dwbpi(kfi_plan *p, kf_op op, const kf_attrs *a, const kf_tensor_desc *in,
                         const kf_plan_options *opt, kf_error *err) {
  (void)p; (void)op; (void)a; (void)in; (void)opt;
  return kfi_fail(err, KF_UNIMPLEMENTED, "op.unimplemented", "DepthwiseConv2dNativeBackpropInput is not implemented yet");
}

kf_status kfi_exec_dwbpi(const kfi_plan *p, const void *const *in, void *const *out, void *scratch, kf_error *err) {
  (void)p; (void)in; (void)out; (void)scratch;
  return kfi_fail(err, KF_UNIMPLEMENTED, "op.unimplemented", "DepthwiseConv2dNativeBackpropInput is not implemented yet");
}
