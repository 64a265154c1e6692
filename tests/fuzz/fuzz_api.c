/*
** fuzz_api.c -- libFuzzer target over the public C API of every op:
** kf_attrs_set + kf_plan_op + kf_execute, and the typed entry points.
**
** The fuzz bytes choose an op, attrs (as text, like the CLI), and tensor
** descriptors: mostly a consistent call built from small dims (so planning
** succeeds and the kernels run), then mutated (dtypes, ranks, dims including
** 0, negative, huge and overflowing values, NULL pointers, bad attr text).
** When planning succeeds, every input, output and the scratch buffer is
** allocated with exactly its planned size (ASan catches any access past it)
** and the plan is executed. Properties checked (abort on violation):
**   - planned output descriptors are sane (rank, dims >= 0, <= KF_MAX_ELEMENTS);
**   - every element of every output is written (outputs start as a
**     signalling-NaN canary no arithmetic can produce);
**   - a second execution gives bit-identical outputs;
**   - errors come with a status and a NUL-terminated message.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kforge.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---- the fuzz byte stream ---- */
typedef struct rd { const uint8_t *p; size_t n, i; } rd;

static unsigned u8(rd *r) { return r->i < r->n ? r->p[r->i++] : 0; }

static uint64_t u64(rd *r) {
  uint64_t v = 0;
  int k;
  for (k = 0; k < 8; k++) v = v << 8 | u8(r);
  return v;
}

/* A string of up to max-1 bytes, ended by a 0 byte or the data. */
static void str(rd *r, char *out, size_t max) {
  size_t k = 0;
  while (k + 1 < max && r->i < r->n) {
    char c = (char)r->p[r->i++];
    if (!c) break;
    out[k++] = c;
  }
  out[k] = 0;
}

static const int64_t interesting[] = {
  0, 1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 255, 256, 46340, 46341, 65535, 65536, 1 << 20,
  -1, -2, -3, INT32_MIN, (int64_t)INT32_MIN - 1,
  INT32_MAX - 1, INT32_MAX, (int64_t)INT32_MAX + 1, (int64_t)1 << 32, ((int64_t)1 << 32) + 1,
  (int64_t)1 << 40, (int64_t)1 << 62, INT64_MAX, INT64_MAX - 1, INT64_MIN, INT64_MIN + 1,
  KF_MAX_ELEMENTS / 2 + 1, 3037000500LL, 4294967295LL,
};
#define NINTERESTING (sizeof interesting / sizeof interesting[0])

static int64_t any_value(rd *r) {
  unsigned b = u8(r);
  if (b < 128) return (int64_t)(b % 10);
  if (b < 250) return interesting[b % NINTERESTING];
  return (int64_t)u64(r);
}

/* ---- text of attrs ---- */
static const char *const attr_names[] = {
  "T", "U", "data_format", "epsilon", "is_training", "strides", "padding", "explicit_paddings",
  "dilations", "", "strides ", "STRIDES", "x",
};
static const char *const attr_values[] = {
  "float", "half", "bfloat16", "double", "int32", "", "NHWC", "NCHW", "NDHWC", "NCDHW", "nhwc",
  "SAME", "VALID", "EXPLICIT", "true", "false", "1", "0", "2", "0.001", "1e-5", "nan", "inf", "-inf",
  "1e40", "-0", "0x1p-3", "1,1,1,1", "1,2,2,1", "1,1,2,2", "1,2,3,1", "1,0,1,1", "1,-1,1,1",
  "1,2147483647,1,1", "1,2147483648,1,1", "1,-2147483649,1,1", "1,,1,1", "1,1,1,", ",", "1 ,1,1,1",
  "0,0,1,1,1,1,0,0", "0,0,1,1,1,1,0,0,0", "0,0,0,0,9223372036854775807,1,0,0", "0,0,-1,1,1,1,0,0",
  "1,1,1,1,1,1,1,1,1", "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1", "99999999999999999999", "+1,+1,+1,+1",
};
#define NNAMES (sizeof attr_names / sizeof attr_names[0])
#define NVALUES (sizeof attr_values / sizeof attr_values[0])

static void check_err(kf_status st, const kf_error *err) {
  if (st == KF_OK) return;
  if (err->status != st || !err->rule || memchr(err->message, 0, sizeof err->message) == NULL) {
    fprintf(stderr, "fuzz_api: error not filled for status %d\n", (int)st);
    abort();
  }
}

static void set_attr(kf_op op, kf_attrs *a, const char *name, const char *value) {
  kf_error err = {0};
  kf_status st;
  memset(&err, 0, sizeof err);
  st = kf_attrs_set(op, a, name, value, &err);
  check_err(st, &err);
}

/* Random attr assignments: names and values from the tables or the bytes. */
static void fuzz_attrs(rd *r, kf_op op, kf_attrs *a) {
  unsigned k, n = u8(r) % 4;
  for (k = 0; k < n; k++) {
    char name[48], value[64];
    unsigned m = u8(r);
    if (m & 1) snprintf(name, sizeof name, "%s", attr_names[u8(r) % NNAMES]);
    else str(r, name, sizeof name);
    if (m & 2) snprintf(value, sizeof value, "%s", attr_values[u8(r) % NVALUES]);
    else str(r, value, sizeof value);
    if ((m & 0x1c) == 0x1c) { /* NULL pointers and invalid ops */
      kf_error err = {0};
      kf_status st = kf_attrs_set(op, a, (m & 0x20) ? NULL : name, (m & 0x40) ? NULL : value, &err);
      check_err(st, &err);
      (void)kf_attrs_set(op, (m & 0x80) ? NULL : a, name, value, NULL);
      (void)kf_attrs_set((kf_op)(m >> 3), a, name, value, NULL);
      continue;
    }
    set_attr(op, a, name, value);
  }
}

/* ---- descriptors ---- */
static const kf_dtype dtypes[] = { KF_FLOAT, KF_HALF, KF_BFLOAT16, KF_DOUBLE, KF_INT32, KF_DT_INVALID };

static kf_tensor_desc desc4(kf_dtype t, int64_t a, int64_t b, int64_t c, int64_t d) {
  kf_tensor_desc x;
  memset(&x, 0, sizeof x);
  x.dtype = t;
  x.rank = 4;
  x.dims[0] = a, x.dims[1] = b, x.dims[2] = c, x.dims[3] = d;
  return x;
}

static kf_tensor_desc desc1(kf_dtype t, int64_t c) {
  kf_tensor_desc x;
  memset(&x, 0, sizeof x);
  x.dtype = t;
  x.rank = 1;
  x.dims[0] = c;
  return x;
}

/* The depthwise op's input_sizes descriptor: a rank-1 int32 descriptor of
   nvals values, which travel in host_data (read by kf_plan_op only). The
   values live in an exactly-sized heap block (ASan catches any read past
   it), freed by free_sizes at the end of each input. Every depthwise
   descriptor of this file is built here: a change of the convention is a
   change of this function only. */
#define MAX_SIZES 8
static int32_t *sizes_bufs[4];
static int nsizes_bufs;

static kf_tensor_desc sizes_desc(const int64_t *vals, int nvals) {
  kf_tensor_desc d;
  int32_t *buf;
  int i;
  memset(&d, 0, sizeof d);
  d.dtype = KF_INT32;
  d.rank = 1;
  d.dims[0] = nvals;
  if (nvals < 0 || nvals > MAX_SIZES || nsizes_bufs == 4) return d; /* host_data NULL */
  buf = malloc(nvals ? (size_t)nvals * sizeof *buf : 1);
  for (i = 0; i < nvals; i++) buf[i] = (int32_t)vals[i];
  sizes_bufs[nsizes_bufs++] = buf;
  d.host_data = buf;
  return d;
}

static void free_sizes(void) {
  while (nsizes_bufs > 0) free(sizes_bufs[--nsizes_bufs]);
}

/* Applies n random mutations to the descriptors. */
static void mutate(rd *r, kf_tensor_desc *in, int nin) {
  unsigned k, n = u8(r) % 4;
  for (k = 0; k < n && nin > 0; k++) {
    kf_tensor_desc *d = &in[u8(r) % (unsigned)nin];
    unsigned what = u8(r) % 4;
    if (d->host_data && what >= 1) continue; /* host_data must hold dims[0] values */
    if (what == 0) d->dtype = (u8(r) & 8) ? (kf_dtype)(int)(int8_t)u8(r) : dtypes[u8(r) % 6];
    else if (what == 1) d->rank = (u8(r) & 16) ? (int)(int8_t)u8(r) : (int)(u8(r) % (KF_MAX_RANK + 1));
    else d->dims[u8(r) % KF_MAX_RANK] = any_value(r);
  }
}

/* Builds a consistent batch-norm-gradient call, then mutates it. */
static int build_bngrad(rd *r, kf_op op, kf_attrs *a, kf_tensor_desc *in) {
  static const char *const fmts[] = { "NHWC", "NCHW", "NDHWC", "NCDHW" };
  static const char *const ts[] = { "float", "half", "bfloat16" };
  unsigned f = u8(r) % 4, t = op == KF_OP_FUSED_BATCH_NORM_GRAD ? 0 : u8(r) % 3, m = u8(r);
  int rank = f >= 2 ? 5 : 4, i;
  int64_t dims[5], c;
  kf_dtype T = t == 0 ? KF_FLOAT : t == 1 ? KF_HALF : KF_BFLOAT16;
  char eps[32];
  set_attr(op, a, "data_format", fmts[f]);
  if (m & 1) set_attr(op, a, "T", ts[t]);
  if (m & 2) set_attr(op, a, "is_training", "false");
  if (m & 4) {
    snprintf(eps, sizeof eps, "%g", (double)(u8(r) % 7) * 0.01);
    set_attr(op, a, "epsilon", eps);
  }
  for (i = 0; i < rank; i++) dims[i] = u8(r) % 6;
  c = f == 0 || f == 2 ? dims[rank - 1] : dims[1];
  memset(in, 0, 6 * sizeof *in);
  in[0].dtype = T;
  in[0].rank = rank;
  for (i = 0; i < rank; i++) in[0].dims[i] = dims[i];
  in[1] = in[0];
  in[2] = desc1(op == KF_OP_FUSED_BATCH_NORM_GRAD ? T : KF_FLOAT, c);
  in[3] = in[2];
  in[4] = in[2];
  in[5] = desc1(KF_FLOAT, u8(r) % 3);
  return op == KF_OP_FUSED_BATCH_NORM_GRAD_V3 ? 6 : 5;
}

static int64_t out_size(int64_t in, int64_t k, int64_t s, int64_t d, int pad, int64_t pb, int64_t pa) {
  int64_t eff = (k - 1) * d + 1;
  if (pad == 0) return (in + s - 1) / s;
  if (pad == 1) return (in - eff + s) / s;
  return (in + pb + pa - eff + s) / s;
}

/* Builds a consistent depthwise call (sizes into host), then mutates it. */
static int build_dwbpi(rd *r, kf_op op, kf_attrs *a, kf_tensor_desc *in, int32_t *host) {
  static const char *const ts[] = { "float", "half", "bfloat16", "double" };
  static const kf_dtype tt[] = { KF_FLOAT, KF_HALF, KF_BFLOAT16, KF_DOUBLE };
  static const char *const pads[] = { "SAME", "VALID", "EXPLICIT" };
  unsigned t = u8(r) % 4, pad = u8(r) % 3, m = u8(r);
  int nchw = m & 1;
  int64_t n = u8(r) % 3, h = u8(r) % 8, w = u8(r) % 8, c = u8(r) % 4, mm = u8(r) % 3;
  int64_t kh = u8(r) % 5, kw = u8(r) % 5, sh = 1 + u8(r) % 3, sw = 1 + u8(r) % 3;
  int64_t dh = 1 + u8(r) % 3, dw = 1 + u8(r) % 3, pt = u8(r) % 4, pb = u8(r) % 4, pl = u8(r) % 4,
          pr = u8(r) % 4, oh, ow, sizes[4];
  char buf[96];
  int i;
  set_attr(op, a, "data_format", nchw ? "NCHW" : "NHWC");
  if (m & 2) set_attr(op, a, "T", ts[t]);
  set_attr(op, a, "padding", pads[pad]);
  if (nchw) snprintf(buf, sizeof buf, "1,1,%lld,%lld", (long long)sh, (long long)sw);
  else snprintf(buf, sizeof buf, "1,%lld,%lld,1", (long long)sh, (long long)sw);
  set_attr(op, a, "strides", buf);
  if (m & 4) {
    if (nchw) snprintf(buf, sizeof buf, "1,1,%lld,%lld", (long long)dh, (long long)dw);
    else snprintf(buf, sizeof buf, "1,%lld,%lld,1", (long long)dh, (long long)dw);
    set_attr(op, a, "dilations", buf);
  } else {
    dh = dw = 1;
  }
  if (pad == 2) {
    if (nchw)
      snprintf(buf, sizeof buf, "0,0,0,0,%lld,%lld,%lld,%lld", (long long)pt, (long long)pb, (long long)pl,
               (long long)pr);
    else
      snprintf(buf, sizeof buf, "0,0,%lld,%lld,%lld,%lld,0,0", (long long)pt, (long long)pb, (long long)pl,
               (long long)pr);
    set_attr(op, a, "explicit_paddings", buf);
  }
  oh = out_size(h, kh, sh, dh, (int)pad, pt, pb);
  ow = out_size(w, kw, sw, dw, (int)pad, pl, pr);
  if (oh < 0) oh = 0;
  if (ow < 0) ow = 0;
  if (nchw) {
    sizes[0] = n, sizes[1] = c, sizes[2] = h, sizes[3] = w;
    in[2] = desc4(tt[t], n, c * mm, oh, ow);
  } else {
    sizes[0] = n, sizes[1] = h, sizes[2] = w, sizes[3] = c;
    in[2] = desc4(tt[t], n, oh, ow, c * mm);
  }
  if (m & 8) { /* mutate the sizes values themselves (int32 values) */
    sizes[u8(r) % 4] = any_value(r);
  }
  for (i = 0; i < 4; i++) host[i] = (int32_t)sizes[i];
  if ((m & 0x30) == 0x30) { /* a wrong number of values, or none */
    int64_t more[MAX_SIZES];
    int nv = (int)(u8(r) % (MAX_SIZES + 2)) - 1;
    for (i = 0; i < MAX_SIZES; i++) more[i] = i < 4 ? sizes[i] : any_value(r);
    in[0] = sizes_desc(more, nv);
  } else {
    in[0] = sizes_desc(sizes, 4);
  }
  in[1] = desc4(tt[t], kh, kw, c, mm);
  return 3;
}

/* ---- buffers ---- */
#define MAX_BYTES ((size_t)8 << 20) /* per buffer */
#define MAX_WORK ((int64_t)1 << 22)

/* Exact byte size of a descriptor; 0 with *ok = 0 when absurd. */
static size_t nbytes(const kf_tensor_desc *d, int *ok) {
  uint64_t n = 1;
  size_t es = kf_dtype_size(d->dtype);
  int i;
  *ok = 0;
  if (d->rank < 0 || d->rank > KF_MAX_RANK || es == 0) return 0;
  for (i = 0; i < d->rank; i++) {
    if (d->dims[i] < 0) return 0;
    if (d->dims[i] == 0) n = 0;
  }
  for (i = 0; i < d->rank && n; i++) {
    if ((uint64_t)d->dims[i] > (MAX_BYTES + 1) / n) return 0;
    n *= (uint64_t)d->dims[i];
  }
  if (n * es > MAX_BYTES) return 0;
  *ok = 1;
  return (size_t)(n * es);
}

static int64_t count(const kf_tensor_desc *d) {
  int64_t n = 1;
  int i;
  for (i = 0; i < d->rank; i++) n *= d->dims[i];
  return n;
}

static void fill(void *buf, size_t n, rd *r) {
  unsigned char *b = buf;
  size_t k;
  for (k = 0; k < n; k++) b[k] = r->n ? r->p[(r->i + k * 7) % r->n] : (unsigned char)k;
}

/* Canary: a signalling NaN of the dtype (quiet bit clear). Arithmetic and
   the runtime's rounding helpers never produce one. */
static void canary(kf_dtype t, void *buf, int64_t n) {
  int64_t i;
  for (i = 0; i < n; i++) {
    switch (t) {
      case KF_HALF: ((uint16_t *)buf)[i] = 0x7c05; break;
      case KF_BFLOAT16: ((uint16_t *)buf)[i] = 0x7f85; break;
      case KF_FLOAT: ((uint32_t *)buf)[i] = 0x7f80a5a5u; break;
      case KF_DOUBLE: ((uint64_t *)buf)[i] = 0x7ff00000a5a5a5a5ull; break;
      default: memset((char *)buf + i * 4, 0xa5, 4); break;
    }
  }
}

static int has_canary(kf_dtype t, const void *buf, int64_t n) {
  int64_t i;
  for (i = 0; i < n; i++) {
    switch (t) {
      case KF_HALF: if (((const uint16_t *)buf)[i] == 0x7c05) return 1; break;
      case KF_BFLOAT16: if (((const uint16_t *)buf)[i] == 0x7f85) return 1; break;
      case KF_FLOAT: if (((const uint32_t *)buf)[i] == 0x7f80a5a5u) return 1; break;
      case KF_DOUBLE: if (((const uint64_t *)buf)[i] == 0x7ff00000a5a5a5a5ull) return 1; break;
      default: break;
    }
  }
  return 0;
}

/* Work bound of a plan (keeps each input fast): the depthwise generic
   kernel visits every output element times every filter tap and multiplier. */
static int too_much_work(kf_op op, const kf_plan *plan, const kf_tensor_desc *filter) {
  if (op == KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT) {
    const kf_tensor_desc *dx = kf_plan_output_desc(plan, 0);
    int64_t nx = 1, k, m = filter->dims[3] ? filter->dims[3] : 1;
    int i;
    for (i = 0; i < 4; i++) {
      int64_t v = dx->dims[i];
      if (v > MAX_WORK || (v && nx > MAX_WORK / v)) return 1;
      nx *= v;
    }
    if (filter->dims[0] > MAX_WORK || filter->dims[1] > MAX_WORK || m > MAX_WORK) return 1;
    k = filter->dims[0] * filter->dims[1];
    if (k > MAX_WORK) return 1;
    if (nx && k && (nx > MAX_WORK / k || nx * k > MAX_WORK / m)) return 1;
  }
  return 0;
}

static void fail_prop(const char *what, kf_op op) {
  fprintf(stderr, "fuzz_api: %s (%s)\n", what, kf_op_name(op) ? kf_op_name(op) : "?");
  abort();
}

/* Plans and, when that succeeds, executes with exact buffers. */
static void plan_and_run(rd *r, kf_op op, const kf_attrs *a, const kf_tensor_desc *in, int nin) {
  kf_plan plan;
  kf_error err = {0};
  kf_plan_options opt;
  void *ins[8] = { 0 }, *outs[8] = { 0 }, *outs2[8] = { 0 }, *scratch = NULL;
  size_t inb[8] = { 0 }, outb[8] = { 0 }, sb;
  unsigned mode = u8(r);
  int i, nout, ok;
  kf_status st;

  memset(&err, 0, sizeof err);
  memset(&opt, 0, sizeof opt);
  opt.generic_only = (mode & 1) != 0;
  if ((mode & 6) == 6) opt.kernel = kf_kernel_name((int)(u8(r) % (unsigned)(kf_kernel_count() + 2)) - 1);
  st = kf_plan_op(&plan, op, (mode & 0xf0) == 0xf0 ? NULL : a, (mode & 0xf8) == 0xe8 ? NULL : in, nin,
                  (mode & 6) ? &opt : NULL, &err);
  check_err(st, &err);
  if (st != KF_OK) {
    /* a failed plan must be refused by every query and by kf_execute */
    const void *const noin[8] = { 0 };
    void *const noout[8] = { 0 };
    if (kf_plan_num_outputs(&plan) != 0 || kf_plan_kernel_name(&plan) != NULL ||
        kf_execute(&plan, noin, noout, NULL, 0, NULL) == KF_OK)
      fail_prop("failed plan accepted", op);
    return;
  }
  nout = kf_plan_num_outputs(&plan);
  if (nout != kf_op_num_outputs(op) || nout > 8 || !kf_plan_kernel_name(&plan)) fail_prop("bad plan outputs", op);
  if (kf_plan_output_desc(&plan, -1) || kf_plan_output_desc(&plan, nout)) fail_prop("output desc out of range", op);
  for (i = 0; i < nout; i++) {
    const kf_tensor_desc *d = kf_plan_output_desc(&plan, i);
    int j;
    if (!d || d->rank < 0 || d->rank > KF_MAX_RANK || kf_dtype_size(d->dtype) == 0) fail_prop("bad output desc", op);
    for (j = 0; j < d->rank; j++)
      if (d->dims[j] < 0) fail_prop("negative output dim", op);
  }
  if (too_much_work(op, &plan, &in[1])) return;
  /* inputs: exact sizes */
  for (i = 0; i < nin; i++) {
    inb[i] = nbytes(&in[i], &ok);
    if (!ok) goto done;
  }
  for (i = 0; i < nout; i++) {
    outb[i] = nbytes(kf_plan_output_desc(&plan, i), &ok);
    if (!ok) goto done;
  }
  sb = kf_plan_scratch_bytes(&plan);
  if (sb > MAX_BYTES) goto done;
  for (i = 0; i < nin; i++) {
    ins[i] = malloc(inb[i] ? inb[i] : 1);
    fill(ins[i], inb[i], r);
  }
  for (i = 0; i < nout; i++) {
    const kf_tensor_desc *d = kf_plan_output_desc(&plan, i);
    outs[i] = malloc(outb[i] ? outb[i] : 1);
    outs2[i] = malloc(outb[i] ? outb[i] : 1);
    canary(d->dtype, outs[i], count(d));
    canary(d->dtype, outs2[i], count(d));
  }
  scratch = sb ? malloc(sb) : NULL;
  if (scratch) memset(scratch, 0xa5, sb);
  if ((mode & 0x18) == 0x18) { /* misuse: a NULL input, a short scratch */
    void *keep = NULL;
    int k = (int)(u8(r) % (unsigned)nin);
    keep = ins[k];
    ins[k] = NULL;
    st = kf_execute(&plan, (const void *const *)ins, outs, scratch, sb, &err);
    check_err(st, &err);
    ins[k] = keep;
    if (sb && kf_execute(&plan, (const void *const *)ins, outs, scratch, sb - 1, NULL) != KF_SCRATCH_TOO_SMALL)
      fail_prop("short scratch accepted", op);
    goto done;
  }
  st = kf_execute(&plan, (const void *const *)ins, outs, scratch, sb, &err);
  check_err(st, &err);
  if (st != KF_OK) fail_prop("execution of a valid plan with exact buffers failed", op);
  for (i = 0; i < nout; i++) {
    const kf_tensor_desc *d = kf_plan_output_desc(&plan, i);
    if (has_canary(d->dtype, outs[i], count(d))) fail_prop("an output element was not written", op);
  }
  if (mode & 0x20) { /* determinism */
    if (scratch) memset(scratch, 0x5a, sb);
    st = kf_execute(&plan, (const void *const *)ins, outs2, scratch, sb, &err);
    if (st != KF_OK) fail_prop("second execution failed", op);
    for (i = 0; i < nout; i++)
      if (outb[i] && memcmp(outs[i], outs2[i], outb[i]) != 0) fail_prop("executions differ", op);
  }
done:
  for (i = 0; i < 8; i++) {
    free(ins[i]);
    free(outs[i]);
    free(outs2[i]);
  }
  free(scratch);
}

/* The typed entry points, on the same descriptors. */
static void typed(rd *r, kf_op op, const kf_attrs *a, const kf_tensor_desc *in, const int32_t *host) {
  kf_plan plan;
  kf_error err = {0};
  int ok, i;
  memset(&err, 0, sizeof err);
  if (op == KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT) {
    kf_tensor_desc din[3];
    size_t fb, gb, ob = 0, sb;
    void *f, *g, *o, *s;
    kf_status st;
    int64_t sizes[4];
    for (i = 0; i < 4; i++) sizes[i] = host[i];
    din[0] = sizes_desc(sizes, 4);
    din[1] = in[1];
    din[2] = in[2];
    if (kf_plan_op(&plan, op, a, din, 3, NULL, NULL) != KF_OK) {
      /* must fail the same way, without touching any buffer */
      st = kf_depthwise_conv2d_backprop_input(a, host, &in[1], NULL, &in[2], NULL, NULL, NULL, 0, &err);
      check_err(st, &err);
      if (st == KF_OK) fail_prop("typed depthwise accepted what kf_plan_op refused", op);
      return;
    }
    if (too_much_work(op, &plan, &in[1])) return;
    fb = nbytes(&in[1], &ok);
    if (!ok) return;
    gb = nbytes(&in[2], &ok);
    if (!ok) return;
    ob = nbytes(kf_plan_output_desc(&plan, 0), &ok);
    if (!ok) return;
    sb = kf_plan_scratch_bytes(&plan);
    if (sb > MAX_BYTES) return;
    f = malloc(fb ? fb : 1), g = malloc(gb ? gb : 1), o = malloc(ob ? ob : 1), s = sb ? malloc(sb) : NULL;
    fill(f, fb, r);
    fill(g, gb, r);
    st = kf_depthwise_conv2d_backprop_input(a, host, &in[1], f, &in[2], g, o, s, sb, &err);
    check_err(st, &err);
    if (st != KF_OK) fail_prop("typed depthwise failed on a valid call", op);
    free(f), free(g), free(o), free(s);
  } else {
    int version = op == KF_OP_FUSED_BATCH_NORM_GRAD ? 1 : op == KF_OP_FUSED_BATCH_NORM_GRAD_V2 ? 2 : 3;
    size_t xb, cb, sb;
    void *dy, *x, *dx, *s;
    float *sc, *mean, *var, *ds, *dof;
    kf_status st;
    if (kf_plan_op(&plan, op, a, in, version == 3 ? 6 : 5, NULL, NULL) != KF_OK) {
      st = kf_fused_batch_norm_grad(version, a, &in[1], NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0,
                                    &err);
      check_err(st, &err);
      return;
    }
    if (in[2].dtype != KF_FLOAT) return; /* V1 with T != float: typed takes float* */
    xb = nbytes(&in[1], &ok);
    if (!ok) return;
    cb = nbytes(&in[2], &ok);
    if (!ok) return;
    sb = kf_plan_scratch_bytes(&plan);
    if (sb > MAX_BYTES) return;
    dy = malloc(xb ? xb : 1), x = malloc(xb ? xb : 1), dx = malloc(xb ? xb : 1);
    sc = malloc(cb ? cb : 1), mean = malloc(cb ? cb : 1), var = malloc(cb ? cb : 1);
    ds = malloc(cb ? cb : 1), dof = malloc(cb ? cb : 1), s = sb ? malloc(sb) : NULL;
    fill(dy, xb, r), fill(x, xb, r), fill(sc, cb, r), fill(mean, cb, r), fill(var, cb, r);
    st = kf_fused_batch_norm_grad(version, a, &in[1], dy, x, sc, mean, var, dx, ds, dof, s, sb, &err);
    check_err(st, &err);
    /* the typed call derives scale/statistics from x: with the same descs it must succeed */
    if (st != KF_OK && in[2].dims[0] == in[3].dims[0]) fail_prop("typed batch norm failed on a valid call", op);
    free(dy), free(x), free(dx), free(sc), free(mean), free(var), free(ds), free(dof), free(s);
  }
}

/* Cheap queries with arbitrary arguments. */
static void queries(rd *r) {
  int v = (int)(int8_t)u8(r);
  uint16_t h = (uint16_t)(u8(r) << 8 | u8(r));
  float f;
  uint32_t bits = (uint32_t)u64(r);
  memcpy(&f, &bits, sizeof f);
  (void)kf_status_name((kf_status)v);
  (void)kf_dtype_name((kf_dtype)v);
  (void)kf_dtype_size((kf_dtype)v);
  (void)kf_op_name((kf_op)v);
  (void)kf_op_num_inputs((kf_op)v);
  (void)kf_op_num_outputs((kf_op)v);
  (void)kf_op_input_name((kf_op)(v & 7), v >> 3);
  (void)kf_op_output_name((kf_op)(v & 7), v >> 3);
  (void)kf_kernel_name(v * 7);
  (void)kf_kernel_config(v * 7);
  (void)kf_dtype_from_name(NULL);
  (void)kf_op_from_name(NULL);
  (void)kf_half_to_float(h);
  (void)kf_bfloat16_to_float(h);
  (void)kf_float_to_half(f);
  (void)kf_float_to_bfloat16(f);
  if (kf_plan_op(NULL, KF_OP_FUSED_BATCH_NORM_GRAD, NULL, NULL, 0, NULL, NULL) == KF_OK) abort();
  if (kf_execute(NULL, NULL, NULL, NULL, 0, NULL) == KF_OK) abort();
  if (kf_plan_num_outputs(NULL) || kf_plan_output_desc(NULL, 0) || kf_plan_scratch_bytes(NULL) ||
      kf_plan_kernel_name(NULL))
    abort();
  kf_attrs_init((kf_op)v, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  rd r = { data, size, 0 };
  unsigned sel = u8(&r);
  kf_op op = (kf_op)(1 + sel % 4);
  kf_attrs a;
  kf_tensor_desc in[8];
  int32_t host[4] = { 0, 0, 0, 0 };
  int nin, i;

  if (sel >= 250) { /* fully random: invalid ops, ranks, counts */
    op = (kf_op)(int)(int8_t)u8(&r);
    kf_attrs_init(op, &a);
    fuzz_attrs(&r, op, &a);
    nin = (int)(int8_t)u8(&r);
    memset(in, 0, sizeof in);
    for (i = 0; i < 8; i++) {
      int j;
      in[i].dtype = dtypes[u8(&r) % 6];
      in[i].rank = (int)(u8(&r) % 10) - 1;
      for (j = 0; j < KF_MAX_RANK; j++) in[i].dims[j] = any_value(&r);
    }
    plan_and_run(&r, op, &a, in, nin < 0 || nin > 8 ? 8 : nin);
    queries(&r);
    free_sizes();
    return 0;
  }
  kf_attrs_init(op, &a);
  memset(in, 0, sizeof in);
  if (op == KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT) nin = build_dwbpi(&r, op, &a, in, host);
  else nin = build_bngrad(&r, op, &a, in);
  fuzz_attrs(&r, op, &a);
  mutate(&r, in, nin);
  if (sel & 0x80) nin += (int)(u8(&r) % 3) - 1; /* wrong input counts */
  plan_and_run(&r, op, &a, in, nin);
  if (sel & 0x40) typed(&r, op, &a, in, host);
  if ((sel & 0x30) == 0x30) queries(&r);
  free_sizes();
  return 0;
}
