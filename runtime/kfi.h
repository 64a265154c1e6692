/*
** kfi.h -- internals of the kforge runtime: the generated tables (ops,
** rules, registry), the plan layout, and helpers shared by the op planners.
*/
#ifndef kfi_h
#define kfi_h

#include <stdarg.h>

#include "kforge.h"
#include "kfi_kernel.h"
#include "kfg_spec.h"

/* ---- tables generated from specs/ (kfg_ops.c) ---- */
typedef enum { KFI_ATTR_TYPE, KFI_ATTR_FLOAT, KFI_ATTR_BOOL, KFI_ATTR_STRING, KFI_ATTR_INT_LIST } kfi_attr_kind;

typedef struct kfi_tensor_def { const char *name, *type; } kfi_tensor_def;
typedef struct kfi_attr_def {
  const char *name;
  kfi_attr_kind kind;
  const char *def;               /* text form of the default, NULL if none */
  const char *const *allowed;    /* allowed values (text form), NULL = any */
  int num_allowed;
  int required;
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
typedef struct kfi_family_def { const char *name; int num_axes; const kfi_axis_def *axes; } kfi_family_def;
typedef struct kfi_rule { const char *id, *message; } kfi_rule;

extern const kfi_op_def kfg_ops[];
extern const int kfg_op_count;
extern const kfi_family_def kfg_families[KFG_FAMILY_COUNT];
extern const kfi_rule kfg_rules[KFG_RULE_COUNT];

/* ---- the kernel set's registry (kfg_registry.c), in selection order ---- */
typedef struct kfi_kernel {
  const char *name;
  const char *config;
  int family;
  unsigned isa;                /* KFI_ISA_* bit */
  int generic;                 /* the fallback kind: serves any key */
  int32_t key[KFG_MAX_KEY];    /* one slot per axis, KFI_ANY = any */
  void (*run)(const void *args, const kfi_par *par);
  size_t (*scratch)(const void *args);
} kfi_kernel;

extern const kfi_kernel kfg_registry[];
extern const int kfg_registry_count;

/* ---- plans ---- */
#define KFI_MAX_OUTPUTS 5
#define KFI_MAX_INPUTS 8
#define KFI_PLAN_MAGIC 0x6b66706cu

typedef struct kfi_plan {
  uint32_t magic;
  kf_op op;
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
  union { kfi_bngrad_args bngrad; kfi_dwbpi_args dwbpi; } args; /* pointers unset */
} kfi_plan;

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

/* Selects the first registry entry of family whose key matches. */
/* KF_OK, or an error naming the accepted values when KFORGE_ISA is set to
   something that is no ISA (kf_cpu.c). */
kf_status kfi_check_isa_env(kf_error *err);
const kfi_kernel *kfi_select(int family, const int32_t *key, const kf_plan_options *opt, kf_error *err);

/* Per-family planners and executors (bngrad_plan.c, dwbpi_plan.c). */
kf_status kfi_plan_bngrad(kfi_plan *p, kf_op op, const kf_attrs *a, const kf_tensor_desc *in,
                          const kf_plan_options *opt, kf_error *err);
kf_status kfi_exec_bngrad(const kfi_plan *p, const void *const *in, void *const *out, void *scratch,
                          kf_error *err);
kf_status kfi_plan_dwbpi(kfi_plan *p, kf_op op, const kf_attrs *a, const kf_tensor_desc *in,
                         const kf_plan_options *opt, kf_error *err);
kf_status kfi_exec_dwbpi(const kfi_plan *p, const void *const *in, void *const *out, void *scratch,
                         kf_error *err);

#endif
