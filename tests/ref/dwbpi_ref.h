/*
** dwbpi_ref.h -- double-precision reference of DepthwiseConv2dNativeBackpropInput
** in scatter form (tf_semantics.md 2.3 and 2.4, with kforge's true
** dilation), written independently of the templates and of the runtime's
** size arithmetic.
*/
#ifndef dwbpi_ref_h
#define dwbpi_ref_h

#include <stdint.h>

enum { REF_SAME = 0, REF_VALID = 1, REF_EXPLICIT = 2 };

/* One spatial dim: output size and forward padding before, as TF's
   GetWindowedOutputSizeVerbose with effective filter size (k-1)*d+1.
   For REF_EXPLICIT, pb/pa are the explicit paddings. Returns 0 if the
   computed size would be negative (or s/d invalid), else 1. */
int ref_dwbpi_window(int64_t in, int64_t k, int64_t d, int64_t s, int padding, int64_t pb, int64_t pa,
                     int64_t *out, int64_t *pad_before);

typedef struct ref_dwbpi_conf {
  int nchw;                        /* 0: NHWC, 1: NCHW */
  int64_t n, h, w, c, m;           /* dx [n,h,w,c] (or [n,c,h,w]), multiplier m */
  int64_t kh, kw, sh, sw, dh, dw;  /* filter [kh,kw,c,m], strides, dilations */
  int64_t oh, ow;                  /* dy [n,oh,ow,c*m] (or [n,c*m,oh,ow]) */
  int64_t pad_top, pad_left;       /* forward padding before */
} ref_dwbpi_conf;

/* dx = d(loss)/d(input); every element written (zeros where nothing flows). */
void ref_dwbpi(const ref_dwbpi_conf *cf, const double *filter, const double *dy, double *dx);

#endif
