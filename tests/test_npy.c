/*
** test_npy.c -- unit test of tools/cli/npy.c alone (no runtime).
** Built by ninja (tests/tests.ninja); checks through tests/harness.c, so
** TH_FILTER and TH_VERBOSE work as in every test.
** run.sh: no capped reruns (no kernels)
*/
#include "../tools/cli/npy.h"
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

static void check(int cond, const char *what, const char *detail) {
  th_check(cond, "%s%s%s", what, detail && !cond ? ": " : "", detail && !cond ? detail : "");
}

static void tmp_path(char *buf, size_t n, const char *name) { snprintf(buf, n, "%s/%s", dir, name); }

static void write_raw(const char *path, const void *bytes, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f || (n && fwrite(bytes, 1, n, f) != n)) {
    perror(path);
    exit(2);
  }
  fclose(f);
}

/* A file of the given major version (length field 2 or 4 bytes): magic,
   the dict, padded like numpy (to 64) if pad, '\n', then ndata data bytes. */
static size_t build(unsigned char *buf, int version, const char *dict, size_t ndata, int pad) {
  size_t ls = version == 1 ? 2 : 4, n = strlen(dict), hlen = n + 1;
  if (pad) hlen += 64 - ((8 + ls + hlen) % 64);
  memcpy(buf, "\x93NUMPY", 6);
  buf[6] = (unsigned char)version, buf[7] = 0;
  for (size_t i = 0; i < ls; i++) buf[8 + i] = (unsigned char)(hlen >> (8 * i));
  memcpy(buf + 8 + ls, dict, n);
  memset(buf + 8 + ls + n, ' ', hlen - n - 1);
  buf[8 + ls + hlen - 1] = '\n';
  for (size_t i = 0; i < ndata; i++) buf[8 + ls + hlen + i] = (unsigned char)i;
  return 8 + ls + hlen + ndata;
}

/* Expects the file to be rejected with a message containing want and the path. */
static void expect_reject_bytes(const char *what, const void *bytes, size_t n, const char *want) {
  char path[128], err[512], label[256];
  tmp_path(path, sizeof path, "bad.npy");
  write_raw(path, bytes, n);
  npy_array a;
  int rc = npy_read(path, &a, err, sizeof err);
  snprintf(label, sizeof label, "reject %s", what);
  char detail[700];
  snprintf(detail, sizeof detail, "rc=%d message='%s' wanted '%s'", rc, rc ? err : "", want);
  check(rc != 0 && strstr(err, want) && strstr(err, path) && a.data == NULL, label, detail);
  if (rc == 0) npy_free(&a);
}

static void expect_reject_dict(const char *what, const char *dict, size_t ndata, const char *want) {
  unsigned char buf[4096];
  size_t n = build(buf, 1, dict, ndata, 1);
  expect_reject_bytes(what, buf, n, want);
}

static void expect_accept_bytes(const char *what, const void *bytes, size_t n, npy_dtype t,
                                int rank, const int64_t *dims) {
  char path[128], err[512], label[256];
  tmp_path(path, sizeof path, "good.npy");
  write_raw(path, bytes, n);
  npy_array a;
  int rc = npy_read(path, &a, err, sizeof err);
  snprintf(label, sizeof label, "accept %s", what);
  int ok = rc == 0 && a.dtype == t && a.rank == rank;
  for (int i = 0; ok && i < rank; i++) ok = a.dims[i] == dims[i];
  check(ok, label, rc ? err : "wrong dtype/shape");
  if (rc == 0) npy_free(&a);
}

static void expect_accept_dict(const char *what, const char *dict, size_t ndata, npy_dtype t,
                               int rank, const int64_t *dims) {
  unsigned char buf[4096];
  size_t n = build(buf, 1, dict, ndata, 1);
  expect_accept_bytes(what, buf, n, t, rank, dims);
}

/* The header bytes numpy.save writes: magic, length, the dict, spaces, '\n';
   total is what numpy produced (checked against numpy 1.24). */
static void expect_header(npy_dtype t, int rank, const int64_t *dims, const char *dict,
                          size_t total) {
  char got[1024], want[1024], label[256];
  size_t n = npy_header(t, rank, dims, got, sizeof got);
  memcpy(want, "\x93NUMPY\x01\x00", 8);
  want[8] = (char)((total - 10) & 0xff), want[9] = (char)((total - 10) >> 8);
  size_t dn = strlen(dict);
  memcpy(want + 10, dict, dn);
  memset(want + 10 + dn, ' ', total - 11 - dn);
  want[total - 1] = '\n';
  snprintf(label, sizeof label, "header as numpy.save: %s (%zu bytes)", dict, total);
  check(n == total && memcmp(got, want, total) == 0, label, NULL);
}

static void round_trip(const char *what, npy_dtype t, int rank, const int64_t *dims) {
  char path[128], err[512], label[256];
  int64_t count = 1;
  for (int i = 0; i < rank; i++) count *= dims[i];
  size_t nbytes = (size_t)count * npy_dtype_size(t);
  unsigned char *data = malloc(nbytes + 1);
  for (size_t i = 0; i < nbytes; i++) data[i] = (unsigned char)(i * 7 + 3);
  tmp_path(path, sizeof path, "rt.npy");
  snprintf(label, sizeof label, "round trip %s %s", npy_dtype_descr(t), what);
  npy_array a;
  int rc = npy_write(path, t, rank, dims, count ? data : NULL, err, sizeof err);
  if (rc == 0) rc = npy_read(path, &a, err, sizeof err);
  int ok = rc == 0 && a.dtype == t && a.rank == rank && a.count == count && a.nbytes == nbytes &&
           a.data != NULL && memcmp(a.data, data, nbytes) == 0;
  for (int i = 0; ok && i < rank; i++) ok = a.dims[i] == dims[i];
  struct stat st;
  ok = ok && stat(path, &st) == 0 && st.st_size % 64 == (off_t)(nbytes % 64);
  check(ok, label, rc ? err : NULL);
  if (rc == 0) npy_free(&a);
  free(data);
}

int main(void) {
  snprintf(dir, sizeof dir, "/tmp/test_npy.XXXXXX");
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 2;
  }

  /* --- writer: byte-exact numpy.save headers */
  int64_t d3[] = {3}, d0[] = {0}, d234[] = {2, 3, 4}, d8[] = {1, 2, 3, 4, 5, 6, 7, 8};
  int64_t dbig[] = {123456789012LL, 1}, dal[] = {1, 1000000000000000000LL, 100000000000000000LL};
  int64_t d18[8];
  for (int i = 0; i < 8; i++) d18[i] = 1000000000000000000LL;
  expect_header(NPY_F4, 1, d3, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", 128);
  expect_header(NPY_F8, 0, NULL, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }", 128);
  expect_header(NPY_F4, 1, d0, "{'descr': '<f4', 'fortran_order': False, 'shape': (0,), }", 128);
  expect_header(NPY_I4, 3, d234,
                "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3, 4), }", 128);
  expect_header(NPY_U2, 8, d8,
                "{'descr': '<u2', 'fortran_order': False, 'shape': (1, 2, 3, 4, 5, 6, 7, 8), }",
                128);
  expect_header(NPY_U1, 2, dbig,
                "{'descr': '|u1', 'fortran_order': False, 'shape': (123456789012, 1), }", 128);
  expect_header(NPY_F4, 3, dal,
                "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1000000000000000000, "
                "100000000000000000), }",
                192); /* numpy pads a whole 64 when already aligned */
  expect_header(NPY_F8, 8, d18,
                "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000000000, "
                "1000000000000000000, 1000000000000000000, 1000000000000000000, "
                "1000000000000000000, 1000000000000000000, 1000000000000000000, "
                "1000000000000000000), }",
                256);

  /* --- round trips */
  int64_t d203[] = {2, 0, 3}, d57[] = {5, 7}, d1[] = {1, 1, 1, 1, 1, 1, 1, 1};
  round_trip("(3,)", NPY_F4, 1, d3);
  round_trip("()", NPY_F8, 0, NULL);
  round_trip("(0,)", NPY_F4, 1, d0);
  round_trip("(2, 0, 3)", NPY_F2, 3, d203);
  round_trip("(2, 3, 4)", NPY_I4, 3, d234);
  round_trip("(5, 7)", NPY_U2, 2, d57);
  round_trip("(5, 7)", NPY_U1, 2, d57);
  round_trip("rank 8", NPY_F8, 8, d1);

  /* --- accepted variants of what NumPy (old and new) writes */
  int64_t d23[] = {2, 3};
  expect_accept_dict("keys in another order",
                     "{'shape': (2, 3), 'fortran_order': False, 'descr': '<f4'}", 24, NPY_F4, 2,
                     d23);
  expect_accept_dict("double quotes, extra whitespace, no trailing comma",
                     "{ \"descr\" :\t\"<f4\" , \"fortran_order\" : False ,\"shape\":( 2 ,3 ) }",
                     24, NPY_F4, 2, d23);
  expect_accept_dict("Python 2 long suffix", "{'descr': '<f4', 'fortran_order': False, "
                     "'shape': (2L, 3L), }", 24, NPY_F4, 2, d23);
  expect_accept_dict("trailing comma in 2-D shape",
                     "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3,), }", 24, NPY_F4,
                     2, d23);
  expect_accept_dict("native '=' byte order",
                     "{'descr': '=f8', 'fortran_order': False, 'shape': (2, 3), }", 48, NPY_F8,
                     2, d23);
  expect_accept_dict("no byte order character",
                     "{'descr': 'i4', 'fortran_order': False, 'shape': (2, 3), }", 24, NPY_I4, 2,
                     d23);
  expect_accept_dict("'|u1'", "{'descr': '|u1', 'fortran_order': False, 'shape': (2, 3), }", 6,
                     NPY_U1, 2, d23);
  expect_accept_dict("unpadded (16-byte era) header",
                     "{'descr': '<u2', 'fortran_order': False, 'shape': (2, 3)}", 12, NPY_U2, 2,
                     d23);
  {
    const char *F2 = "{'descr': '<f2', 'fortran_order': False, 'shape': (2, 3), }";
    unsigned char b2[512];
    size_t n = build(b2, 1, F2, 12, 0);
    expect_accept_bytes("version 1.0 unaligned header", b2, n, NPY_F2, 2, d23);
    n = build(b2, 2, F2, 12, 1);
    expect_accept_bytes("version 2.0", b2, n, NPY_F2, 2, d23);
    n = build(b2, 3, F2, 12, 1);
    expect_accept_bytes("version 3.0", b2, n, NPY_F2, 2, d23);
    n = build(b2, 3, F2, 11, 1);
    expect_reject_bytes("version 3.0 truncated data", b2, n, "truncated data");
  }

  /* --- malformed files: each with its own message */
  const char *F4 = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  unsigned char buf[4096];
  size_t n = build(buf, 1, F4, 24, 1);
  expect_reject_bytes("empty file", "", 0, "empty file");
  expect_reject_bytes("bad magic", "PK\x03\x04 this is a zip file", 22, "bad magic");
  expect_reject_bytes("short magic", "\x93NUM", 4, "bad magic");
  expect_reject_bytes("no version", "\x93NUMPY\x01", 7, "truncated before the format version");
  expect_reject_bytes("version 4.0", "\x93NUMPY\x04\x00\x10\x00", 10, "format version 4.0");
  expect_reject_bytes("version 1.1", "\x93NUMPY\x01\x01\x10\x00", 10, "format version 1.1");
  expect_reject_bytes("no header length", "\x93NUMPY\x01\x00\x10", 9,
                      "truncated before the header length");
  expect_reject_bytes("v2 short header length", "\x93NUMPY\x02\x00\x10\x00\x00", 11,
                      "truncated before the header length");
  expect_reject_bytes("truncated header", buf, 40, "truncated header");
  expect_reject_bytes("huge header length", "\x93NUMPY\x02\x00\x00\x00\x02\x00{", 13,
                      "exceeds the limit");
  expect_reject_bytes("empty header", "\x93NUMPY\x01\x00\x00\x00", 10, "empty header");
  {
    unsigned char b2[512];
    memcpy(b2, buf, n);
    b2[n - 24 - 1] = ' '; /* the final newline */
    expect_reject_bytes("header without final newline", b2, n, "does not end with a newline");
    memcpy(b2, buf, n);
    b2[12] = 0x01;
    expect_reject_bytes("control byte in header", b2, n, "invalid byte 0x01");
    memcpy(b2, buf, n);
    b2[20] = (char)0xc3;
    expect_reject_bytes("non-ASCII byte in header", b2, n, "invalid byte 0xc3");
  }
  expect_reject_bytes("truncated data", buf, n - 1, "truncated data");
  expect_reject_bytes("header only, no data", buf, n - 24, "truncated data");
  {
    unsigned char b2[512];
    memcpy(b2, buf, n);
    b2[n] = 0;
    expect_reject_bytes("trailing garbage", b2, n + 1, "trailing garbage");
  }
  expect_reject_dict("not a dict", "['descr', '<f4']", 0, "not a Python dict");
  expect_reject_dict("unquoted key", "{descr: '<f4', 'fortran_order': False, 'shape': (2,), }",
                     8, "expected a quoted key");
  {
    size_t m = build(buf, 1, "{'descr': '<f4", 0, 0);
    expect_reject_bytes("unterminated string", buf, m, "unterminated string");
    m = build(buf, 1, F4, 24, 1);
  }
  expect_reject_dict("escape in string",
                     "{'descr': '<f\\x34', 'fortran_order': False, 'shape': (2,), }", 8,
                     "escape sequences");
  expect_reject_dict("unknown key",
                     "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'foo': 1, }", 8,
                     "unexpected key 'foo'");
  expect_reject_dict("duplicate key",
                     "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
                     8, "duplicate key 'descr'");
  expect_reject_dict("missing shape", "{'descr': '<f4', 'fortran_order': False, }", 4,
                     "missing key 'shape'");
  expect_reject_dict("missing descr", "{'fortran_order': False, 'shape': (2,), }", 8,
                     "missing key 'descr'");
  expect_reject_dict("missing fortran_order", "{'descr': '<f4', 'shape': (2,), }", 8,
                     "missing key 'fortran_order'");
  expect_reject_dict("missing colon", "{'descr' '<f4', 'fortran_order': False, 'shape': (2,), }",
                     8, "expected ':' after key 'descr'");
  expect_reject_dict("missing comma",
                     "{'descr': '<f4' 'fortran_order': False, 'shape': (2,), }", 8,
                     "expected ',' or '}' after the value of 'descr'");
  expect_reject_dict("unclosed dict", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), ",
                     8, "expected a quoted key");
  expect_reject_dict("text after dict",
                     "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), } x", 8,
                     "unexpected text after the dict");
  expect_reject_dict("big-endian", "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", 8,
                     "big-endian data ('>f4') is not supported");
  expect_reject_dict("fortran order", "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }",
                     24, "fortran_order True");
  expect_reject_dict("fortran_order not a bool",
                     "{'descr': '<f4', 'fortran_order': 0, 'shape': (2,), }", 8,
                     "must be True or False");
  expect_reject_dict("fortran_order Falsey",
                     "{'descr': '<f4', 'fortran_order': Falsey, 'shape': (2,), }", 8,
                     "must be True or False");
  expect_reject_dict("unsupported dtype",
                     "{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", 16,
                     "unsupported dtype '<c8'");
  expect_reject_dict("int64 dtype", "{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }",
                     16, "unsupported dtype '<i8'");
  expect_reject_dict("'|' on a multi-byte dtype",
                     "{'descr': '|f4', 'fortran_order': False, 'shape': (2,), }", 8,
                     "only valid for 1-byte types");
  expect_reject_dict("structured dtype",
                     "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", 8,
                     "structured arrays");
  expect_reject_dict("descr not a string",
                     "{'descr': 4, 'fortran_order': False, 'shape': (2,), }", 8,
                     "expected a quoted 'descr' value");
  expect_reject_dict("shape as list", "{'descr': '<f4', 'fortran_order': False, 'shape': [2], }",
                     8, "'shape' must be a tuple");
  expect_reject_dict("shape (2) is an int",
                     "{'descr': '<f4', 'fortran_order': False, 'shape': (2), }", 8,
                     "is not a tuple");
  expect_reject_dict("shape (,)", "{'descr': '<f4', 'fortran_order': False, 'shape': (,), }", 0,
                     "expected a dimension");
  expect_reject_dict("shape (2 3)",
                     "{'descr': '<f4', 'fortran_order': False, 'shape': (2 3), }", 24,
                     "expected ',' or ')'");
  expect_reject_dict("unterminated shape", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,",
                     8, "unterminated 'shape'");
  expect_reject_dict("bad dimension",
                     "{'descr': '<f4', 'fortran_order': False, 'shape': (2x,), }", 8,
                     "bad dimension");
  expect_reject_dict("float dimension",
                     "{'descr': '<f4', 'fortran_order': False, 'shape': (2.0,), }", 8,
                     "expected ',' or ')'");
  expect_reject_dict("leading zero",
                     "{'descr': '<f4', 'fortran_order': False, 'shape': (02,), }", 8,
                     "leading zero");
  expect_reject_dict("negative dimension",
                     "{'descr': '<f4', 'fortran_order': False, 'shape': (2, -1), }", 0,
                     "negative dimension -1");
  expect_reject_dict("rank 9",
                     "{'descr': '<f4', 'fortran_order': False, "
                     "'shape': (1, 1, 1, 1, 1, 1, 1, 1, 1), }", 4,
                     "rank exceeds the maximum of 8");
  expect_reject_dict("dimension overflows int64",
                     "{'descr': '<f4', 'fortran_order': False, "
                     "'shape': (99999999999999999999,), }", 0,
                     "dimension in 'shape' overflows 64 bits");
  expect_reject_dict("element count overflows int64",
                     "{'descr': '<f4', 'fortran_order': False, "
                     "'shape': (4294967296, 4294967296), }", 0,
                     "element count of the shape overflows 64 bits");
  expect_reject_dict("element count over 2^31-1",
                     "{'descr': '<u1', 'fortran_order': False, 'shape': (2147483648,), }", 0,
                     "exceeds the maximum of 2147483647");
  expect_accept_dict("zero dim with huge others",
                     "{'descr': '<f4', 'fortran_order': False, "
                     "'shape': (4294967296, 4294967296, 0), }", 0, NPY_F4, 3,
                     (const int64_t[]){4294967296LL, 4294967296LL, 0});
  {
    char path[128], err[512];
    npy_array a;
    tmp_path(path, sizeof path, "does-not-exist.npy");
    int rc = npy_read(path, &a, err, sizeof err);
    check(rc != 0 && strstr(err, "cannot open") && strstr(err, path), "reject missing file", err);
    rc = npy_read(dir, &a, err, sizeof err);
    check(rc != 0 && strstr(err, "is a directory"), "reject directory", err);
    rc = npy_write(path, NPY_INVALID, 1, d3, NULL, err, sizeof err);
    check(rc != 0 && access(path, F_OK) != 0, "writer rejects invalid dtype, leaves no file", err);
    int64_t neg[] = {-1};
    rc = npy_write(path, NPY_F4, 1, neg, NULL, err, sizeof err);
    check(rc != 0, "writer rejects negative dims", err);
  }

  /* clean up */
  const char *names[] = {"bad.npy", "good.npy", "rt.npy"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    char path[128];
    tmp_path(path, sizeof path, names[i]);
    unlink(path);
  }
  rmdir(dir);
  return th_done();
}
