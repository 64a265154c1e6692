/*
** bngrad_ref.h -- double-precision reference of TF's batch-norm gradient,
** written from the closed form, independently of the templates.
*/
#ifndef bngrad_ref_h
#define bngrad_ref_h

#include <stdint.h>

/* x, dy: [n, s, c] when channels_last, else [n, c, s]. epsilon as TF's float. */
void ref_bngrad(int channels_last, int training, int64_t n, int64_t c, int64_t s, float epsilon,
                const double *dy, const double *x, const double *scale, const double *mean,
                const double *var, double *dx, double *dscale, double *doffset);

#endif
