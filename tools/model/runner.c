/*
** runner.c -- see runner.h. Inputs come from a fixed xorshift stream per
** instance, so the host and a microcontroller feed every kernel the same
** bits; each input in the range its op spec gives (variances positive), else [-1, 1).
** In a step only external inputs are drawn (in order); chained ones are
** already in the arena.
*/
#include <string.h>

#include "runner.h"

static uint64_t next(uint64_t *s) {
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 0x2545F4914F6CDD1Dull;
}

/* Uniform in [lo, hi), exactly representable in float (24 random bits). */
static float uniform(uint64_t *s, float lo, float hi) {
  return lo + (hi - lo) * (float)(next(s) >> 40) * (1.0f / 16777216.0f);
}

static void fill(const kfm_input *d, void *buf, int64_t n, uint64_t *s) {
  int64_t i;
  for (i = 0; i < n; i++) {
    float v = uniform(s, d->lo, d->hi);
    switch (d->dtype) {
      case KF_HALF: ((uint16_t *)buf)[i] = kf_float_to_half(v); break;
      case KF_BFLOAT16: ((uint16_t *)buf)[i] = kf_float_to_bfloat16(v); break;
      case KF_FLOAT: ((float *)buf)[i] = v; break;
      case KF_DOUBLE: ((double *)buf)[i] = v; break;
      case KF_INT32: ((int32_t *)buf)[i] = d->values ? d->values[i] : 0; break;
      default: break;
    }
  }
}

/* Whether kernel k serves key (each axis equal, or "*" in the kernel). */
static int serves(const kf_kernel_info *k, const kf_kernel_info *key) {
  int a;
  if (strcmp(k->family, key->family) != 0 || k->num_keys != key->num_keys) return 0;
  for (a = 0; a < k->num_keys; a++)
    if (strcmp(k->key_value[a], "*") != 0 && strcmp(k->key_value[a], key->key_value[a]) != 0) return 0;
  return 1;
}

/* Whether the plan runs the instance's own kernel, from the kernels'
   metadata: one that serves the call's key (kf_plan_key), and a
   specialization whenever the set has one for that key (the generator put
   it there for this instance); a generic kernel only where none does. */
static int own_kernel(const kf_plan *plan) {
  kf_kernel_info key, k;
  int i, n = kf_kernel_count();
  if (kf_plan_key(plan, &key) != KF_OK || kf_kernel_info_of(kf_plan_kernel_index(plan), &k) != KF_OK) return 0;
  if (!serves(&k, &key)) return 0;
  if (!k.generic) return 1;
  for (i = 0; i < n; i++)
    if (kf_kernel_info_of(i, &k) == KF_OK && !k.generic && serves(&k, &key)) return 0;
  return 1;
}

static int64_t count(const kf_tensor_desc *d) {
  int64_t n = 1;
  int i;
  for (i = 0; i < d->rank; i++) n *= d->dims[i];
  return n;
}

static size_t bytes_of(const kf_tensor_desc *d) { return (size_t)count(d) * kf_dtype_size(d->dtype); }

static size_t up16(size_t v) { return (v + 15u) & ~(size_t)15u; }

/* Sets up the call and plans it into *plan. */
static kf_status prepare(int i, kfm_run *r, kf_plan *plan) {
  const kfm_instance *inst = &kfm_instances[i];
  int j;
  memset(r, 0, sizeof *r);
  r->op = kf_op_from_name(inst->op);
  kf_attrs_init(r->op, &r->attrs);
  for (j = 0; j < inst->num_attrs; j++)
    if ((r->status = kf_attrs_set(r->op, &r->attrs, inst->attrs[j].name, inst->attrs[j].value, &r->err)) != KF_OK)
      return r->status;
  if (inst->num_inputs > KFM_MAX_IO) {
    r->status = r->err.status = KF_INVALID_ARGUMENT;
    r->err.rule = "model.io";
    memcpy(r->err.message, "more inputs than KFM_MAX_IO", 28);
    return r->status;
  }
  r->num_inputs = inst->num_inputs;
  for (j = 0; j < inst->num_inputs; j++) {
    kf_tensor_desc *d = &r->in_desc[j];
    memset(d, 0, sizeof *d);
    d->dtype = inst->inputs[j].dtype;
    d->rank = inst->inputs[j].rank;
    memcpy(d->dims, inst->inputs[j].dims, sizeof d->dims);
    d->host_data = inst->inputs[j].values;
  }
  r->status = kf_plan_op(plan, r->op, &r->attrs, r->in_desc, inst->num_inputs, NULL, &r->err);
  if (r->status != KF_OK) return r->status;
  r->kernel = kf_plan_kernel_name(plan);
  r->kernel_ok = own_kernel(plan);
  r->num_outputs = kf_plan_num_outputs(plan);
  if (r->num_outputs > KFM_MAX_IO) r->num_outputs = KFM_MAX_IO;
  for (j = 0; j < r->num_outputs; j++) {
    r->out_descs[j] = *kf_plan_output_desc(plan, j);
    r->out_desc[j] = &r->out_descs[j];
  }
  r->scratch_bytes = kf_plan_scratch_bytes(plan);
  for (j = 0; j < r->num_inputs; j++) r->arena_used = up16(r->arena_used) + bytes_of(&r->in_desc[j]);
  for (j = 0; j < r->num_outputs; j++) r->arena_used = up16(r->arena_used) + bytes_of(r->out_desc[j]);
  r->arena_used = up16(r->arena_used) + r->scratch_bytes;
  return KF_OK;
}

kf_status kfm_describe(int i, kfm_run *r) {
  kf_plan plan;
  return prepare(i, r, &plan);
}

/* The buffer at off of the given bytes, or NULL past the arena's end. */
static void *at(const kfm_env *env, size_t off, size_t bytes) {
  if (off > env->arena_bytes || bytes > env->arena_bytes - off) return NULL;
  return env->arena + off;
}

kf_status kfm_run_instance(int i, const kfm_env *env, kfm_run *r) {
  const kfm_instance *inst = &kfm_instances[i];
  const kfm_call_plan *cp = env->step ? &env->step->calls[i] : NULL;
  kf_plan plan;
  uint64_t seed = 0x9E3779B97F4A7C15ull * (uint64_t)(i + 1), h = 1469598103934665603ull;
  size_t used = 0, k;
  int j, short_arena = 0;
  void *scratch;
  uint32_t t0 = 0;

  if (prepare(i, r, &plan) != KF_OK) return r->status;
  /* Alone: inputs, outputs, scratch bumped from the start. In a step: at
     the planned offsets; a chained input is already there. */
  for (j = 0; j < inst->num_inputs; j++) {
    size_t n = bytes_of(&r->in_desc[j]);
    void *b = at(env, cp ? cp->in_off[j] : up16(used), n);
    used = up16(used) + n;
    if (!b) { short_arena = 1; continue; }
    if (!cp || cp->from[j] < 0) fill(&inst->inputs[j], b, count(&r->in_desc[j]), &seed);
    r->in[j] = b;
  }
  for (j = 0; j < r->num_outputs; j++) {
    size_t n = bytes_of(r->out_desc[j]);
    r->out[j] = at(env, cp ? cp->out_off[j] : up16(used), n);
    used = up16(used) + n;
    if (!r->out[j]) short_arena = 1;
  }
  scratch = at(env, cp ? cp->scratch_off : up16(used), r->scratch_bytes);
  if (short_arena || (r->scratch_bytes && !scratch)) {
    r->status = KF_SCRATCH_TOO_SMALL;
    r->err.status = r->status;
    r->err.rule = "model.arena";
    memcpy(r->err.message, "the model arena is too small for this instance", 47);
    return r->status;
  }
  if (env->before) env->before(env->ctx, r);
  if (env->ticks) t0 = env->ticks();
  r->status = kf_execute(&plan, r->in, r->out, scratch, r->scratch_bytes, &r->err);
  if (env->ticks) r->ticks = env->ticks() - t0;
  if (r->status != KF_OK) return r->status;
  for (j = 0; j < r->num_outputs; j++) {
    const unsigned char *p = (const unsigned char *)r->out[j];
    size_t n = bytes_of(r->out_desc[j]);
    for (k = 0; k < n; k++) h = (h ^ p[k]) * 1099511628211ull;
  }
  r->hash = h;
  return KF_OK;
}
