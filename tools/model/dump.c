/*
** dump.c -- see dump.h. open/write, not stdio: on the image these are
** picolibc's semihosting calls, and its fopen would allocate its buffer on
** the heap, which the images forbid.
*/
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "dump.h"

int kfm_dump(const char *dir, int i, const kfm_run *r) {
  int j, ok = 1;
  for (j = 0; j < r->num_outputs; j++) {
    const kf_tensor_desc *d = r->out_desc[j];
    const char *p = (const char *)r->out[j];
    size_t n = kf_dtype_size(d->dtype), k;
    char path[4096];
    int fd;
    for (k = 0; k < (size_t)d->rank; k++) n *= (size_t)d->dims[k];
    snprintf(path, sizeof path, "%s/%d_%d.%s", dir, i, j, kf_dtype_name(d->dtype));
    if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0) return 0;
    while (n > 0) {
      ssize_t w = write(fd, p, n);
      if (w <= 0) { ok = 0; break; }
      p += w;
      n -= (size_t)w;
    }
    if (close(fd) != 0) ok = 0;
  }
  return ok;
}
