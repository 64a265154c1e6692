/*
** ref_ops.h -- the double-precision references of tests/ref/, reached by op:
** for tools that check any op without code of their own for it
** (tools/model/check.c). A new op family adds its reference file here and
** one row to the table in ref_ops.c (files under tests/ only).
*/
#ifndef ref_ops_h
#define ref_ops_h

#include "kforge.h"

/* A planned call: its inputs (descriptors and data, in their dtypes; inputs
   read while planning carry their values in host_data) and its outputs'
   descriptors (kf_plan_output_desc). */
typedef struct ref_call {
  kf_op op;
  const kf_attrs *attrs;
  int num_inputs;
  const kf_tensor_desc *in;
  const void *const *data;
  int num_outputs;
  const kf_tensor_desc *const *out;
} ref_call;

/* Fills want[j] (the caller's arrays of the element count of out[j]) with
   the exact value of every output, and tol[j] with the tolerance of output
   j relative to max |want[j]|. Returns 1, or 0 when the op has no reference. */
int ref_op(const ref_call *c, double *const *want, double *tol);

/* A tensor's element count, and its values as doubles (malloc'ed; free()). */
int64_t ref_count(const kf_tensor_desc *d);
double *ref_to_double(const void *p, kf_dtype t, int64_t n);

#endif
