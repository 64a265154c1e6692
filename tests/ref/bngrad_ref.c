/*
** bngrad_ref.c -- see bngrad_ref.h. With sigma^-1 = (var + eps)^-1/2 and
** xhat = (x - mean) sigma^-1, per channel over its M = n*s positions:
**   offset_backprop = sum dy,  scale_backprop = sum dy xhat,
**   training: dx = scale sigma^-1 (dy - mean(dy) - xhat mean(dy xhat))
**   frozen:   dx = scale sigma^-1 dy
** Sums are Neumaier-compensated so the reference is exact to double rounding.
*/
#include <math.h>

#include "bngrad_ref.h"

typedef struct { double s, comp; } ksum;

static void kadd(ksum *k, double v) {
  double t = k->s + v;
  if (fabs(k->s) >= fabs(v)) k->comp += (k->s - t) + v;
  else k->comp += (v - t) + k->s;
  k->s = t;
}

static double kval(const ksum *k) { return k->s + k->comp; }

void ref_bngrad(int channels_last, int training, int64_t n, int64_t c, int64_t s, float epsilon,
                const double *dy, const double *x, const double *scale, const double *mean,
                const double *var, double *dx, double *dscale, double *doffset) {
  int64_t ch, b, i;
  const double m = (double)(n * s);
  for (ch = 0; ch < c; ch++) {
    const double inv_sigma = 1.0 / sqrt(var[ch] + (double)epsilon);
    ksum sdy = { 0, 0 }, sdyxh = { 0, 0 };
    double mdy, mdyxh;
    for (b = 0; b < n; b++)
      for (i = 0; i < s; i++) {
        int64_t at = channels_last ? (b * s + i) * c + ch : (b * c + ch) * s + i;
        kadd(&sdy, dy[at]);
        kadd(&sdyxh, dy[at] * (x[at] - mean[ch]) * inv_sigma);
      }
    doffset[ch] = kval(&sdy);
    dscale[ch] = kval(&sdyxh);
    mdy = m > 0 ? kval(&sdy) / m : 0;
    mdyxh = m > 0 ? kval(&sdyxh) / m : 0;
    for (b = 0; b < n; b++)
      for (i = 0; i < s; i++) {
        int64_t at = channels_last ? (b * s + i) * c + ch : (b * c + ch) * s + i;
        double xhat = (x[at] - mean[ch]) * inv_sigma;
        dx[at] = training ? scale[ch] * inv_sigma * (dy[at] - mdy - xhat * mdyxh)
                          : scale[ch] * inv_sigma * dy[at];
      }
  }
}
