/*
** kf_plan.c -- planning (validate + select once) and execution (run many
** times) for every op; kernel selection from the generated registry.
*/
#include <string.h>

#include "kfi.h"

_Static_assert(sizeof(kfi_plan) <= sizeof(((kf_plan *)0)->u.bytes), "kf_plan too small for kfi_plan");

static int key_matches(const kfi_kernel *k, const int32_t *key, int len) {
  int i;
  for (i = 0; i < len; i++)
    if (k->key[i] != KFI_ANY && k->key[i] != key[i]) return 0;
  return 1;
}

/* "T=f16 layout=nchw mode=infer": names a key for messages. */
static void key_str(int family, const int32_t *key, char *buf, size_t n) {
  const kfi_family_def *f = &kfg_families[family];
  size_t k = 0;
  int i, j;
  buf[0] = 0;
  for (i = 0; i < f->num_axes && k < n; i++) {
    const char *tag = NULL;
    int w;
    for (j = 0; j < f->axes[i].num_values; j++)
      if (f->axes[i].values[j].c == key[i]) tag = f->axes[i].values[j].tag;
    w = tag ? kfi_format(buf + k, n - k, "%s%s=%s", i ? " " : "", f->axes[i].name, tag)
            : kfi_format(buf + k, n - k, "%s%s=%ld", i ? " " : "", f->axes[i].name, (long)key[i]);
    if (w < 0) break;
    k += (size_t)w;
  }
}

const kfi_kernel *kfi_select(int family, const int32_t *key, const kf_plan_options *opt, kf_error *err) {
  const kfi_family_def *f = &kfg_families[family];
  const unsigned isas = kf_cpu_isas() & (opt && opt->isas ? opt->isas : ~0u);
  char cfg[200];
  int i;
  for (i = 0; i < kf_kernel_count(); i++) {
    const kfi_kernel *k = &kfg_registry[i];
    if (k->family != family) continue;
    if (opt && opt->kernel) {
      if (strcmp(opt->kernel, k->name) != 0) continue;
      if (!(k->isa & isas)) {
        kfi_fail(err, KF_NO_KERNEL, "kernel.isa", "kernel %s needs ISA %s, which is not available here", k->name,
                 kf_isa_name(k->isa));
        return NULL;
      }
      if (key_matches(k, key, f->num_axes)) return k;
      key_str(family, key, cfg, sizeof cfg);
      kfi_fail(err, KF_NO_KERNEL, "kernel.mismatch", "kernel %s does not serve %s %s", k->name, f->name, cfg);
      return NULL;
    }
    if (opt && opt->generic_only && !k->generic) continue;
    if (!(k->isa & isas)) continue;
    if (key_matches(k, key, f->num_axes)) return k;
  }
  key_str(family, key, cfg, sizeof cfg);
  if (opt && opt->kernel)
    kfi_fail(err, KF_NO_KERNEL, "kernel.unknown", "no kernel named %.60s in this kernel set", opt->kernel);
  else
    kfi_fail(err, KF_NO_KERNEL, "kernel.none", "no kernel in this kernel set serves %s %s", f->name, cfg);
  return NULL;
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
  switch (od->family) {
    case KFG_FAMILY_BNGRAD: st = kfi_plan_bngrad(p, op, attrs, inputs, opt, err); break;
    case KFG_FAMILY_DWBPI: st = kfi_plan_dwbpi(p, op, attrs, inputs, opt, err); break;
    default: st = kfi_fail(err, KF_UNIMPLEMENTED, "op.family", "no planner for %s", od->name); break;
  }
  if (st == KF_OK) p->magic = KFI_PLAN_MAGIC;
  return st;
}

static const kfi_plan *valid(const kf_plan *plan) {
  const kfi_plan *p = plan ? (const kfi_plan *)(const void *)plan->u.bytes : NULL;
  return p && p->magic == KFI_PLAN_MAGIC ? p : NULL;
}

int kf_plan_num_outputs(const kf_plan *plan) {
  const kfi_plan *p = valid(plan);
  return p ? p->num_outputs : 0;
}

const kf_tensor_desc *kf_plan_output_desc(const kf_plan *plan, int i) {
  const kfi_plan *p = valid(plan);
  return p && i >= 0 && i < p->num_outputs ? &p->outputs[i] : NULL;
}

size_t kf_plan_scratch_bytes(const kf_plan *plan) {
  const kfi_plan *p = valid(plan);
  return p ? p->scratch_bytes : 0;
}

const char *kf_plan_kernel_name(const kf_plan *plan) {
  const kfi_plan *p = valid(plan);
  if (!p) return NULL;
  return p->kernel ? p->kernel->name : "none (empty output)";
}

/* Stand-ins for NULL buffers of 0 elements (never accessed: no races). */
typedef union kfi_dummy { long double ld; double d; int64_t i; void *p; } kfi_dummy;
static const kfi_dummy dummy_in;
static kfi_dummy dummy_out[KFI_MAX_OUTPUTS];

kf_status kf_execute(const kf_plan *plan, const void *const *inputs, void *const *outputs, void *scratch,
                     size_t scratch_bytes, kf_error *err) {
  const kfi_plan *p = valid(plan);
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
  switch (od->family) {
    case KFG_FAMILY_BNGRAD: return kfi_exec_bngrad(p, in, out, scratch, err);
    case KFG_FAMILY_DWBPI: return kfi_exec_dwbpi(p, in, out, scratch, err);
    default: return kfi_fail(err, KF_UNIMPLEMENTED, "op.family", "no executor for %s", od->name);
  }
}
