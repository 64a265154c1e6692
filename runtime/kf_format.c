/*
** kf_format.c -- the runtime's own small printf for error messages, so the
** library needs no stdio (microcontroller builds link no printf). Supports
** what the messages use: %s (with .N precision), %d %i %u %x with the
** length modifiers l, ll and z, %c and %%. Output is always terminated and
** never overruns: text that does not fit is cut.
*/
#include <stdarg.h>
#include <stddef.h>

#include "kfi.h"

typedef struct { char *buf; size_t n, k; } sink;

static void put(sink *s, char c) {
  if (s->k + 1 < s->n) s->buf[s->k] = c;
  s->k++;
}

static void put_uint(sink *s, unsigned long long v, unsigned base, int neg) {
  char d[24];
  int i = 0;
  if (neg) put(s, '-');
  do {
    d[i++] = "0123456789abcdef"[v % base];
    v /= base;
  } while (v);
  while (i) put(s, d[--i]);
}

int kfi_vformat(char *buf, size_t n, const char *fmt, va_list ap) {
  sink s;
  s.buf = buf;
  s.n = n;
  s.k = 0;
  for (; *fmt; fmt++) {
    int lng = 0, zed = 0, prec = -1;
    if (*fmt != '%') { put(&s, *fmt); continue; }
    fmt++;
    if (*fmt == '.') { /* precision: %.40s */
      prec = 0;
      for (fmt++; *fmt >= '0' && *fmt <= '9'; fmt++) prec = prec * 10 + (*fmt - '0');
    }
    for (; *fmt == 'l'; fmt++) lng++;
    if (*fmt == 'z') { zed = 1; fmt++; }
    switch (*fmt) {
      case 'd': case 'i': {
        long long v = lng >= 2 ? va_arg(ap, long long) : lng ? va_arg(ap, long) : zed ? (long long)va_arg(ap, size_t)
                                                                                       : va_arg(ap, int);
        put_uint(&s, v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v, 10, v < 0);
        break;
      }
      case 'u': case 'x': {
        unsigned long long v = lng >= 2 ? va_arg(ap, unsigned long long)
                               : lng   ? va_arg(ap, unsigned long)
                               : zed   ? va_arg(ap, size_t) : va_arg(ap, unsigned);
        put_uint(&s, v, *fmt == 'x' ? 16 : 10, 0);
        break;
      }
      case 's': {
        const char *str = va_arg(ap, const char *);
        if (!str) str = "(null)";
        for (; *str && prec != 0; str++, prec--) put(&s, *str);
        break;
      }
      case 'c': put(&s, (char)va_arg(ap, int)); break;
      case '%': put(&s, '%'); break;
      default: /* unsupported conversion: print it as is */
        put(&s, '%');
        if (!*fmt) goto done;
        put(&s, *fmt);
        break;
    }
  }
done:
  if (n) buf[s.k < n ? s.k : n - 1] = 0;
  return (int)s.k;
}

int kfi_format(char *buf, size_t n, const char *fmt, ...) {
  va_list ap;
  int r;
  va_start(ap, fmt);
  r = kfi_vformat(buf, n, fmt, ap);
  va_end(ap);
  return r;
}
