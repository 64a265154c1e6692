/*
** dwbpf_ref.c -- see dwbpf_ref.h. Straight from the definition: for every
** out_backprop element g = dy[b, oy, ox, c*m + k] and filter tap (fy, fx),
** the input value it was multiplied with in the forward pass,
** x[b, oy*sh - pad_top + fy*dh, ox*sw - pad_left + fx*dw, c] (none outside
** the input), times g, added to dwf[fy, fx, c, k] in double.
*/
#include <math.h>
#include <string.h>

#include "dwbpf_ref.h"

void ref_dwbpf(const ref_dwbpf_conf *cf, const double *x, const double *dy, double *dwf, double *l1) {
  const int64_t cm = cf->c * cf->m, ne = cf->kh * cf->kw * cm;
  int64_t b, oy, ox, ch, k, fy, fx;
  memset(dwf, 0, sizeof(double) * (size_t)ne);
  if (l1) memset(l1, 0, sizeof(double) * (size_t)ne);
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
                const int64_t xx = ox * cf->sw - cf->pad_left + fx * cf->dw;
                double v, t;
                if (xx < 0 || xx >= cf->w) continue;
                v = cf->nchw ? x[((b * cf->c + ch) * cf->h + y) * cf->w + xx]
                             : x[((b * cf->h + y) * cf->w + xx) * cf->c + ch];
                t = v * g;
                dwf[(fy * cf->kw + fx) * cm + q] += t;
                if (l1) l1[(fy * cf->kw + fx) * cm + q] += fabs(t);
              }
            }
          }
}
