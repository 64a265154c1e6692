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

enum { REF_BF_SAME, REF_BF_VALID, REF_BF_EXPLICIT };

/* Output size and padding before, TF's arithmetic with true dilation.
   Returns 0 if the output size is negative. */
int ref_dwbpf_window(int64_t in, int64_t k, int64_t d, int64_t s, int padding, int64_t pb, int64_t pa, int64_t *out,
                     int64_t *pad_before);

/* dwf [kh, kw, c, m] = sum of x * dy; l1 (may be NULL) gets the sum of the
   terms' magnitudes per element (the scale of a reduction's rounding error). */
void ref_dwbpf(const ref_dwbpf_conf *cf, const double *x, const double *dy, double *dwf, double *l1);

#endif
