/*
** dwbpf_ref.h -- float64 reference of DepthwiseConv2dNativeBackpropFilter
** (plain loops over the definition, independent of kforge's kernels).
*/
#ifndef dwbpf_ref_h
#define dwbpf_ref_h

#include <stdint.h>

typedef struct ref_dwbpf_conf {
  int nchw;
  int64_t n, h, w, c, m, oh, ow, kh, kw, sh, sw, dh, dw, pad_top, pad_left;
} ref_dwbpf_conf;

/* The window arithmetic (output size, padding before) is the depthwise
   input gradient's reference's: ref_dwbpi_window in dwbpi_ref.h. */
#include "dwbpi_ref.h"

/* dwf [kh, kw, c, m] = sum of x * dy; l1 (may be NULL) gets the sum of the
   terms' magnitudes per element (the scale of a reduction's rounding error). */
void ref_dwbpf(const ref_dwbpf_conf *cf, const double *x, const double *dy, double *dwf, double *l1);

#endif
