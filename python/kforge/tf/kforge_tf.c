/*
** kforge_tf.c -- kforge's kernels as TensorFlow custom ops (CPU).
**
** Registers Kforge<Op> for every op of the specs (KforgeFusedBatchNormGrad
** {,V2,V3}, KforgeDepthwiseConv2dNativeBackpropInput and
** KforgeDepthwiseConv2dNativeBackpropFilter) with TF's signatures (input and
** output names and order, attrs with TF's types, defaults and allowed
** values) through TF's C op and kernel API (tensorflow/c/ops.h,
** tensorflow/c/kernels.h), from a constructor that runs when
** tf.load_op_library loads this library. Built by kforge/tf/_build.py.
**
** The op table -- names, kf_op, op-def strings, attr kinds and kf_attrs
** fields, the type constraints, the int32 inputs read at plan time -- is
** generated from the specs (kfg_tf_ops.h, generator/emit_tf.lua). What is
** hand-written per op here: its shape function (shape_fn_of); an op
** without one gets unknown output shapes.
**
** Kernels: attrs are read once, at kernel construction, into a kf_attrs
** (driven by the attr table: type and string attrs through kf_attrs_set,
** floats, bools and int lists stored as TF gives them);
** each kernel instance keeps a cache of plans keyed by the call's shape
** signature (dtypes, dims, and the values of the plan-time inputs:
** input_sizes / filter_sizes), so a call with a shape seen before skips
** kf_plan_op (about 100 us). A graph node's kernel sees one shape; an eager
** kernel (one per op and attrs) sees every shape of a model, so the cache
** grows to KFT_CACHE_MAX entries and then replaces the least recently used.
** Outputs are TF_AllocateOutput'ed and kf_execute runs directly on TF's
** buffers; scratch comes from TF_AllocateTemp. A batch-norm gradient's
** x_backprop is TF_ForwardInputOrAllocateOutput'ed over y_backprop: TF
** hands over y_backprop's buffer when nothing else holds it (kforge.h
** allows exactly that aliasing; see forward_input_of).
**
** Threads: TF's C kernel API does not expose the intra-op thread pool to
** kernels (tensorflow/c/kernels.h has no thread-pool or parallel-for entry
** point), so kernels run on kforge's pool (kfpy_pool), created on first use
** with $KFORGE_TF_THREADS when set (an invalid value fails the op with a
** clear error), else kforge_tf_set_threads()'s count (kforge.tf.load()
** passes TF's intra-op setting when the variable is unset), else the
** number of online CPUs (TF's default for intra-op 0).
*/
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* tensorflow/c/ops.h uses these four names without declaring them (it is
   valid C++ only); declaring them first makes it valid C11. */
typedef struct TF_OpDefinitionBuilder TF_OpDefinitionBuilder;
typedef struct TF_ShapeInferenceContext TF_ShapeInferenceContext;
typedef struct TF_DimensionHandle TF_DimensionHandle;
typedef struct TF_ShapeHandle TF_ShapeHandle;

#include "tensorflow/c/kernels.h"
#include "tensorflow/c/ops.h"
#include "tensorflow/c/tf_status.h"
#include "tensorflow/c/tf_tensor.h"

#include "kforge.h"
#include "kfg_tf_ops.h"
#include "kfpy_pool.h"

#define KFT_EXPORT __attribute__((visibility("default")))

/* ------------------------------------------------------------------ threads */

static pthread_mutex_t g_pool_mu = PTHREAD_MUTEX_INITIALIZER;
static int g_pool_requested = 0; /* kforge_tf_set_threads; 0 = not set */
static int g_pool_made = 0;
static kfpy_pool *g_pool = NULL; /* NULL with g_pool_made: run on the calling thread */
static int g_pool_threads = 1;

/* $KFORGE_TF_THREADS when set (it wins over TF's intra-op setting, which
   kforge.tf.load() passes through kforge_tf_set_threads only when the
   variable is unset), else the online CPUs; -1 when the variable is not an
   integer from 1 to KFPY_POOL_MAX_THREADS. */
static int default_threads(void) {
  const char *e = getenv("KFORGE_TF_THREADS");
  long n;
  if (e && *e) {
    char *end;
    errno = 0;
    n = strtol(e, &end, 10);
    while (*end == ' ' || *end == '\t') end++;
    if (end == e || *end || errno || n < 1 || n > KFPY_POOL_MAX_THREADS) return -1;
    return (int)n;
  }
  n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 && n <= KFPY_POOL_MAX_THREADS ? (int)n : 1;
}

/* The kf_threads plans run on (NULL: the calling thread); made once.
   0 when $KFORGE_TF_THREADS is invalid (st says why). */
static int pool_threads(const kf_threads **t, TF_Status *st) {
  int good = 1;
  pthread_mutex_lock(&g_pool_mu);
  if (!g_pool_made) {
    const char *e = getenv("KFORGE_TF_THREADS");
    int n = (e && *e) || g_pool_requested < 1 ? default_threads() : g_pool_requested;
    if (n < 1) {
      good = 0;
    } else {
      g_pool = n > 1 ? kfpy_pool_create(n) : NULL;
      g_pool_threads = g_pool ? kfpy_pool_num_threads(g_pool) : 1;
      g_pool_made = 1;
    }
  }
  *t = g_pool ? kfpy_pool_threads(g_pool) : NULL;
  pthread_mutex_unlock(&g_pool_mu);
  if (!good && st) {
    char msg[200];
    snprintf(msg, sizeof msg, "KFORGE_TF_THREADS=\"%.40s\" is not a thread count (an integer from 1 to %d)",
             getenv("KFORGE_TF_THREADS"), KFPY_POOL_MAX_THREADS);
    TF_SetStatus(st, TF_INVALID_ARGUMENT, msg);
  }
  return good;
}

/* Sets the pool's thread count (n < 1: all online CPUs). Takes effect only
   before the first kernel runs (plans keep the pool): returns the count in
   effect from then on, or -1 when the pool already exists with another one. */
KFT_EXPORT int kforge_tf_set_threads(int n) {
  int r;
  pthread_mutex_lock(&g_pool_mu);
  if (n < 1) {
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    n = c > 0 && c <= KFPY_POOL_MAX_THREADS ? (int)c : 1;
  }
  if (n > KFPY_POOL_MAX_THREADS) n = KFPY_POOL_MAX_THREADS;
  if (!g_pool_made) {
    g_pool_requested = n;
    r = n;
  } else {
    r = n == g_pool_threads ? n : -1;
  }
  pthread_mutex_unlock(&g_pool_mu);
  return r;
}

/* The pool's thread count (it is created here if it was not yet); -1 when
   $KFORGE_TF_THREADS is invalid. */
KFT_EXPORT int kforge_tf_num_threads(void) {
  int n;
  const kf_threads *t;
  if (!pool_threads(&t, NULL)) return -1;
  pthread_mutex_lock(&g_pool_mu);
  n = g_pool_threads;
  pthread_mutex_unlock(&g_pool_mu);
  return n;
}

/* Plans made (cache misses) and calls served from the cache, all kernels:
   for tests of plan reuse. Also the outputs TF forwarded an input's buffer
   to (forward_input_of): for tests of in-place x_backprop. */
static pthread_mutex_t g_stats_mu = PTHREAD_MUTEX_INITIALIZER;
static long long g_plans_made = 0, g_plans_reused = 0, g_forwarded = 0;

KFT_EXPORT void kforge_tf_plan_stats(long long *made, long long *reused) {
  pthread_mutex_lock(&g_stats_mu);
  if (made) *made = g_plans_made;
  if (reused) *reused = g_plans_reused;
  pthread_mutex_unlock(&g_stats_mu);
}

KFT_EXPORT long long kforge_tf_forward_stats(void) {
  long long n;
  pthread_mutex_lock(&g_stats_mu);
  n = g_forwarded;
  pthread_mutex_unlock(&g_stats_mu);
  return n;
}

/* The input whose buffer output 0 may take (TF_ForwardInputOrAllocateOutput),
   or -1: the op spec's in_place_of, which the kernels guarantee (kforge.h,
   kf_execute; the batch-norm gradients' x_backprop over y_backprop). */
static int forward_input_of(kf_op op) { return kf_op_output_in_place_of(op, 0); }

/* ------------------------------------------------------------------ dtypes */

static kf_dtype kf_of_tf(TF_DataType t) {
  switch (t) {
    case TF_HALF: return KF_HALF;
    case TF_BFLOAT16: return KF_BFLOAT16;
    case TF_FLOAT: return KF_FLOAT;
    case TF_DOUBLE: return KF_DOUBLE;
    case TF_INT32: return KF_INT32;
    default: return KF_DT_INVALID;
  }
}

static TF_DataType tf_of_kf(kf_dtype t) {
  switch (t) {
    case KF_HALF: return TF_HALF;
    case KF_BFLOAT16: return TF_BFLOAT16;
    case KF_FLOAT: return TF_FLOAT;
    case KF_DOUBLE: return TF_DOUBLE;
    case KF_INT32: return TF_INT32;
    default: return TF_FLOAT;
  }
}

static TF_Code tf_code_of(kf_status s) {
  switch (s) {
    case KF_OK: return TF_OK;
    case KF_INVALID_ARGUMENT: return TF_INVALID_ARGUMENT;
    case KF_TOO_LARGE: return TF_INVALID_ARGUMENT;
    case KF_UNIMPLEMENTED: return TF_UNIMPLEMENTED;
    default: return TF_INTERNAL;
  }
}

/* kforge's message with its rule id: "... [rule bngrad.same_shape]". */
static void set_kf_error(TF_Status *st, kf_status s, const kf_error *err) {
  char msg[400];
  if (err->rule && err->rule[0])
    snprintf(msg, sizeof msg, "%s [rule %s]", err->message, err->rule);
  else
    snprintf(msg, sizeof msg, "%s", err->message);
  TF_SetStatus(st, tf_code_of(s), msg);
}

/* ------------------------------------------------------------------ kernels */

#define KFT_CACHE_MAX 64
/* Per input: dtype, rank, dims; then per plan-time input its count and values. */
#define KFT_MAX_SIZES 16
#define KFT_KEY_LEN (KFG_TF_MAX_INPUTS * (2 + KF_MAX_RANK) + KFT_MAX_SIZES + KFG_TF_MAX_INPUTS)
/* The most values an int list attr is read with (a longer one keeps its
   count, which kforge's length rules read). */
#define KFT_MAX_LIST 64

typedef struct cache_entry {
  long long last_use; /* the kernel's use counter at its last hit or insert */
  int key_len;
  int64_t key[KFT_KEY_LEN];
  kf_plan plan;
} cache_entry;

typedef struct kernel {
  const kfg_tf_op *info;
  kf_attrs attrs;
  pthread_mutex_t mu;
  long long uses;            /* calls served, the clock of last_use */
  int cached, capacity;      /* entries filled and allocated, <= KFT_CACHE_MAX */
  cache_entry *cache;
} kernel;

static int get_string_attr(TF_OpKernelConstruction *ctx, const char *name, char *buf, size_t cap,
                           TF_Status *st) {
  int32_t list_size = 0, total = 0;
  TF_OpKernelConstruction_GetAttrSize(ctx, name, &list_size, &total, st);
  if (TF_GetCode(st) != TF_OK) return 0;
  if (total < 0 || (size_t)total >= cap) {
    TF_SetStatus(st, TF_INVALID_ARGUMENT, "kforge: string attr too long");
    return 0;
  }
  TF_OpKernelConstruction_GetAttrString(ctx, name, buf, cap, st);
  if (TF_GetCode(st) != TF_OK) return 0;
  buf[total] = 0;
  return 1;
}

/* Reads an int list attr; n gets its length (values past cap are dropped:
   such a length fails kforge's length rule, which reads only the count).
   int32_field: TF's kernels read the attr as vector<int32>, whose GetAttr
   refuses a value outside int32 (checked over the whole list). */
static int get_int_list(TF_OpKernelConstruction *ctx, const char *name, int64_t *vals, int cap, int *n,
                        int int32_field, TF_Status *st) {
  int32_t list_size = 0, total = 0, i;
  int64_t *tmp;
  TF_OpKernelConstruction_GetAttrSize(ctx, name, &list_size, &total, st);
  if (TF_GetCode(st) != TF_OK) return 0;
  *n = list_size;
  if (list_size <= 0) return 1;
  tmp = malloc(sizeof *tmp * (size_t)list_size);
  if (!tmp) {
    TF_SetStatus(st, TF_RESOURCE_EXHAUSTED, "kforge: out of memory");
    return 0;
  }
  TF_OpKernelConstruction_GetAttrInt64List(ctx, name, tmp, list_size, st);
  for (i = 0; int32_field && TF_GetCode(st) == TF_OK && i < list_size; i++) {
    if (tmp[i] < INT32_MIN || tmp[i] > INT32_MAX) {
      char msg[128];
      snprintf(msg, sizeof msg, "Attr %s has value %lld out of range for an int32 [rule attr.range]", name,
               (long long)tmp[i]);
      TF_SetStatus(st, TF_INVALID_ARGUMENT, msg);
    }
  }
  if (TF_GetCode(st) == TF_OK) memcpy(vals, tmp, sizeof *tmp * (size_t)(list_size < cap ? list_size : cap));
  free(tmp);
  return TF_GetCode(st) == TF_OK;
}

static int clamp_int(int64_t v) { return v > INT_MAX ? INT_MAX : v < INT_MIN ? INT_MIN : (int)v; }

/* Stores v in a kf_attrs field of size bytes (an int, or an int64). */
static void store_sized(void *at, size_t size, int64_t v) {
  if (size == 1) { int8_t x = (int8_t)(v > INT8_MAX ? INT8_MAX : v < INT8_MIN ? INT8_MIN : v); memcpy(at, &x, 1); }
  else if (size == 2) { int16_t x = (int16_t)(v > INT16_MAX ? INT16_MAX : v < INT16_MIN ? INT16_MIN : v); memcpy(at, &x, 2); }
  else if (size == 4) { int32_t x = clamp_int(v); memcpy(at, &x, 4); }
  else if (size == 8) memcpy(at, &v, 8);
}

static int set_text(kernel *k, const char *name, const char *value, TF_Status *st) {
  kf_error err;
  kf_status s = kf_attrs_set(k->info->op, &k->attrs, name, value, &err);
  if (s != KF_OK) {
    set_kf_error(st, s, &err);
    return 0;
  }
  return 1;
}

/* Reads one attr into k->attrs, by its kind (kfg_tf_ops.h). */
static int read_attr(TF_OpKernelConstruction *ctx, kernel *k, const kfg_tf_attr *a, TF_Status *st) {
  char *at = (char *)&k->attrs + a->offset;
  switch (a->kind) {
    case KFG_TF_TYPE: {
      TF_DataType t;
      kf_dtype d;
      TF_OpKernelConstruction_GetAttrType(ctx, a->name, &t, st);
      if (TF_GetCode(st) != TF_OK) return 0;
      d = kf_of_tf(t);
      return set_text(k, a->name, d == KF_DT_INVALID ? "invalid" : kf_dtype_name(d), st);
    }
    case KFG_TF_STRING: {
      char buf[64];
      if (!get_string_attr(ctx, a->name, buf, sizeof buf, st)) return 0;
      return set_text(k, a->name, buf, st);
    }
    case KFG_TF_FLOAT: {
      float v;
      TF_OpKernelConstruction_GetAttrFloat(ctx, a->name, &v, st);
      if (TF_GetCode(st) != TF_OK) return 0;
      if (a->size == sizeof v) memcpy(at, &v, sizeof v); /* exactly TF's float, no text round trip */
      return 1;
    }
    case KFG_TF_BOOL: {
      TF_Bool v;
      TF_OpKernelConstruction_GetAttrBool(ctx, a->name, &v, st);
      if (TF_GetCode(st) != TF_OK) return 0;
      store_sized(at, a->size, v ? 1 : 0);
      return 1;
    }
    case KFG_TF_INT_LIST: {
      int64_t v[KFT_MAX_LIST];
      int n, i, cap = a->max < KFT_MAX_LIST ? a->max : KFT_MAX_LIST;
      if (!get_int_list(ctx, a->name, v, cap, &n, a->size > 0 && a->size < sizeof(int64_t), st)) return 0;
      if (!a->size) return 1;
      memcpy((char *)&k->attrs + a->count_offset, &n, sizeof n);
      for (i = 0; i < n && i < cap; i++) store_sized(at + (size_t)i * a->size, a->size, v[i]);
      return 1;
    }
  }
  return 1;
}

static void *kernel_create(const kfg_tf_op *info, TF_OpKernelConstruction *ctx) {
  TF_Status *st = TF_NewStatus();
  kernel *k = calloc(1, sizeof *k);
  int i;
  if (!k) {
    TF_SetStatus(st, TF_RESOURCE_EXHAUSTED, "kforge: out of memory");
    goto fail;
  }
  k->info = info;
  pthread_mutex_init(&k->mu, NULL);
  kf_attrs_init(info->op, &k->attrs);
  for (i = 0; i < info->num_attrs; i++)
    if (!read_attr(ctx, k, &info->attrs[i], st)) goto fail;
  TF_DeleteStatus(st);
  return k;
fail:
  TF_OpKernelConstruction_Failure(ctx, st);
  TF_DeleteStatus(st);
  if (k) {
    pthread_mutex_destroy(&k->mu);
    free(k);
  }
  return NULL;
}

static void kernel_delete(void *p) {
  kernel *k = p;
  if (!k) return;
  pthread_mutex_destroy(&k->mu);
  free(k->cache);
  free(k);
}

/* The entry a new plan goes to (k->mu held): a free one, a new one (the
   array doubles up to KFT_CACHE_MAX), else the least recently used; NULL
   when out of memory (the call then runs uncached). */
static cache_entry *cache_slot(kernel *k) {
  int i, lru = 0;
  if (k->cached < k->capacity) return &k->cache[k->cached++];
  if (k->capacity < KFT_CACHE_MAX) {
    int cap = k->capacity ? 2 * k->capacity : 4;
    cache_entry *c = realloc(k->cache, sizeof *c * (size_t)(cap < KFT_CACHE_MAX ? cap : KFT_CACHE_MAX));
    if (c) {
      k->cache = c;
      k->capacity = cap < KFT_CACHE_MAX ? cap : KFT_CACHE_MAX;
      return &k->cache[k->cached++];
    }
    if (!k->cached) return NULL;
  }
  for (i = 1; i < k->cached; i++)
    if (k->cache[i].last_use < k->cache[lru].last_use) lru = i;
  return &k->cache[lru];
}

/* One create function per op (TF passes it no user data). */
#define KFT_CREATE(i) \
  static void *create_##i(TF_OpKernelConstruction *c) { return kernel_create(&kfg_tf_ops[i], c); }
KFG_TF_FOR_EACH_OP(KFT_CREATE)
#undef KFT_CREATE
#define KFT_CREATE_REF(i) create_##i,
static void *(*const g_create[KFG_TF_NUM_OPS])(TF_OpKernelConstruction *) = { KFG_TF_FOR_EACH_OP(KFT_CREATE_REF) };
#undef KFT_CREATE_REF

/* The call's key; 0 when it cannot be cached (too many plan-time values). */
static int make_key(const kernel *k, const kf_tensor_desc *d, int n, int64_t *key) {
  int len = 0, i, j, values = 0;
  for (i = 0; i < n && i < KFG_TF_MAX_INPUTS; i++) {
    key[len++] = d[i].dtype;
    key[len++] = d[i].rank;
    for (j = 0; j < d[i].rank; j++) key[len++] = d[i].dims[j];
  }
  for (i = 0; i < n && i < KFG_TF_MAX_INPUTS; i++) {
    const kf_tensor_desc *s = &d[i];
    int64_t cnt = 1;
    if (!(k->info->host_inputs >> i & 1u)) continue;
    for (j = 0; j < s->rank; j++) cnt *= s->dims[j];
    if (cnt > KFT_MAX_SIZES - values || s->dtype != KF_INT32 || (cnt > 0 && !s->host_data)) return 0;
    values += (int)cnt;
    key[len++] = cnt;
    for (j = 0; j < cnt; j++) key[len++] = ((const int32_t *)s->host_data)[j];
  }
  return len;
}

static void kernel_compute(void *p, TF_OpKernelContext *ctx) {
  kernel *k = p;
  TF_Status *st = TF_NewStatus();
  TF_Tensor *in[KFG_TF_MAX_INPUTS] = { 0 };
  TF_Tensor *out[KFG_TF_MAX_OUTPUTS] = { 0 };
  TF_Tensor *tmp = NULL;
  kf_tensor_desc desc[KFG_TF_MAX_INPUTS];
  const void *in_ptr[KFG_TF_MAX_INPUTS];
  void *out_ptr[KFG_TF_MAX_OUTPUTS];
  int64_t key[KFT_KEY_LEN];
  kf_plan plan;
  kf_error err;
  kf_status s;
  int n_in = TF_NumInputs(ctx), n_out, i, j, key_len, hit = 0;
  size_t scratch_bytes;
  void *scratch = NULL;

  memset(desc, 0, sizeof desc);
  if (n_in > KFG_TF_MAX_INPUTS || n_in != kf_op_num_inputs(k->info->op)) {
    TF_SetStatus(st, TF_INTERNAL, "kforge: unexpected number of inputs");
    goto fail;
  }
  for (i = 0; i < n_in; i++) {
    TF_GetInput(ctx, i, &in[i], st);
    if (TF_GetCode(st) != TF_OK) goto fail;
    desc[i].dtype = kf_of_tf(TF_TensorType(in[i]));
    desc[i].rank = TF_NumDims(in[i]);
    if (desc[i].rank > KF_MAX_RANK) {
      char msg[160];
      snprintf(msg, sizeof msg, "%s must have at most %d dimensions, got %d [rule kforge.max_rank]",
               kf_op_input_name(k->info->op, i), KF_MAX_RANK, desc[i].rank);
      TF_SetStatus(st, TF_INVALID_ARGUMENT, msg);
      goto fail;
    }
    for (j = 0; j < desc[i].rank; j++) desc[i].dims[j] = TF_Dim(in[i], j);
    in_ptr[i] = TF_TensorData(in[i]);
    if (k->info->host_inputs >> i & 1u) desc[i].host_data = in_ptr[i];
  }

  key_len = make_key(k, desc, n_in, key);
  if (key_len) {
    pthread_mutex_lock(&k->mu);
    k->uses++;
    for (i = 0; i < k->cached; i++) {
      cache_entry *e = &k->cache[i];
      if (e->key_len == key_len && memcmp(e->key, key, sizeof *key * (size_t)key_len) == 0) {
        memcpy(&plan, &e->plan, sizeof plan); /* a copy: the entry may be replaced meanwhile */
        e->last_use = k->uses;
        hit = 1;
        break;
      }
    }
    pthread_mutex_unlock(&k->mu);
  }
  if (!hit) {
    kf_plan_options opt;
    memset(&opt, 0, sizeof opt);
    opt.fresh_outputs = 1; /* TF allocates every output for the call */
    if (!pool_threads(&opt.threads, st)) goto fail;
    s = kf_plan_op(&plan, k->info->op, &k->attrs, desc, n_in, &opt, &err);
    if (s != KF_OK) {
      set_kf_error(st, s, &err);
      goto fail;
    }
    if (key_len) {
      cache_entry *e;
      pthread_mutex_lock(&k->mu);
      e = cache_slot(k);
      if (e) {
        e->last_use = k->uses;
        e->key_len = key_len;
        memcpy(e->key, key, sizeof *key * (size_t)key_len);
        memcpy(&e->plan, &plan, sizeof plan);
      }
      pthread_mutex_unlock(&k->mu);
    }
  }
  pthread_mutex_lock(&g_stats_mu);
  if (hit) g_plans_reused++;
  else g_plans_made++;
  pthread_mutex_unlock(&g_stats_mu);

  n_out = kf_plan_num_outputs(&plan);
  if (n_out != TF_NumOutputs(ctx) || n_out > KFG_TF_MAX_OUTPUTS) {
    TF_SetStatus(st, TF_INTERNAL, "kforge: unexpected number of outputs");
    goto fail;
  }
  for (i = 0; i < n_out; i++) {
    const kf_tensor_desc *od = kf_plan_output_desc(&plan, i);
    const int f = i == 0 ? forward_input_of(k->info->op) : -1;
    int64_t count = 1;
    for (j = 0; j < od->rank; j++) count *= od->dims[j];
    if (f >= 0 && f < n_in && od->dtype == desc[f].dtype && od->rank == desc[f].rank &&
        memcmp(od->dims, desc[f].dims, sizeof *od->dims * (size_t)od->rank) == 0) {
      int forwarded = -1;
      /* TF forwards only a buffer whose reference count is one: drop the
         reference TF_GetInput gave us first (in_ptr[f] stays valid: the
         context's input keeps the buffer for the whole call). When x is the
         same tensor as y_backprop, in[1] still holds it: never forwarded. */
      TF_DeleteTensor(in[f]);
      in[f] = NULL;
      out[i] = TF_ForwardInputOrAllocateOutput(ctx, &f, 1, i, od->dims, od->rank, &forwarded, st);
      if (TF_GetCode(st) != TF_OK) goto fail;
      if (forwarded == f) {
        pthread_mutex_lock(&g_stats_mu);
        g_forwarded++;
        pthread_mutex_unlock(&g_stats_mu);
      }
    } else {
      out[i] = TF_AllocateOutput(ctx, i, tf_of_kf(od->dtype), od->dims, od->rank,
                                 (size_t)count * kf_dtype_size(od->dtype), st);
      if (TF_GetCode(st) != TF_OK) goto fail;
    }
    out_ptr[i] = count ? TF_TensorData(out[i]) : NULL;
  }
  scratch_bytes = kf_plan_scratch_bytes(&plan);
  if (scratch_bytes) {
    TF_AllocatorAttributes aa;
    int64_t dim = (int64_t)scratch_bytes;
    memset(&aa, 0, sizeof aa);
    aa.struct_size = TF_ALLOCATOR_ATTRIBUTES_STRUCT_SIZE;
    aa.on_host = 1;
    tmp = TF_AllocateTemp(ctx, TF_UINT8, &dim, 1, &aa, st);
    if (TF_GetCode(st) != TF_OK) goto fail;
    scratch = TF_TensorData(tmp);
  }
  s = kf_execute(&plan, in_ptr, out_ptr, scratch, scratch_bytes, &err);
  if (s != KF_OK) {
    set_kf_error(st, s, &err);
    goto fail;
  }
  goto done;
fail:
  TF_OpKernelContext_Failure(ctx, st);
done:
  if (tmp) TF_DeleteTensor(tmp);
  for (i = 0; i < KFG_TF_MAX_OUTPUTS; i++)
    if (out[i]) TF_DeleteTensor(out[i]);
  for (i = 0; i < KFG_TF_MAX_INPUTS; i++)
    if (in[i]) TF_DeleteTensor(in[i]);
  TF_DeleteStatus(st);
}

/* ------------------------------------------------------------------ shape functions */

static int ok(TF_Status *st) { return TF_GetCode(st) == TF_OK; }

/* A shape of the given rank with unknown dims. */
static void unknown_of_rank(TF_ShapeInferenceContext *c, int64_t rank, TF_ShapeHandle *out, TF_Status *st) {
  TF_ShapeHandle *u = TF_NewShapeHandle();
  TF_ShapeInferenceContextWithRank(c, u, rank, out, st);
  TF_DeleteShapeHandle(u);
}

/* FusedBatchNormGrad*: TF's FusedBatchNormGradShape as far as the C API
   allows. The C API cannot read the string attr data_format, so V3 accepts
   rank 4 or 5 here and x_backprop is y_backprop's shape (rank-checked);
   [C] comes from scale / reserve_space_1 / reserve_space_2. kforge.tf.ops
   refines the static shapes to exactly TF's (data_format known there). */
static void bn_shape(TF_ShapeInferenceContext *c, TF_Status *st, int v3) {
  TF_ShapeHandle *h = TF_NewShapeHandle(), *dy = TF_NewShapeHandle(), *vec = TF_NewShapeHandle(),
                 *cvec = NULL, *empty = NULL;
  int i;
  for (i = 0; i < 2 && ok(st); i++) {
    TF_ShapeHandle *r = i == 0 ? dy : h;
    TF_ShapeInferenceContextGetInput(c, i, h, st);
    if (!ok(st)) break;
    if (v3) {
      TF_ShapeInferenceContextWithRankAtLeast(c, h, 4, r, st);
      if (ok(st)) TF_ShapeInferenceContextWithRankAtMost(c, r, 5, r, st);
    } else {
      TF_ShapeInferenceContextWithRank(c, h, 4, r, st);
    }
  }
  for (i = 2; i < 5 && ok(st); i++) {
    TF_ShapeInferenceContextGetInput(c, i, h, st);
    if (ok(st)) TF_ShapeInferenceContextWithRank(c, h, 1, vec, st);
    if (ok(st) && !cvec) {
      TF_DimensionHandle *d = TF_NewDimensionHandle();
      TF_ShapeInferenceContextDim(c, vec, 0, d);
      if (TF_DimensionHandleValueKnown(d)) {
        cvec = TF_NewShapeHandle();
        TF_ShapeInferenceContextSubshape(c, vec, 0, 1, cvec, st);
      }
      TF_DeleteDimensionHandle(d);
    }
  }
  if (ok(st) && !cvec) {
    cvec = TF_NewShapeHandle();
    unknown_of_rank(c, 1, cvec, st);
  }
  if (ok(st)) {
    empty = TF_ShapeInferenceContextVectorFromSize(c, 0);
    TF_ShapeInferenceContextSetOutput(c, 0, dy, st);
    if (ok(st)) TF_ShapeInferenceContextSetOutput(c, 1, cvec, st);
    if (ok(st)) TF_ShapeInferenceContextSetOutput(c, 2, cvec, st);
    if (ok(st)) TF_ShapeInferenceContextSetOutput(c, 3, empty, st);
    if (ok(st)) TF_ShapeInferenceContextSetOutput(c, 4, empty, st);
  }
  TF_DeleteShapeHandle(h);
  TF_DeleteShapeHandle(dy);
  TF_DeleteShapeHandle(vec);
  if (cvec) TF_DeleteShapeHandle(cvec);
  if (empty) TF_DeleteShapeHandle(empty);
}

static void bn12_shape(TF_ShapeInferenceContext *c, TF_Status *st) { bn_shape(c, st, 0); }
static void bn3_shape(TF_ShapeInferenceContext *c, TF_Status *st) { bn_shape(c, st, 1); }

/* Depthwise gradients: TF's shape fn is MakeShapeFromShapeTensor(sizes)
   then WithRank(4). The C API cannot read a constant input's value, so the
   output is rank 4 with unknown dims here (what TF gives for a non-constant
   sizes tensor), with TF's rank checks; kforge.tf.ops sets the dims from
   the sizes' constant value, as TF's shape fn does. */
static void dw_shape(TF_ShapeInferenceContext *c, TF_Status *st, int sizes_input) {
  TF_ShapeHandle *h = TF_NewShapeHandle(), *v = TF_NewShapeHandle(), *out = TF_NewShapeHandle();
  TF_ShapeInferenceContextGetInput(c, sizes_input, h, st);
  if (ok(st)) TF_ShapeInferenceContextWithRank(c, h, 1, v, st);
  if (ok(st)) {
    TF_DimensionHandle *d = TF_NewDimensionHandle();
    TF_ShapeInferenceContextDim(c, v, 0, d);
    if (TF_DimensionHandleValueKnown(d) && TF_DimensionHandleValue(d) != 4) {
      char msg[96];
      snprintf(msg, sizeof msg, "Shape must be rank 4 but is rank %lld", (long long)TF_DimensionHandleValue(d));
      TF_SetStatus(st, TF_INVALID_ARGUMENT, msg);
    }
    TF_DeleteDimensionHandle(d);
  }
  if (ok(st)) unknown_of_rank(c, 4, out, st);
  if (ok(st)) TF_ShapeInferenceContextSetOutput(c, 0, out, st);
  TF_DeleteShapeHandle(h);
  TF_DeleteShapeHandle(v);
  TF_DeleteShapeHandle(out);
}

/* The op's first plan-time input (the sizes), from the table. */
static int sizes_input_of(kf_op op) {
  int i, j;
  for (i = 0; i < KFG_TF_NUM_OPS; i++)
    if (kfg_tf_ops[i].op == op)
      for (j = 0; j < kfg_tf_ops[i].num_inputs; j++)
        if (kfg_tf_ops[i].host_inputs >> j & 1u) return j;
  return 0;
}

static void dwbpi_shape(TF_ShapeInferenceContext *c, TF_Status *st) {
  dw_shape(c, st, sizes_input_of(KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT));
}
static void dwbpf_shape(TF_ShapeInferenceContext *c, TF_Status *st) {
  dw_shape(c, st, sizes_input_of(KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_FILTER));
}

/* An op with no shape function of its own: every output of unknown shape. */
static void unknown_shape(TF_ShapeInferenceContext *c, TF_Status *st) { TF_ShapeInferenceContextSetUnknownShape(c, st); }

typedef void shape_fn(TF_ShapeInferenceContext *, TF_Status *);

/* The hand-written part of an op's registration: TF's shape function. */
static shape_fn *shape_fn_of(kf_op op) {
  switch (op) {
    case KF_OP_FUSED_BATCH_NORM_GRAD:
    case KF_OP_FUSED_BATCH_NORM_GRAD_V2: return bn12_shape;
    case KF_OP_FUSED_BATCH_NORM_GRAD_V3: return bn3_shape;
    case KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT: return dwbpi_shape;
    case KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_FILTER: return dwbpf_shape;
    default: return unknown_shape;
  }
}

/* ------------------------------------------------------------------ registration */

static void add_list(TF_OpDefinitionBuilder *b, void (*add)(TF_OpDefinitionBuilder *, const char *),
                     const char *const *specs) {
  for (; *specs; specs++) add(b, *specs);
}

#define KFT_MAX_TYPE_ATTRS 8

/* Registers the op and one kernel per combination of its type attrs'
   allowed dtypes (named <Kforge name>_<dtype>[_<dtype>...]), with the
   plan-time inputs in host memory. */
static void register_op(int which, TF_Status *st) {
  const kfg_tf_op *info = &kfg_tf_ops[which];
  TF_OpDefinitionBuilder *b = TF_NewOpDefinitionBuilder(info->kforge_name);
  int ta[KFT_MAX_TYPE_ATTRS], idx[KFT_MAX_TYPE_ATTRS], nt = 0, i, j;
  add_list(b, TF_OpDefinitionBuilderAddInput, info->inputs);
  add_list(b, TF_OpDefinitionBuilderAddOutput, info->outputs);
  add_list(b, TF_OpDefinitionBuilderAddAttr, info->attr_defs);
  TF_OpDefinitionBuilderSetShapeInferenceFunction(b, shape_fn_of(info->op));
  TF_RegisterOpDefinition(b, st);
  if (!ok(st)) {
    fprintf(stderr, "kforge_tf: cannot register op %s: %s\n", info->kforge_name, TF_Message(st));
    return;
  }
  for (i = 0; i < info->num_attrs; i++) {
    if (info->attrs[i].kind != KFG_TF_TYPE || info->attrs[i].num_types == 0) continue;
    if (nt == KFT_MAX_TYPE_ATTRS) {
      fprintf(stderr, "kforge_tf: op %s: more than %d type attrs\n", info->kforge_name, KFT_MAX_TYPE_ATTRS);
      return;
    }
    idx[nt] = 0;
    ta[nt++] = i;
  }
  for (;;) {
    char kname[160];
    size_t len;
    TF_KernelBuilder *kb = TF_NewKernelBuilder(info->kforge_name, "CPU", g_create[which], kernel_compute,
                                               kernel_delete);
    snprintf(kname, sizeof kname, "%s", info->kforge_name);
    for (j = 0; j < nt && ok(st); j++) {
      const kfg_tf_attr *a = &info->attrs[ta[j]];
      TF_KernelBuilder_TypeConstraint(kb, a->name, a->types[idx[j]], st);
      len = strlen(kname);
      snprintf(kname + len, sizeof kname - len, "_%s", a->type_names[idx[j]]);
    }
    for (j = 0; j < info->num_inputs && ok(st); j++)
      if (info->host_inputs >> j & 1u) TF_KernelBuilder_HostMemory(kb, kf_op_input_name(info->op, j));
    if (!ok(st)) {
      fprintf(stderr, "kforge_tf: kernel builder of %s: %s\n", info->kforge_name, TF_Message(st));
      TF_DeleteKernelBuilder(kb);
      return;
    }
    TF_RegisterKernelBuilder(kname, kb, st);
    if (!ok(st)) {
      fprintf(stderr, "kforge_tf: cannot register kernel %s: %s\n", kname, TF_Message(st));
      return;
    }
    /* the next combination (the last type attr varies fastest) */
    for (j = nt - 1; j >= 0; j--) {
      if (++idx[j] < info->attrs[ta[j]].num_types) break;
      idx[j] = 0;
    }
    if (j < 0) break;
  }
}

__attribute__((constructor)) static void kforge_tf_register(void) {
  TF_Status *st = TF_NewStatus();
  int i;
  for (i = 0; i < KFG_TF_NUM_OPS; i++) {
    TF_SetStatus(st, TF_OK, "");
    register_op(i, st);
  }
  TF_DeleteStatus(st);
}
