/*
** kf_plan.c -- planning (validate + select once) and execution (run many
** times) for every op: the checks every op shares, then the op's family
** planner or executor through the generated family table (kfg_families),
** so this file never names a family.
*/
#include <string.h>

#include "kfi.h"
#include "kfi_wisdom.h"

_Static_assert(sizeof(kfi_plan) <= sizeof(((kf_plan *)0)->u.bytes), "kf_plan too small for kfi_plan");

/* The rule's choices that follow where the caller's data sits: the
   streaming threshold (the family's "stream" choice, if it has one), the
   L2 for fresh outputs, else this CPU's warm threshold (kfi_stream_warm:
   measured on the first plan that gets here); and, for fresh outputs (a
   step whose data is far larger than the LLC), the choices of a call whose
   inputs come from DRAM too (kfi_choices_rule_cold). Set after the wisdom
   key, which hashes the planner's plan, the same in every process
   whatever the measurement decided and however the caller's buffers sit. */
void kfi_plan_rule_caches(kfi_plan *p, const kf_plan_options *opt) {
  int idx[KFI_MAX_CHOICES], m = kfi_family_choices(p->family, idx), i;
  kfi_caches c;
  for (i = 0; i < m; i++)
    if (strcmp(kfi_choices[idx[i]].name, "stream") == 0) {
      kfi_cpu_caches(&c);
      kfi_choice_set(p, &kfi_choices[idx[i]], opt && opt->fresh_outputs ? kfi_stream_bytes(&c, 1) : kfi_stream_warm(&c));
    }
  if (opt && opt->fresh_outputs) kfi_choices_rule_cold(p);
}

kf_status kf_plan_op(kf_plan *plan, kf_op op, const kf_attrs *attrs, const kf_tensor_desc *inputs,
                     int num_inputs, const kf_plan_options *opt, kf_error *err) {
  const kfi_op_def *od = kfi_op_def_of(op);
  kfi_plan *p;
  kf_status st;
  int i;
  if (!plan) return kfi_fail(err, KF_INVALID_ARGUMENT, "api.null", "plan must not be NULL");
  p = (kfi_plan *)(void *)plan->u.bytes;
  memset(p, 0, sizeof *p);
  if (!od) return kfi_fail(err, KF_INVALID_ARGUMENT, "op.unknown", "unknown op %d", (int)op);
  if (!attrs || !inputs) return kfi_fail(err, KF_INVALID_ARGUMENT, "api.null", "attrs and inputs must not be NULL");
  if (num_inputs != od->num_inputs)
    return kfi_fail(err, KF_INVALID_ARGUMENT, "op.num_inputs", "%s takes %d inputs, got %d", od->name,
                    od->num_inputs, num_inputs);
  for (i = 0; i < num_inputs; i++)
    if (inputs[i].rank < 0 || inputs[i].rank > KF_MAX_RANK)
      return kfi_fail(err, KF_INVALID_ARGUMENT, "input.rank", "input %s has rank %d, outside 0..%d",
                      od->inputs[i].name, inputs[i].rank, KF_MAX_RANK);
  for (i = 0; i < num_inputs; i++) {
    int j;
    for (j = 0; j < inputs[i].rank; j++)
      if (inputs[i].dims[j] < 0)
        return kfi_fail(err, KF_INVALID_ARGUMENT, "input.dims", "input %s has a negative dimension %lld",
                        od->inputs[i].name, (long long)inputs[i].dims[j]);
    /* A tensor of 0 elements may still carry a huge dim: refuse it too (planners
       multiply dims and rely on each being <= KF_MAX_ELEMENTS). */
    for (j = 0; j < inputs[i].rank; j++)
      if (inputs[i].dims[j] == 0) break;
    if (j < inputs[i].rank)
      for (j = 0; j < inputs[i].rank; j++)
        if (inputs[i].dims[j] > KF_MAX_ELEMENTS)
          return kfi_fail(err, KF_TOO_LARGE, "input.too_large",
                          "input %s has a dimension of %lld, above the supported maximum of %lld",
                          od->inputs[i].name, (long long)inputs[i].dims[j], (long long)KF_MAX_ELEMENTS);
    if (kfi_num_elements(&inputs[i]) < 0)
      return kfi_fail(err, KF_TOO_LARGE, "input.too_large",
                      "input %s has more elements than the supported maximum of %lld", od->inputs[i].name,
                      (long long)KF_MAX_ELEMENTS);
  }
  if ((st = kfi_check_isa_env(err)) != KF_OK) return st;
  if ((st = kfi_check_cache_env(err)) != KF_OK) return st;
  if ((st = kfi_check_stream_env(err)) != KF_OK) return st;
  if (num_inputs > KFI_MAX_INPUTS || od->num_outputs > KFI_MAX_OUTPUTS)
    return kfi_fail(err, KF_UNIMPLEMENTED, "op.family", "%s has too many inputs or outputs", od->name);
  p->op = op;
  p->num_inputs = num_inputs;
  for (i = 0; i < num_inputs; i++)
    p->input_may_be_null[i] = kfi_num_elements(&inputs[i]) == 0 || inputs[i].host_data != NULL;
  p->num_outputs = od->num_outputs;
  if (opt && opt->threads && opt->threads->parallel_for) {
    p->par.parallel_for = opt->threads->parallel_for;
    p->par.pool = opt->threads->pool;
    p->par.num_threads = opt->threads->num_threads > 0 ? opt->threads->num_threads : 1;
  }
  p->family = od->family;
  st = kfg_families[od->family].plan(p, od, attrs, inputs, opt, err);
  /* Wisdom or measuring may change what the rule chose, never a forced
     kernel. The rule's streaming threshold comes after the wisdom lookup
     (whose key is the planner's plan) and only where the rule stands: a
     wisdom entry chose its own, and a measurement starts from it
     (kfi_plan_choose sets it before measuring). */
  if (st == KF_OK && p->kernel && !(opt && opt->kernel)) st = kfi_plan_choose(p, inputs, opt, err);
  if (st == KF_OK && p->kernel && p->source == KF_PLAN_BY_RULE) kfi_plan_rule_caches(p, opt);
  if (st == KF_OK) p->magic = KFI_PLAN_MAGIC;
  else p->kernel = NULL;
  return st;
}

const kfi_plan *kfi_plan_of(const kf_plan *plan) {
  const kfi_plan *p = plan ? (const kfi_plan *)(const void *)plan->u.bytes : NULL;
  return p && p->magic == KFI_PLAN_MAGIC ? p : NULL;
}

int kf_plan_num_outputs(const kf_plan *plan) {
  const kfi_plan *p = kfi_plan_of(plan);
  return p ? p->num_outputs : 0;
}

const kf_tensor_desc *kf_plan_output_desc(const kf_plan *plan, int i) {
  const kfi_plan *p = kfi_plan_of(plan);
  return p && i >= 0 && i < p->num_outputs ? &p->outputs[i] : NULL;
}

size_t kf_plan_scratch_bytes(const kf_plan *plan) {
  const kfi_plan *p = kfi_plan_of(plan);
  return p ? p->scratch_bytes : 0;
}

const char *kf_plan_kernel_name(const kf_plan *plan) {
  const kfi_plan *p = kfi_plan_of(plan);
  if (!p) return NULL;
  return p->kernel ? p->kernel->name : "none (empty output)";
}

/* Stand-ins for NULL buffers of 0 elements (never accessed: no races). */
typedef union kfi_dummy { long double ld; double d; int64_t i; void *p; } kfi_dummy;
static const kfi_dummy dummy_in;
static kfi_dummy dummy_out[KFI_MAX_OUTPUTS];

kf_status kf_execute(const kf_plan *plan, const void *const *inputs, void *const *outputs, void *scratch,
                     size_t scratch_bytes, kf_error *err) {
  const kfi_plan *p = kfi_plan_of(plan);
  const kfi_op_def *od;
  const void *in[KFI_MAX_INPUTS];
  void *out[KFI_MAX_OUTPUTS];
  int i;
  if (!p) return kfi_fail(err, KF_INVALID_ARGUMENT, "api.plan", "the plan was not created by a successful kf_plan_op");
  od = kfi_op_def_of(p->op);
  if (!inputs || !outputs) return kfi_fail(err, KF_INVALID_ARGUMENT, "api.null", "inputs and outputs must not be NULL");
  if (p->kernel) {
    if (scratch_bytes < p->scratch_bytes || (p->scratch_bytes && !scratch))
      return kfi_fail(err, KF_SCRATCH_TOO_SMALL, "api.scratch", "%s needs %zu bytes of scratch, got %zu",
                      p->kernel->name, p->scratch_bytes, scratch ? scratch_bytes : (size_t)0);
  }
  for (i = 0; i < p->num_outputs; i++)
    if (!outputs[i] && kfi_num_elements(&p->outputs[i]) > 0)
      return kfi_fail(err, KF_INVALID_ARGUMENT, "api.null", "output %s must not be NULL", od->outputs[i].name);
  /* NULL is allowed for tensors of 0 elements (and inputs read at plan
     time); kernels index every buffer (even by 0), which C leaves undefined
     on NULL, so they see a dummy instead. Nothing reads or writes it. */
  for (i = 0; i < p->num_inputs; i++)
    in[i] = !inputs[i] && p->input_may_be_null[i] ? (const void *)&dummy_in : inputs[i];
  for (i = 0; i < p->num_outputs; i++)
    out[i] = !outputs[i] ? (void *)&dummy_out[i] : outputs[i];
  return kfg_families[p->family].exec(p, in, out, scratch, err);
}

kf_status kf_run_op(kf_op op, const kf_attrs *attrs, const kf_tensor_desc *descs, int num_inputs,
                    const void *const *inputs, void *const *outputs, void *scratch, size_t scratch_bytes,
                    kf_error *err) {
  kf_plan plan;
  kf_status st = kf_plan_op(&plan, op, attrs, descs, num_inputs, NULL, err);
  if (st != KF_OK) return st;
  return kf_execute(&plan, inputs, outputs, scratch, scratch_bytes, err);
}
