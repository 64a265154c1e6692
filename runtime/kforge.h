/*
** kforge.h -- the one public header of the kforge runtime.
** TensorFlow's training kernels (the ops of specs/ops/<family>.lua: kf_op) as
** generated, specialized C kernels.
**
** Model: describe the call once (kf_plan_*), which validates it with
** TensorFlow's rules and selects the kernel; then run it many times
** (kf_execute) on caller-owned buffers. Nothing is ever allocated.
*/
#ifndef kforge_h
#define kforge_h

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KF_VERSION "0.1.0"

/* ---------------------------------------------------------------- status */
typedef enum kf_status {
  KF_OK = 0,
  KF_INVALID_ARGUMENT,  /* TensorFlow's InvalidArgument: the call is ill-formed */
  KF_UNIMPLEMENTED,     /* a valid call this build cannot serve */
  KF_NO_KERNEL,         /* no kernel of this kernel set matches (no-fallback sets) */
  KF_SCRATCH_TOO_SMALL, /* the scratch buffer passed to kf_execute is too small */
  KF_TOO_LARGE          /* an element count exceeds KF_MAX_ELEMENTS */
} kf_status;

/* Filled on error (may be NULL when the caller does not want details). */
typedef struct kf_error {
  kf_status status;
  const char *rule; /* the spec's rule id, e.g. "bngrad.same_shape", or "" */
  char message[320];
} kf_error;

const char *kf_status_name(kf_status s);

/* ---------------------------------------------------------------- tensors */
typedef enum kf_dtype {
  KF_DT_INVALID = 0,
  KF_HALF,      /* IEEE binary16, stored as uint16_t bits */
  KF_BFLOAT16,  /* bfloat16, stored as uint16_t bits */
  KF_FLOAT,
  KF_DOUBLE,
  KF_INT32
} kf_dtype;

const char *kf_dtype_name(kf_dtype t); /* TF's name: "half", "bfloat16", ... */
kf_dtype kf_dtype_from_name(const char *name);
size_t kf_dtype_size(kf_dtype t);

/* Conversions of half and bfloat16 bit patterns (round to nearest even). */
float kf_half_to_float(uint16_t h);
uint16_t kf_float_to_half(float f);
float kf_bfloat16_to_float(uint16_t b);
uint16_t kf_float_to_bfloat16(float f);

#define KF_MAX_RANK 8
/* Largest element count of any tensor (TF's CPU kernels index with int). */
#define KF_MAX_ELEMENTS (((int64_t)1 << 31) - 1)

typedef struct kf_tensor_desc {
  kf_dtype dtype;
  int rank;
  int64_t dims[KF_MAX_RANK];
  /* The values of an input that is read while planning, as TF keeps it in
     host memory (DepthwiseConv2dNativeBackpropInput's input_sizes: int32);
     NULL for every other tensor. Only read during kf_plan_op. */
  const void *host_data;
} kf_tensor_desc;

/* ---------------------------------------------------------------- ops */
/* kf_op (one constant per op: KF_OP_FUSED_BATCH_NORM_GRAD_V3, ...), the
   enums of string attrs (kf_data_format: KF_NHWC..., kf_padding:
   KF_SAME...) and kf_attrs (every attribute of every op, as in a TF NodeDef)
   are generated from the op specs: a new op never changes this header. */
#include "kforge_ops.h"

kf_op kf_op_from_name(const char *tf_name);
const char *kf_op_name(kf_op op);
/* TF input/output names in TF order; NULL past the end. */
int kf_op_num_inputs(kf_op op);
int kf_op_num_outputs(kf_op op);
const char *kf_op_input_name(kf_op op, int i);
const char *kf_op_output_name(kf_op op, int i);
/* The input whose buffer output i may be, exactly (the same pointer), or
   -1: the op spec's in_place_of (kf_execute says what it guarantees). */
int kf_op_output_in_place_of(kf_op op, int i);
/* The op's attributes in TF order, and their defaults in text form
   (NULL when the attr has no default and must be set). */
int kf_op_num_attrs(kf_op op);
const char *kf_op_attr_name(kf_op op, int i);
const char *kf_op_attr_default(kf_op op, int i);

/* ---------------------------------------------------------------- attrs */
/* kf_attrs_init sets TF's defaults for the op (required attrs unset). */
void kf_attrs_init(kf_op op, kf_attrs *a);
/* Sets an attribute from its text form (as on the CLI: "epsilon=0.001",
   "strides=1,2,2,1", "is_training=false"), checking the op's allowed values. */
kf_status kf_attrs_set(kf_op op, kf_attrs *a, const char *name, const char *value, kf_error *err);

/* ---------------------------------------------------------------- plans */
/* A plan is caller-owned storage (static, stack or arena); opaque. */
typedef struct kf_plan {
  union { long double align_; void *p_; unsigned char bytes[1024]; } u;
} kf_plan;

/* ---------------------------------------------------------------- ISAs */
typedef enum kf_isa {
  KF_ISA_SCALAR = 1, KF_ISA_NEON = 2, KF_ISA_AVX2 = 4, KF_ISA_AVX512 = 8, KF_ISA_MVE = 16
} kf_isa;

/* The ISAs this CPU and OS support (bits), capped by the environment
   variable KFORGE_ISA=scalar|neon|avx2|avx512 (the highest ISA allowed;
   any case, blanks around it ignored). A value that names no ISA caps
   nothing here, and kf_plan_op fails with rule "env.isa" naming the
   accepted values, so that a typo never silently selects slower kernels.
   KF_ISA_MVE (Cortex-M Helium) is set when the library is compiled for it:
   M-profile has no runtime detection and no environment. */
unsigned kf_cpu_isas(void);
const char *kf_isa_name(unsigned isa_bit);

/* ---------------------------------------------------------------- threads */
/* A parallel-for handed in by the caller (a framework's own pool, or
   Debian's pthreadpool: pthreadpool_parallelize_1d has this shape): it must
   call task(ctx, i) once for every i < n, in any order and on any threads,
   and return when all calls are done. Kernels split their work into tasks
   whose partition and reduction order do not depend on the thread count,
   so results are bitwise identical for any number of threads. */
typedef void (*kf_task_fn)(void *ctx, size_t i);
typedef struct kf_threads {
  void (*parallel_for)(void *pool, kf_task_fn task, void *ctx, size_t n);
  void *pool;
  int num_threads;      /* tasks that may run at once (a hint for splitting) */
} kf_threads;

/* fork(): the runtime holds no threads, locks or global state, so a child
   made by fork() may plan and execute at once, and the parent's plans stay
   valid there as long as their kf_threads works in the child. A pool's
   worker threads do not survive fork() (the child has only the forking
   thread): a plan on a pool made before the fork may run in the child only
   if that pool is fork-safe. Debian's pthreadpool is not: in the child,
   create a new pool and plan again, or plan with threads = NULL. The pool
   of kforge's Python package and TF ops (kfpy_pool) is fork-safe: a child
   may keep using it (it starts fresh workers) or destroy it. */

typedef struct kf_plan_options {
  const char *kernel;   /* force this kernel by name (tests, tuning); NULL = select */
  int generic_only;     /* ignore specialized kernels */
  unsigned isas;        /* allowed ISA bits (within kf_cpu_isas()); 0 = all */
  const kf_threads *threads; /* NULL = run on the calling thread; must outlive the plan */
  /* Fields added later stay at the end, so that a zeroed struct (= {0})
     keeps meaning "the rule" for every version. */
  /* KF_PLAN_MEASURE: time the candidates unless wisdom knows the call
     (docs/tuning.md); KF_PLAN_MEASURE_COLD: the same, the call's buffers
     evicted from the caches before each timed run, as a model's calls
     find them; KF_PLAN_RULE: the rule alone, no wisdom; 0: as KFORGE_PLAN
     says (measure, measure-cold, rule or unset: wisdom, else the rule). */
  int measure;
  /* Measuring: the call's own buffers, every input then every output in
     TF order (kf_op_num_inputs + kf_op_num_outputs pointers, NULL for
     those of 0 elements); only their addresses mod 64 are used, and an
     output equal to an input is timed in place (nothing is read or written).
     NULL: time each candidate at 64-byte alignment and at a 16-byte offset. */
  const void *const *buffers;
  /* Nonzero: every call of this plan writes outputs that are in no cache
     (a framework's freshly allocated tensors, in a step whose data is far
     larger than the last-level cache), so outputs larger than the L2 are
     written with streaming stores instead of from the warm threshold up
     (a quarter of the LLC, two L2s or half the L2, as this CPU's streamed
     stores measured once per process; KFORGE_STREAM overrides it).
     Results are bitwise the same either way; only the speed differs. The
     filter gradient (a small output) reads it as "the inputs come from
     DRAM too": its unit-stride plans prefetch their passes, and the NHWC
     ones' sums round differently (within f32 rounding; docs/tuning.md).
     0: the caller re-uses warm buffers. A wisdom entry keeps its own
     choices; a measurement starts from the rule's (this hint's). */
  int fresh_outputs;
} kf_plan_options;

#define KF_PLAN_MEASURE 1
#define KF_PLAN_RULE 2
#define KF_PLAN_MEASURE_COLD 3

/* Validates the call (TF's rules, in TF's order) and selects the kernel.
   inputs[] are in TF order (kf_op_input_name). */
kf_status kf_plan_op(kf_plan *plan, kf_op op, const kf_attrs *attrs,
                     const kf_tensor_desc *inputs, int num_inputs,
                     const kf_plan_options *opt, kf_error *err);

/* How a plan chose its kernel and plan-time parameters: KF_PLAN_BY_RULE
   (the rule, as without wisdom), KF_PLAN_BY_WISDOM (an imported or earlier
   measured entry), KF_PLAN_BY_MEASURE (timed now); -1 for no valid plan. */
enum { KF_PLAN_BY_RULE = 0, KF_PLAN_BY_WISDOM = 1, KF_PLAN_BY_MEASURE = 2 };
int kf_plan_source(const kf_plan *plan);
/* Flushes the cache lines of [p, p + bytes) from every level (written back
   if dirty), so the next access comes from memory, as a model's calls find
   their data: cold measuring and `kforge tune --cold` time calls so. 1
   where the CPU has a flush instruction (x86-64, AArch64), else 0 and
   nothing is done. */
int kf_flush_caches(const void *p, size_t bytes);
/* The plan's choices in wisdom's words ("kernel=NAME llc=1"); buf is always
   terminated. Returns buf. */
const char *kf_plan_choices(const kf_plan *plan, char *buf, size_t n);

/* ---------------------------------------------------------------- wisdom */
/* Measured choices, kept per process and in text files (docs/tuning.md).
   Entries are keyed by CPU, build and call; kf_plan_op uses a matching
   entry before the rule. KFORGE_WISDOM=FILE imports FILE on the first plan
   and adds each new measurement to it; KFORGE_PLAN=measure|measure-cold|rule
   sets the default of kf_plan_options.measure. Import reads the whole file
   or nothing: a corrupt file fails (rule "wisdom.corrupt") and plans keep the
   rule; foreign or stale entries are skipped with one line on stderr.
   Export merges into FILE under a lock (entries of other CPUs and builds
   are kept) and replaces it atomically. Measuring and wisdom allocate (the
   timing buffers, the table); plans by rule never do. Microcontroller
   builds have no files: import and export fail with KF_UNIMPLEMENTED. */
kf_status kf_wisdom_import(const char *path, kf_error *err);
kf_status kf_wisdom_export(const char *path, kf_error *err);
void kf_wisdom_forget(void);   /* drop every entry in memory */
int kf_wisdom_count(void);     /* entries in memory */

/* What the plan will produce and need. */
int kf_plan_num_outputs(const kf_plan *plan);
const kf_tensor_desc *kf_plan_output_desc(const kf_plan *plan, int i);
size_t kf_plan_scratch_bytes(const kf_plan *plan);
const char *kf_plan_kernel_name(const kf_plan *plan);

/* Runs the plan. inputs/outputs in TF order, each pointing to dense
   row-major data of the planned dtype and shape (outputs of 0 elements may
   be NULL). The depthwise op's input_sizes was read at plan time (from its
   descriptor's host_data), so its pointer here is ignored. scratch may be NULL if kf_plan_scratch_bytes is 0.
   Outputs must not overlap inputs, other outputs or scratch, with one
   exception (kf_op_output_in_place_of): a batch-norm gradient's (FusedBatchNormGrad{,V2,V3})
   x_backprop, outputs[0], may be exactly y_backprop's buffer, inputs[0]
   (the same pointer; they have the same shape and dtype): the result is
   bitwise the same as with separate buffers, for every kernel and thread
   count, because every kernel, the generic one included, reads dy[e] and
   x[e] before it writes dx[e] and never reads dy[e] after (the sums are
   taken before any of x_backprop is written, or in the same pass, element
   by element), and the threads of a pass work on disjoint elements
   (docs/models.md, "In place"). No other overlap is allowed: not
   x_backprop with x, not a shifted or partial overlap with y_backprop, and
   none for the depthwise ops (they read neighbouring elements). */
kf_status kf_execute(const kf_plan *plan, const void *const *inputs, void *const *outputs,
                     void *scratch, size_t scratch_bytes, kf_error *err);

/* Plans and runs a call at once: for ops without a typed entry point
   (inputs read at plan time, such as filter_sizes, carry their values in
   their descriptor's host_data). */
kf_status kf_run_op(kf_op op, const kf_attrs *attrs, const kf_tensor_desc *descs, int num_inputs,
                    const void *const *inputs, void *const *outputs, void *scratch, size_t scratch_bytes,
                    kf_error *err);

/* ---------------------------------------------------------------- typed entry points */
/* FusedBatchNormGrad{,V2,V3} in one call. version is 1, 2 or 3;
   reserve_space_3 (V3 only) is ignored, as in TF's CPU kernel, and may be
   NULL. Shapes: x and y_backprop [N,H,W,C]-like (4-D or 5-D, data_format),
   scale/mean/var [C]. Outputs x_backprop (x's shape and dtype), scale and
   offset backprop [C] float. x_backprop may be y_backprop itself (the same
   pointer: computed in place, bitwise as with separate buffers); no other
   overlap is allowed (kf_execute). */
kf_status kf_fused_batch_norm_grad(int version, const kf_attrs *attrs,
                                   const kf_tensor_desc *x_desc, /* = y_backprop's */
                                   const void *y_backprop, const void *x,
                                   const float *scale, const float *reserve_space_1,
                                   const float *reserve_space_2,
                                   void *x_backprop, float *scale_backprop,
                                   float *offset_backprop,
                                   void *scratch, size_t scratch_bytes, kf_error *err);

/* DepthwiseConv2dNativeBackpropInput in one call. input_sizes holds the
   4 dims of the output (data_format order). */
kf_status kf_depthwise_conv2d_backprop_input(const kf_attrs *attrs, const int32_t input_sizes[4],
                                             const kf_tensor_desc *filter_desc, const void *filter,
                                             const kf_tensor_desc *out_backprop_desc,
                                             const void *out_backprop, void *output,
                                             void *scratch, size_t scratch_bytes, kf_error *err);

/* ---------------------------------------------------------------- kernel set */
/* The kernels compiled into this library, in selection order. */
int kf_kernel_count(void);
const char *kf_kernel_name(int i);
const char *kf_kernel_config(int i); /* e.g. "T=f32 layout=nhwc mode=train isa=avx2" */

/* A kernel's (or a call's) place in its family's key space: what tools and
   tests use instead of reading names. Keys are the axes of the family's
   spec (specs/ops/<family>.lua): "T", "layout", "kh", ... */
#define KF_MAX_KEY 12
typedef struct kf_kernel_info {
  const char *name, *config;   /* NULL for a call's key (kf_plan_key) */
  const char *family;          /* the op family: "bngrad", "dwbpi", ... */
  unsigned isa;                /* the one KF_ISA_* bit the kernel needs (0: a call's key) */
  int generic;                 /* 1: the family's fallback, which serves any key */
  int num_keys;
  const char *key_name[KF_MAX_KEY];
  char key_value[KF_MAX_KEY][16]; /* "f32", "nhwc", "3"; "*": any value */
} kf_kernel_info;

/* Kernel i (0 <= i < kf_kernel_count()). */
kf_status kf_kernel_info_of(int i, kf_kernel_info *info);
/* Kernel i's vector length: elements of its accumulation type (float, or
   double for f64) per vector of its ISA; 1 for scalar kernels; 0 past the
   end. Tests derive edge cases from it (C at lanes - 1, lanes, lanes + 1). */
int kf_kernel_lanes(int i);
/* The width of kernel i's block along dim ("W": output pixels of a register
   block, "rows", "pixels": of a partial sum), as its op spec's `blocks` name
   them; 0 if it has none along dim. */
int kf_kernel_block(int i, const char *dim);
/* The kernel a plan runs: its index, or -1 when the plan computes nothing
   (an empty output) or is not valid. */
int kf_plan_kernel_index(const kf_plan *plan);
/* The planned call's own key (what a kernel must serve to be selected):
   per-model kernel sets are derived from it. KF_INVALID_ARGUMENT when the
   plan has no kernel (empty output). */
kf_status kf_plan_key(const kf_plan *plan, kf_kernel_info *key);
/* Op families (every family the runtime knows, whether or not this kernel
   set has kernels of it). */
int kf_family_count(void);
const char *kf_family_name(int i);
const char *kf_op_family(kf_op op);

#ifdef __cplusplus
}
#endif
#endif
