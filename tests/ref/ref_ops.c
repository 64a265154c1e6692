/*
** ref_ops.c -- see ref_ops.h. One adapter per op family, from the call's
** TF attrs and tensors to its reference's arguments.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ref_ops.h"
#include "bngrad_ref.h"
#include "dwbpi_ref.h"
#include "dwbpf_ref.h"

int64_t ref_count(const kf_tensor_desc *d) {
  int64_t n = 1;
  int i;
  for (i = 0; i < d->rank; i++) n *= d->dims[i];
  return n;
}

/* A tensor's values as doubles (malloc'ed; free()). */
double *ref_to_double(const void *p, kf_dtype t, int64_t n) {
  double *d = malloc((size_t)(n > 0 ? n : 1) * sizeof *d);
  int64_t i;
  for (i = 0; d && i < n; i++)
    switch (t) {
      case KF_HALF: d[i] = kf_half_to_float(((const uint16_t *)p)[i]); break;
      case KF_BFLOAT16: d[i] = kf_bfloat16_to_float(((const uint16_t *)p)[i]); break;
      case KF_FLOAT: d[i] = ((const float *)p)[i]; break;
      case KF_DOUBLE: d[i] = ((const double *)p)[i]; break;
      case KF_INT32: d[i] = ((const int32_t *)p)[i]; break;
      default: d[i] = 0; break;
    }
  return d;
}

/* Relative tolerance of an output rounded once to t after float work. */
static double tol_of(kf_dtype t) {
  return t == KF_HALF ? 5e-3 : t == KF_BFLOAT16 ? 3e-2 : t == KF_DOUBLE ? 1e-10 : 2e-5;
}

/* FusedBatchNormGrad{,V2,V3}: x_backprop, scale_backprop, offset_backprop
   (the reserve_space outputs are empty). */
static int bngrad(const ref_call *c, double *const *want, double *tol) {
  const kf_attrs *a = c->attrs;
  const kf_tensor_desc *x = &c->in[1];
  const int last = a->data_format == KF_NHWC || a->data_format == KF_NDHWC;
  int64_t n = x->dims[0], ch = last ? x->dims[x->rank - 1] : x->dims[1], s = 1, i;
  double *v[5];
  int j, ok = 1;
  if (c->num_outputs < 3) return 0;
  for (i = last ? 1 : 2; i < (last ? x->rank - 1 : x->rank); i++) s *= x->dims[i];
  for (j = 0; j < 5; j++) {
    v[j] = ref_to_double(c->data[j], c->in[j].dtype, ref_count(&c->in[j]));
    ok &= v[j] != NULL;
  }
  if (ok) ref_bngrad(last, a->is_training, n, ch, s, a->epsilon, v[0], v[1], v[2], v[3], v[4], want[0], want[1], want[2]);
  for (j = 0; j < 5; j++) free(v[j]);
  tol[0] = tol_of(c->out[0]->dtype);
  tol[1] = tol[2] = 1e-5;
  for (j = 3; j < c->num_outputs; j++) tol[j] = 0;
  return ok;
}

/* DepthwiseConv2dNativeBackpropInput. */
static int dwbpi(const ref_call *c, double *const *want, double *tol) {
  const kf_attrs *a = c->attrs;
  const kf_tensor_desc *f = &c->in[1], *g = &c->in[2];
  const int32_t *sz = (const int32_t *)c->in[0].host_data;
  const int nchw = a->data_format == KF_NCHW, hi = nchw ? 2 : 1, wi = nchw ? 3 : 2;
  ref_dwbpi_conf cf;
  double *fd, *gd;
  if (!sz || c->num_outputs < 1) return 0;
  memset(&cf, 0, sizeof cf);
  cf.nchw = nchw;
  cf.n = sz[0]; cf.h = sz[hi]; cf.w = sz[wi]; cf.c = sz[nchw ? 1 : 3]; cf.m = f->dims[3];
  cf.kh = f->dims[0]; cf.kw = f->dims[1];
  cf.sh = a->strides[hi]; cf.sw = a->strides[wi];
  cf.dh = a->num_dilations == 4 ? a->dilations[hi] : 1; cf.dw = a->num_dilations == 4 ? a->dilations[wi] : 1;
  if (!ref_dwbpi_window(cf.h, cf.kh, cf.dh, cf.sh, (int)a->padding, a->explicit_paddings[2 * hi],
                        a->explicit_paddings[2 * hi + 1], &cf.oh, &cf.pad_top) ||
      !ref_dwbpi_window(cf.w, cf.kw, cf.dw, cf.sw, (int)a->padding, a->explicit_paddings[2 * wi],
                        a->explicit_paddings[2 * wi + 1], &cf.ow, &cf.pad_left))
    return 0;
  fd = ref_to_double(c->data[1], f->dtype, ref_count(f));
  gd = ref_to_double(c->data[2], g->dtype, ref_count(g));
  if (fd && gd) ref_dwbpi(&cf, fd, gd, want[0]);
  free(fd);
  free(gd);
  tol[0] = tol_of(c->out[0]->dtype);
  return fd && gd;
}

/* DepthwiseConv2dNativeBackpropFilter: output [kh, kw, c, m] from input and
   out_backprop, filter_sizes' values read at plan time (host_data). */
static int dwbpf(const ref_call *c, double *const *want, double *tol) {
  const kf_attrs *a = c->attrs;
  const kf_tensor_desc *x = &c->in[0], *g = &c->in[2];
  const int32_t *fs = (const int32_t *)c->in[1].host_data;
  const int nchw = a->data_format == KF_NCHW, hi = nchw ? 2 : 1, wi = nchw ? 3 : 2;
  ref_dwbpf_conf cf;
  double *xd, *gd;
  if (!fs || c->num_outputs < 1) return 0;
  memset(&cf, 0, sizeof cf);
  cf.nchw = nchw;
  cf.n = x->dims[0]; cf.h = x->dims[hi]; cf.w = x->dims[wi]; cf.c = x->dims[nchw ? 1 : 3];
  cf.kh = fs[0]; cf.kw = fs[1]; cf.m = fs[3];
  cf.sh = a->strides[hi]; cf.sw = a->strides[wi];
  cf.dh = a->num_dilations == 4 ? a->dilations[hi] : 1; cf.dw = a->num_dilations == 4 ? a->dilations[wi] : 1;
  if (!ref_dwbpi_window(cf.h, cf.kh, cf.dh, cf.sh, (int)a->padding, a->explicit_paddings[2 * hi],
                        a->explicit_paddings[2 * hi + 1], &cf.oh, &cf.pad_top) ||
      !ref_dwbpi_window(cf.w, cf.kw, cf.dw, cf.sw, (int)a->padding, a->explicit_paddings[2 * wi],
                        a->explicit_paddings[2 * wi + 1], &cf.ow, &cf.pad_left))
    return 0;
  xd = ref_to_double(c->data[0], x->dtype, ref_count(x));
  gd = ref_to_double(c->data[2], g->dtype, ref_count(g));
  if (xd && gd) ref_dwbpf(&cf, xd, gd, want[0], NULL);
  free(xd);
  free(gd);
  /* a long reduction (n*oh*ow terms per element): relative to the result,
     the float tolerance of the other ops, loosened for cancellation */
  tol[0] = tol_of(c->out[0]->dtype) * 10;
  return xd && gd;
}

/* The references, by op family (kf_op_family). */
static const struct { const char *family; int (*ref)(const ref_call *, double *const *, double *); } refs[] = {
  { "bngrad", bngrad },
  { "dwbpi", dwbpi },
  { "dwbpf", dwbpf },
};

int ref_op(const ref_call *c, double *const *want, double *tol) {
  const char *fam = kf_op_family(c->op);
  size_t i;
  for (i = 0; fam && i < sizeof refs / sizeof refs[0]; i++)
    if (strcmp(refs[i].family, fam) == 0) return refs[i].ref(c, want, tol);
  return 0;
}
