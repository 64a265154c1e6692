/*
** kfi_wisdom.h -- plan choices, measured plans and wisdom (docs/tuning.md).
** A plan's variants are the kernels that serve its key (one per ISA the
** CPU runs, and the generic one) and the values of its family's plan-time
** parameters, each an int64_t field of the family's argument block listed
** in kfi_choices[] (kf_choice.c): a new plan-time parameter is one entry
** there. The rule (the family's planner) fills every field; a variant
** only overrides them, so every variant computes the op.
*/
#ifndef kfi_wisdom_h
#define kfi_wisdom_h

#include "kfi.h"

/* Files, clocks and the heap: where there is an OS (as kf_cpu.c reads the
   environment). Elsewhere plans always follow the rule. */
#if (defined(__x86_64__) || defined(__aarch64__)) && (defined(__unix__) || defined(__APPLE__))
#define KFI_HAS_OS 1
#else
#define KFI_HAS_OS 0
#endif

#define KFI_CHOICE_VALUES 4   /* candidates beside the rule's own value */
#define KFI_MAX_CHOICES 8     /* per family */

typedef struct kfi_choice_def {
  int family;                 /* KFG_FAMILY_* */
  const char *name;           /* its word in wisdom files: "llc" */
  size_t offset;              /* of an int64_t in the family's argument block */
  int num_values;
  int64_t values[KFI_CHOICE_VALUES];
} kfi_choice_def;

extern const kfi_choice_def kfi_choices[];
extern const int kfi_num_choices;

/* The choices of a family (indexes into kfi_choices), at most KFI_MAX_CHOICES. */
int kfi_family_choices(int family, int idx[KFI_MAX_CHOICES]);
int64_t kfi_choice_get(const kfi_plan *p, const kfi_choice_def *c);
/* Sets a choice's value and refreshes the scratch size. */
void kfi_choice_set(kfi_plan *p, const kfi_choice_def *c, int64_t v);
/* Whether kernel k may run this plan (family, key, ISA, generic_only). */
int kfi_kernel_fits(const kfi_kernel *k, const kfi_plan *p, const kf_plan_options *opt);
/* Switches the plan to kernel k (refreshes the scratch size). */
void kfi_use_kernel(kfi_plan *p, const kfi_kernel *k);
/* "kernel=NAME llc=1": the plan's choices in wisdom's words. */
void kfi_choices_str(const kfi_plan *p, char *buf, size_t n);
/* Applies a choices string; 0 and a reason in why when it does not fit. */
int kfi_choices_apply(kfi_plan *p, const char *s, const kf_plan_options *opt, char *why, size_t n);

/* After the rule chose (kf_plan.c): wisdom, then measuring when asked. */
kf_status kfi_plan_choose(kfi_plan *p, const kf_tensor_desc *in, const kf_plan_options *opt, kf_error *err);
/* The rule's choices that follow where the caller's data sits, into p
   (kf_plan.c): the streaming threshold, the fresh one or this CPU's warm
   one, where p's family has a "stream" choice; for fresh outputs also
   kfi_choices_rule_cold. */
void kfi_plan_rule_caches(kfi_plan *p, const kf_plan_options *opt);
/* The rule's choices for a call whose inputs come from DRAM (kf_choice.c):
   the filter gradient's unit-stride walks prefetch their passes, as for
   data larger than the LLC (llc; NHWC also span by its rule). */
void kfi_choices_rule_cold(kfi_plan *p);
/* Times the variants of p on its own shapes and applies the best
   (kf_measure.c); the rule's variant stays unless one beats it beyond noise.
   cold: the call's buffers are evicted from the caches before each timed run. */
kf_status kfi_measure(kfi_plan *p, const kf_tensor_desc *in, const kf_plan_options *opt, int cold, kf_error *err);
/* The noise rule (docs/tuning.md, "Measured plans"): a variant replaces the
   one kept only when faster by more than KFI_MS_NOISE; a final winner other
   than the rule's variant is then timed against it in KFI_MS_CONFIRM_PAIRS
   pairs, and kept where kfi_measure_confirmed: ratio[i], the winner's time
   over the rule's in pair i (n of them, at most KFI_MS_CONFIRM_PAIRS), has a
   median below 1 - KFI_MS_NOISE and is below 1 in at least
   KFI_MS_CONFIRM_WINS of every KFI_MS_CONFIRM_PAIRS pairs. */
#define KFI_MS_NOISE 0.03
#define KFI_MS_CONFIRM_PAIRS 7
#define KFI_MS_CONFIRM_WINS 5
int kfi_measure_confirmed(const double *ratio, int n);
#if KFI_HAS_OS
/* CLOCK_MONOTONIC in ns (kf_measure.c): what measuring and kf_stream.c time by. */
double kfi_now_ns(void);
#endif

#endif
