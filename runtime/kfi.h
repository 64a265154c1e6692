/*
** kfi.h -- internals of the kforge runtime: the generated tables (ops,
** families, rules, registry), the plan layout, and the helpers the op
** families' planners share. Nothing here names a family: each family's
** planner (runtime/<family>_plan.c) is reached through kfg_families[],
** which the generator writes from the specs.
*/
#ifndef kfi_h
#define kfi_h

#include <stdarg.h>

#include "kforge.h"
#include "kfi_kernel.h"
#include "kfg_spec.h"

/* ---- tables generated from specs/ (kfg_ops.c) ---- */
typedef enum { KFI_ATTR_TYPE, KFI_ATTR_FLOAT, KFI_ATTR_BOOL, KFI_ATTR_STRING, KFI_ATTR_INT_LIST } kfi_attr_kind;

/* in_place_of: outputs only, the input whose buffer the output may be
   (the spec's in_place_of), -1 if none. */
typedef struct kfi_tensor_def { const char *name, *type; int in_place_of; } kfi_tensor_def;
/* Where an attr lives in kf_attrs (specs/attrs.lua): size 0 = not stored. */
typedef struct kfi_attr_field {
  size_t offset;                 /* of the value (a list: of its first element) */
  size_t count_offset;           /* lists: of the int element count */
  int max;                       /* lists: the most elements; 1 otherwise */
  size_t size;                   /* of one element */
  const char *const *names;      /* string attrs: the enum's value names, by value */
  int num_names;
} kfi_attr_field;
typedef struct kfi_attr_def {
  const char *name;
  kfi_attr_kind kind;
  const char *def;               /* text form of the default, NULL if none */
  const char *const *allowed;    /* allowed values (text form), NULL = any */
  int num_allowed;
  int required;
  kfi_attr_field field;
} kfi_attr_def;

typedef struct kfi_op_def {
  kf_op op;
  const char *name;
  int family;
  int num_inputs;
  const kfi_tensor_def *inputs;
  int num_outputs;
  const kfi_tensor_def *outputs;
  int num_attrs;
  const kfi_attr_def *attrs;
} kfi_op_def;

typedef struct kfi_axis_value { int32_t c; const char *tag; } kfi_axis_value;
typedef struct kfi_axis_def { const char *name; int num_values; const kfi_axis_value *values; } kfi_axis_def;
typedef struct kfi_plan kfi_plan;
/* A family: its key axes, and its planner and executor (the contract of a
   family plug-in; see docs/specs.md "How to add an op"). */
typedef struct kfi_family_def {
  const char *name;
  int num_axes;
  const kfi_axis_def *axes;
  kf_status (*plan)(kfi_plan *p, const kfi_op_def *od, const kf_attrs *a, const kf_tensor_desc *in,
                    const kf_plan_options *opt, kf_error *err);
  kf_status (*exec)(const kfi_plan *p, const void *const *in, void *const *out, void *scratch, kf_error *err);
} kfi_family_def;
typedef struct kfi_rule { const char *id, *message; } kfi_rule;

extern const kfi_op_def kfg_ops[];
extern const int kfg_op_count;
extern const kfi_family_def kfg_families[KFG_FAMILY_COUNT];
extern const kfi_rule kfg_rules[KFG_RULE_COUNT];

/* ---- the kernel set's registry (kfg_registry.c), in selection order ---- */
/* A register or work block of a kernel: its width along a dimension of the
   problem (the spec's `blocks`, e.g. W = PIX output pixels). */
typedef struct kfi_block { const char *dim; int width; } kfi_block;
#define KFI_MAX_BLOCKS 2
typedef struct kfi_kernel {
  const char *name;
  const char *config;
  int family;
  unsigned isa;                /* KFI_ISA_* bit */
  int generic;                 /* the fallback kind: serves any key */
  int32_t key[KFG_MAX_KEY];    /* one slot per axis, KFI_ANY = any */
  void (*run)(const void *args, const kfi_par *par);
  size_t (*scratch)(const void *args);
  int lanes;                   /* elements of its accumulation type per vector (1: scalar) */
  kfi_block blocks[KFI_MAX_BLOCKS]; /* dim NULL: no more */
} kfi_kernel;

extern const kfi_kernel kfg_registry[];
extern const int kfg_registry_count;

/* ---- plans ---- */
#define KFI_MAX_OUTPUTS 5
#define KFI_MAX_INPUTS 8
#define KFI_PLAN_MAGIC 0x6b66706cu
#define KFI_ARGS_BYTES 384     /* the largest family argument block, bytes */

struct kfi_plan {
  uint32_t magic;
  kf_op op;
  int family;                  /* set by kfi_select (with key and kernel) */
  int32_t key[KFG_MAX_KEY];    /* the call's kernel key */
  const kfi_kernel *kernel;    /* NULL: nothing to compute (empty output) */
  size_t scratch_bytes;
  int num_inputs;
  /* Per input, from kf_plan_op: 1 when it has 0 elements or was read at
     plan time (host_data): kf_execute then hands the executor a non-NULL
     dummy for a NULL pointer, so no kernel does arithmetic on NULL. */
  unsigned char input_may_be_null[KFI_MAX_INPUTS];
  int num_outputs;
  kf_tensor_desc outputs[KFI_MAX_OUTPUTS];
  kfi_par par;                 /* from kf_plan_options.threads; zero = serial */
  int source;                  /* KF_PLAN_BY_*: how kernel and choices were made */
  /* The family's argument block (kfi_<family>_args, buffer pointers unset),
     reached with KFI_ARGS. */
  union { long double ld_; int64_t i_; void *p_; unsigned char bytes[KFI_ARGS_BYTES]; } args;
};

/* The plan's argument block as the family's type (which must fit). */
#define KFI_ARGS(p, type) \
  ((void)sizeof(char[sizeof(type) <= KFI_ARGS_BYTES ? 1 : -1]), (type *)(void *)(p)->args.bytes)
#define KFI_CARGS(p, type) \
  ((void)sizeof(char[sizeof(type) <= KFI_ARGS_BYTES ? 1 : -1]), (const type *)(const void *)(p)->args.bytes)

const kfi_op_def *kfi_op_def_of(kf_op op);
/* Checks an attr value (text form) against the op's allowed list. */
kf_status kfi_check_attr_value(const kfi_op_def *od, const char *name, const char *value, kf_error *err);

/* Fails with a spec rule's message (printf-style arguments). Returns status. */
kf_status kfi_fail_rule(kf_error *err, kf_status st, int rule, ...);
/* An input's dtype against the op's: rule (the family's input_dtype rule) on mismatch. */
kf_status kfi_check_dtype(const kf_tensor_desc *d, const char *name, kf_dtype want, int rule, kf_error *err);
/* Fails with a runtime message (rule id "" or the given id). */
kf_status kfi_fail(kf_error *err, kf_status st, const char *rule, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 4, 5)))
#endif
  ;

/* The runtime's printf (kf_format.c: no stdio in the library). */
int kfi_vformat(char *buf, size_t n, const char *fmt, va_list ap);
int kfi_format(char *buf, size_t n, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 3, 4)))
#endif
  ;

/* "[2,3,4]": TF's shape debug string. buf must hold 32*KF_MAX_RANK bytes. */
const char *kfi_shape_str(const kf_tensor_desc *d, char *buf, size_t n);
/* Element count with overflow check: -1 if it or any dim is over
   KF_MAX_ELEMENTS, or the descriptor is invalid. */
int64_t kfi_num_elements(const kf_tensor_desc *d);

/* KF_OK, or an error naming the accepted values when KFORGE_ISA is set to
   something that is no ISA (kf_cpu.c). */
kf_status kfi_check_isa_env(kf_error *err);
/* Bytes of this CPU's caches (kf_cpu.c): KFI_CACHE_L1D the level-1 data
   cache, KFI_CACHE_L2 the level-2 one, KFI_CACHE_LLC the last-level one
   (the largest cache at the highest level); cpuid on x86-64, sysfs on Linux
   AArch64, 0 when unknown (microcontrollers): plans then assume the
   KFI_*_DEFAULT sizes (kfi_kernel.h). KFORGE_L1D, KFORGE_L2 and KFORGE_LLC
   ("32M") override them; kfi_check_cache_env fails (rule "env.l1d",
   "env.l2" or "env.llc") when one is set to something that is no size. */
enum { KFI_CACHE_L1D, KFI_CACHE_L2, KFI_CACHE_LLC };
int64_t kfi_cpu_cache_bytes(int which);
int64_t kfi_cpu_cache_sysfs(int which); /* what Linux's sysfs says, or 0 */
int64_t kfi_cpu_llc_bytes(void);        /* kfi_cpu_cache_bytes(KFI_CACHE_LLC) */
int64_t kfi_cpu_llc_sysfs(void);
kf_status kfi_check_cache_env(kf_error *err);
/* All three, each unknown one replaced by its default: what a plan sizes by. */
void kfi_cpu_caches(kfi_caches *c);
/* The output size (bytes) from which kernels stream their stores, as the
   planners set it: LLC/4, the L2 when the caller declares its outputs fresh
   (kf_plan_options.fresh_outputs). */
int64_t kfi_stream_bytes(const kfi_caches *c, int fresh);
/* kf_stream.c: the rule's warm threshold on this CPU: KFORGE_STREAM, else
   kfi_stream_threshold(c, streaming pays), measured once per process. */
int64_t kfi_stream_warm(const kfi_caches *c);
/* By kfi_stream_pays's verdict: half the L2 where streamed stores over
   warm lines keep pace with ordinary ones (2), twice the L2 (512 KiB to
   8 MiB: the size measured) where they cost at most twice as much (1),
   else (0) a quarter of the LLC; never above a quarter of the LLC. */
int64_t kfi_stream_threshold(const kfi_caches *c, int pays);
/* Copies of twice the L2 into a warm destination, ordinary (t_plain) and
   streamed, and an ordinary one within the L2 scaled to the same bytes
   (t_near): 2 (keeps pace) where t_plain >= 2 t_near and t_stream <= 1.25
   t_plain, else 1 (pays) where t_stream <= 2 t_plain, else 0. */
int kfi_stream_pays(double t_plain, double t_stream, double t_near);
/* The measurement's figures (ns) and verdict: 0 not measured, else 1 +
   kfi_stream_pays (1 streaming does not pay, 2 pays, 3 keeps pace). */
int kfi_stream_calibration(double *t_plain, double *t_stream, double *t_near, double *cost_ns);
/* Fails (rule "env.stream") when KFORGE_STREAM is neither a size nor auto. */
kf_status kfi_check_stream_env(kf_error *err);
/* "32M", " 48k ", "2MiB": bytes; 0 for NULL or blank; -1 for no size. */
int64_t kfi_parse_size(const char *v);
/* CPUID's vendor string and display family and model (x86-64; "arm64", 0, 0
   on AArch64): wisdom keys name the CPU by them. Defined where wisdom is. */
void kfi_cpu_ident(char vendor[16], unsigned *family, unsigned *model);

/* Kernel selection (kf_select.c), called by a family's planner once its
   argument block is filled: the first registry entry of the family whose
   key matches (or the one kf_plan_options.kernel names). Sets p->family,
   p->key, p->kernel and p->scratch_bytes (the kernel's scratch query on
   p->args); on failure returns the error with p->kernel NULL. */
kf_status kfi_select(kfi_plan *p, int family, const int32_t *key, const kf_plan_options *opt, kf_error *err);
/* The tag of an axis value ("f32", "nhwc", "3"), NULL when the axis lists none. */
const char *kfi_axis_tag(const kfi_axis_def *axis, int32_t v);
/* The plan inside a kf_plan, or NULL unless a successful kf_plan_op made it. */
const kfi_plan *kfi_plan_of(const kf_plan *plan);
/* "T=f16 layout=nchw mode=infer": a key in words, for messages. */
void kfi_key_str(int family, const int32_t *key, char *buf, size_t n);


/* The generated declarations of every family's planner and executor. */
#include "kfg_planners.h"

#endif
