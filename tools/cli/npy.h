/*
** npy.h -- a strict reader and writer of NumPy .npy files (format 1.0, 2.0, 3.0).
**
** Only the little-endian, C-order arrays the kforge CLI needs:
** <f2 (half), <f4, <f8, <i4, <u2 (bfloat16 bit patterns) and |u1.
** The reader validates everything (header syntax, dtype, shape, sizes,
** exact file length) and reports each problem with its own message that
** names the file. Independent of the kforge runtime.
*/
#ifndef npy_h
#define npy_h

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define NPY_MAX_RANK 8
/* Largest element count accepted (matches KF_MAX_ELEMENTS). */
#define NPY_MAX_ELEMENTS (((int64_t)1 << 31) - 1)
/* Largest header accepted; NumPy itself refuses more than 10000 bytes. */
#define NPY_MAX_HEADER 65536

typedef enum npy_dtype {
  NPY_INVALID = 0,
  NPY_F2, /* '<f2' IEEE half */
  NPY_F4, /* '<f4' */
  NPY_F8, /* '<f8' */
  NPY_I4, /* '<i4' */
  NPY_U2, /* '<u2' (bfloat16 travels as its bit patterns) */
  NPY_U1  /* '|u1' */
} npy_dtype;

typedef struct npy_array {
  npy_dtype dtype;
  int rank;
  int64_t dims[NPY_MAX_RANK];
  int64_t count;    /* product of dims (1 for rank 0) */
  size_t nbytes;    /* count * npy_dtype_size(dtype) */
  void *data;       /* nbytes of little-endian C-order data, suitably aligned */
  void *buf_;       /* owning allocation (the whole file); free with npy_free */
} npy_array;

size_t npy_dtype_size(npy_dtype t);
const char *npy_dtype_descr(npy_dtype t); /* "<f4", "|u1", ... */

/* Reads and validates a whole .npy file. Returns 0 on success; otherwise -1
   with a one-line message (naming the file) in err and *out zeroed. */
int npy_read(const char *path, npy_array *out, char *err, size_t errlen);
/* The same in two steps, so that a caller can check the shape before any
   data is read (a header may declare gigabytes, and a pipe cannot be
   sized): npy_open reads and validates the header (out gets dtype, rank,
   dims, count and nbytes; no data); npy_read_data then reads the data into
   out (or fails, out zeroed) and closes the file. npy_close closes a file
   whose data is not wanted. Both return 0 or -1 with a message in err. */
typedef struct npy_file npy_file;
int npy_open(const char *path, npy_array *out, npy_file **file, char *err, size_t errlen);
int npy_read_data(npy_file *file, npy_array *out, char *err, size_t errlen);
void npy_close(npy_file *file);
/* Same, on bytes already in memory (name is used in messages). */
int npy_parse(const char *name, const unsigned char *bytes, size_t size, npy_array *out,
              char *err, size_t errlen);
void npy_free(npy_array *a);

/* Writes a version 1.0 .npy exactly as numpy.save would. data may be NULL
   when the shape has 0 elements. name is used in messages only.
   Returns 0 or -1 with a message in err. Does not close f. */
int npy_write_fp(FILE *f, const char *name, npy_dtype t, int rank, const int64_t *dims,
                 const void *data, char *err, size_t errlen);
/* Creates/truncates path and writes it (mode 0666 & ~umask). */
int npy_write(const char *path, npy_dtype t, int rank, const int64_t *dims, const void *data,
              char *err, size_t errlen);
/* The header numpy.save writes (magic included) into buf; returns its length,
   or 0 if it does not fit / the arguments are invalid. */
size_t npy_header(npy_dtype t, int rank, const int64_t *dims, char *buf, size_t bufsize);

#endif
