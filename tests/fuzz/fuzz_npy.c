/*
** fuzz_npy.c -- libFuzzer target over the .npy reader (tools/cli/npy.c).
**
** npy_parse on the bytes; when it accepts them, the array must be
** self-consistent, and writing it with npy_write_fp to a memory FILE and
** parsing that again must give the same dtype, shape and data. The first
** byte also selects a pass through npy_read on a temp file (the path the
** CLI uses), which must agree with npy_parse.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void die(const char *what, const char *err) {
  fprintf(stderr, "fuzz_npy: %s: %s\n", what, err ? err : "");
  abort();
}

/* An error message must be one NUL-terminated line naming the file. */
static void check_message(const char *err, size_t cap, const char *name) {
  if (!memchr(err, 0, cap)) die("message not terminated", "");
  if (strchr(err, '\n')) die("message with a newline", err);
  if (strncmp(err, name, strlen(name)) != 0) die("message does not name the file", err);
}

static void check_array(const npy_array *a) {
  int64_t n = 1;
  int i;
  if (a->rank < 0 || a->rank > NPY_MAX_RANK || npy_dtype_size(a->dtype) == 0) die("bad array", "rank/dtype");
  for (i = 0; i < a->rank; i++) {
    if (a->dims[i] < 0) die("bad array", "negative dim");
    if (a->dims[i] && n > NPY_MAX_ELEMENTS / a->dims[i] + 1) n = NPY_MAX_ELEMENTS + 1;
    else n *= a->dims[i];
  }
  if (a->count != n || a->count > NPY_MAX_ELEMENTS) die("bad array", "count");
  if (a->nbytes != (size_t)a->count * npy_dtype_size(a->dtype)) die("bad array", "nbytes");
  if (!a->data) die("bad array", "no data");
  if (a->nbytes) { /* touch every byte: ASan checks the allocation */
    volatile unsigned char s = 0;
    size_t k;
    for (k = 0; k < a->nbytes; k += 1 + k / 3) s ^= ((const unsigned char *)a->data)[k];
    s ^= ((const unsigned char *)a->data)[a->nbytes - 1];
    (void)s;
  }
}

static void same(const npy_array *a, const npy_array *b) {
  int i;
  if (a->dtype != b->dtype || a->rank != b->rank || a->count != b->count || a->nbytes != b->nbytes)
    die("round trip", "dtype/shape differ");
  for (i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i]) die("round trip", "dims differ");
  if (a->nbytes && memcmp(a->data, b->data, a->nbytes) != 0) die("round trip", "data differ");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  npy_array a, b;
  char err[512];
  int rc;
  memset(&b, 0, sizeof b);
  err[0] = 0;
  rc = npy_parse("in.npy", data, size, &a, err, sizeof err);
  if (rc != 0) {
    npy_array zero;
    memset(&zero, 0, sizeof zero);
    if (rc != -1) die("return value", "");
    check_message(err, sizeof err, "in.npy");
    if (memcmp(&a, &zero, sizeof a) != 0) die("failed parse left *out set", err);
  } else {
    char *mem = NULL;
    size_t memlen = 0;
    FILE *f;
    char err2[512];
    check_array(&a);
    /* round trip through the writer */
    f = open_memstream(&mem, &memlen);
    if (!f) die("open_memstream", "");
    if (npy_write_fp(f, "out.npy", a.dtype, a.rank, a.dims, a.data, err2, sizeof err2) != 0)
      die("cannot write what was read", err2);
    fclose(f);
    if (npy_parse("out.npy", (const unsigned char *)mem, memlen, &b, err2, sizeof err2) != 0)
      die("cannot read what was written", err2);
    check_array(&b);
    same(&a, &b);
    {
      char hdr[1024];
      size_t hn = npy_header(a.dtype, a.rank, a.dims, hdr, sizeof hdr);
      if (hn == 0 || hn % 64 != 0 || memlen != hn + a.nbytes || memcmp(hdr, mem, hn) != 0)
        die("header of the written file", "");
    }
    npy_free(&b);
    free(mem);
  }
  /* The file path of the reader agrees with the memory path. */
  if (size && (data[size - 1] & 7) == 0) {
    char path[64];
    int fd;
    npy_array c;
    char err3[512];
    int rc3;
    snprintf(path, sizeof path, "/tmp/fuzz_npy.%ld.npy", (long)getpid());
    fd = -1;
    {
      FILE *f = fopen(path, "wb");
      if (f) {
        if (fwrite(data, 1, size, f) == size) fd = 0;
        fclose(f);
      }
    }
    if (fd == 0) {
      rc3 = npy_read(path, &c, err3, sizeof err3);
      if ((rc3 == 0) != (rc == 0)) die("npy_read and npy_parse disagree", rc3 ? err3 : err);
      if (rc3 == 0) {
        check_array(&c);
        same(&a, &c);
        npy_free(&c);
      } else {
        check_message(err3, sizeof err3, path);
      }
    }
    unlink(path);
  }
  if (rc == 0) npy_free(&a);
  return 0;
}
