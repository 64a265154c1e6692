/*
** dwbpi_ref.c -- see dwbpi_ref.h. Scatter form: each out_backprop element
** g = dy[b, oy, ox, c*m + k] adds g * f[fy, fx, c, k] to every input
** position (oy*sh - pad_top + fy*dh, ox*sw - pad_left + fx*dw) it read in the
** forward pass, when that position is inside the input.
*/
#include <string.h>

#include "dwbpi_ref.h"

int ref_dwbpi_window(int64_t in, int64_t k, int64_t d, int64_t s, int padding, int64_t pb, int64_t pa,
                     int64_t *out, int64_t *pad_before) {
  int64_t eff, o;
  if (s <= 0 || d < 1) return 0;
  eff = (k - 1) * d + 1;
  if (padding == REF_SAME) {
    int64_t need;
    o = (in + s - 1) / s;
    need = (o - 1) * s + eff - in;
    if (need < 0) need = 0;
    *pad_before = need / 2; /* smaller half before */
  } else {
    if (padding == REF_VALID) pb = pa = 0;
    o = (in + pb + pa - eff + s) / s; /* truncating division, as C++ */
    *pad_before = pb;
  }
  *out = o;
  return o >= 0;
}

void ref_dwbpi(const ref_dwbpi_conf *cf, const double *filter, const double *dy, double *dx) {
  const int64_t cm = cf->c * cf->m;
  int64_t b, oy, ox, ch, k, fy, fx;
  memset(dx, 0, sizeof(double) * (size_t)(cf->n * cf->h * cf->w * cf->c));
  for (b = 0; b < cf->n; b++)
    for (oy = 0; oy < cf->oh; oy++)
      for (ox = 0; ox < cf->ow; ox++)
        for (ch = 0; ch < cf->c; ch++)
          for (k = 0; k < cf->m; k++) {
            const int64_t q = ch * cf->m + k;
            const double g = cf->nchw ? dy[((b * cm + q) * cf->oh + oy) * cf->ow + ox]
                                      : dy[((b * cf->oh + oy) * cf->ow + ox) * cm + q];
            for (fy = 0; fy < cf->kh; fy++) {
              const int64_t y = oy * cf->sh - cf->pad_top + fy * cf->dh;
              if (y < 0 || y >= cf->h) continue;
              for (fx = 0; fx < cf->kw; fx++) {
                const int64_t x = ox * cf->sw - cf->pad_left + fx * cf->dw;
                const double f = filter[(fy * cf->kw + fx) * cm + q];
                if (x < 0 || x >= cf->w) continue;
                if (cf->nchw)
                  dx[((b * cf->c + ch) * cf->h + y) * cf->w + x] += g * f;
                else
                  dx[((b * cf->h + y) * cf->w + x) * cf->c + ch] += g * f;
              }
            }
          }
}
