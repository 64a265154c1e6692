/*
** compare.c -- a microcontroller's outputs against the host's run of the
** same instances (tools/build-model.sh, targets with vector kernels). Both
** sides write each output raw to DIR/<i>_<j>.<dtype> (tools/model/check.c
** --dump, mcu/main.c with KFM_DUMP). A vector kernel sums in another order
** than the host's portable C kernel (lanes, FMA), so its results are held to
** a tolerance, not to bit equality:
**   |mcu - host| <= tol * max|host|   per element, over each output;
**   float 1e-5: the batch-norm float tolerance of docs/testing.md (the
**     tighter one); two float sums of the same n terms in different order
**     differ by at most ~2 n eps sum|terms| and typically ~sqrt(n) eps: the
**     kernels' blocks of <= 256 terms give ~1e-6 at worst in practice;
**   half 2^-10 + 1e-5, bfloat16 2^-7 + 1e-5: the float difference, then one
**     rounding of an element of magnitude <= max|host| may land one unit in
**     the last place (2^-10 and 2^-7 of it) away.
** NaN must meet NaN; infinities must be equal.
**
**   compare HOSTDIR MCUDIR NAME...
** prints per NAME: "NAME elements N max_rel E tol T bit-identical|within|FAIL"
** and exits 1 if any NAME fails (or is missing or of another size).
*/
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char *slurp(const char *dir, const char *name, size_t *n) {
  char path[4096];
  unsigned char *b = NULL;
  long len;
  FILE *f;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  if (!(f = fopen(path, "rb"))) return NULL;
  if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
    b = malloc((size_t)len + 1);
    if (b && fread(b, 1, (size_t)len, f) != (size_t)len) { free(b); b = NULL; }
    *n = (size_t)len;
  }
  fclose(f);
  return b;
}

static double half_to_double(uint16_t h) {
  int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m | 0x400, e - 25);
  return (h & 0x8000) ? -v : v;
}

static double bf16_to_double(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

static double element(const unsigned char *b, size_t i, int kind) {
  uint16_t h;
  float f;
  double d;
  switch (kind) {
    case 0: memcpy(&f, b + 4 * i, 4); return f;
    case 1: memcpy(&h, b + 2 * i, 2); return half_to_double(h);
    case 2: memcpy(&h, b + 2 * i, 2); return bf16_to_double(h);
    default: memcpy(&d, b + 8 * i, 8); return d;
  }
}

int main(int argc, char **argv) {
  int a, bad = 0;
  if (argc < 3) {
    fprintf(stderr, "usage: compare HOSTDIR MCUDIR NAME...\n");
    return 2;
  }
  for (a = 3; a < argc; a++) {
    const char *name = argv[a], *dt = strrchr(name, '.');
    size_t nh = 0, nm = 0, n, i, es;
    unsigned char *h = slurp(argv[1], name, &nh), *m = slurp(argv[2], name, &nm);
    double tol, mx = 0, worst = 0;
    int kind, fail = 0;
    dt = dt ? dt + 1 : "";
    if (strcmp(dt, "float") == 0) kind = 0, es = 4, tol = 1e-5;
    else if (strcmp(dt, "half") == 0) kind = 1, es = 2, tol = 0x1p-10 + 1e-5;
    else if (strcmp(dt, "bfloat16") == 0) kind = 2, es = 2, tol = 0x1p-7 + 1e-5;
    else if (strcmp(dt, "double") == 0) kind = 3, es = 8, tol = 1e-10;
    else kind = -1, es = 1, tol = 0;
    if (!h || !m || nh != nm || kind < 0) {
      printf("%s FAIL: %s\n", name, kind < 0 ? "unknown dtype" : !h ? "no host file" : !m ? "no mcu file" : "sizes differ");
      bad++;
      free(h);
      free(m);
      continue;
    }
    n = nh / es;
    for (i = 0; i < n; i++) {
      double x = fabs(element(h, i, kind));
      if (isfinite(x) && x > mx) mx = x;
    }
    if (mx == 0) mx = 1e-30;
    for (i = 0; i < n; i++) {
      double x = element(h, i, kind), y = element(m, i, kind);
      if (isnan(x) || isnan(y) || isinf(x) || isinf(y)) {
        if (!(isnan(x) && isnan(y)) && x != y) fail = 1;
        continue;
      }
      if (fabs(x - y) / mx > worst) worst = fabs(x - y) / mx;
    }
    if (worst > tol) fail = 1;
    printf("%s elements %zu max_rel %.3g tol %.3g %s\n", name, n, worst, tol,
           fail ? "FAIL" : memcmp(h, m, nh) == 0 ? "bit-identical" : "within");
    bad += fail;
    free(h);
    free(m);
  }
  return bad ? 1 : 0;
}
