/*
** runner.c -- see runner.h. Inputs come from a fixed xorshift stream per
** instance, so the host and a microcontroller feed every kernel the same
** bits; each input in the range its op spec gives (variances positive), else [-1, 1).
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

/* Bump allocation, 16-byte aligned; NULL when the arena is full. */
static void *take(const kfm_env *env, size_t *used, size_t bytes) {
  size_t at = (*used + 15u) & ~(size_t)15u;
  if (at > env->arena_bytes || bytes > env->arena_bytes - at) {
    *used = at + bytes; /* still count what would be needed */
    return NULL;
  }
  *used = at + bytes;
  return env->arena + at;
}

kf_status kfm_run_instance(int i, const kfm_env *env, kfm_run *r) {
  const kfm_instance *inst = &kfm_instances[i];
  kf_plan plan;
  uint64_t seed = 0x9E3779B97F4A7C15ull * (uint64_t)(i + 1), h = 1469598103934665603ull;
  size_t used = 0, k;
  int j, short_arena = 0;
  void *scratch;
  uint32_t t0 = 0;

  memset(r, 0, sizeof *r);
  r->op = kf_op_from_name(inst->op);
  kf_attrs_init(r->op, &r->attrs);
  for (j = 0; j < inst->num_attrs; j++)
    if ((r->status = kf_attrs_set(r->op, &r->attrs, inst->attrs[j].name, inst->attrs[j].value, &r->err)) != KF_OK)
      return r->status;
  r->num_inputs = inst->num_inputs;
  for (j = 0; j < inst->num_inputs && j < KFM_MAX_IO; j++) {
    kf_tensor_desc *d = &r->in_desc[j];
    memset(d, 0, sizeof *d);
    d->dtype = inst->inputs[j].dtype;
    d->rank = inst->inputs[j].rank;
    memcpy(d->dims, inst->inputs[j].dims, sizeof d->dims);
    d->host_data = inst->inputs[j].values;
  }
  r->status = kf_plan_op(&plan, r->op, &r->attrs, r->in_desc, inst->num_inputs, NULL, &r->err);
  if (r->status != KF_OK) return r->status;
  r->kernel = kf_plan_kernel_name(&plan);
  r->kernel_ok = own_kernel(&plan);
  for (j = 0; j < inst->num_inputs; j++) {
    int64_t n = count(&r->in_desc[j]);
    void *b = take(env, &used, (size_t)n * kf_dtype_size(r->in_desc[j].dtype));
    if (!b) { short_arena = 1; continue; }
    fill(&inst->inputs[j], b, n, &seed);
    r->in[j] = b;
  }
  r->num_outputs = kf_plan_num_outputs(&plan);
  for (j = 0; j < r->num_outputs && j < KFM_MAX_IO; j++) {
    r->out_descs[j] = *kf_plan_output_desc(&plan, j);
    r->out_desc[j] = &r->out_descs[j];
    r->out[j] = take(env, &used, (size_t)count(r->out_desc[j]) * kf_dtype_size(r->out_desc[j]->dtype));
    if (!r->out[j]) short_arena = 1;
  }
  r->scratch_bytes = kf_plan_scratch_bytes(&plan);
  scratch = take(env, &used, r->scratch_bytes);
  r->arena_used = used;
  if (short_arena || (r->scratch_bytes && !scratch)) {
    r->status = KF_SCRATCH_TOO_SMALL;
    r->err.status = r->status;
    r->err.rule = "model.arena";
    memcpy(r->err.message, "the model arena is too small for this instance", 47);
    return r->status;
  }
  if (env->ticks) t0 = env->ticks();
  r->status = kf_execute(&plan, r->in, r->out, scratch, r->scratch_bytes, &r->err);
  if (env->ticks) r->ticks = env->ticks() - t0;
  if (r->status != KF_OK) return r->status;
  for (j = 0; j < r->num_outputs; j++) {
    const unsigned char *p = (const unsigned char *)r->out[j];
    size_t n = (size_t)count(r->out_desc[j]) * kf_dtype_size(r->out_desc[j]->dtype);
    for (k = 0; k < n; k++) h = (h ^ p[k]) * 1099511628211ull;
  }
  r->hash = h;
  return KF_OK;
}
