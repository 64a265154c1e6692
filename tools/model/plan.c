/*
** plan.c -- see plan.h.
**
** Chaining rule (the Keras models' depthwise layers). In the forward pass a
** DepthwiseConv2D layer L feeds a BatchNormalization, so in TF's backward
** order (the manifest's) that batch norm's gradient comes just before L's
** two gradients, and its x_backprop is the out_backprop of both
** DepthwiseConv2dNativeBackpropInput (instance L) and ...BackpropFilter
** (instance L/filter): one tensor, produced once, read twice. Chained only
** when all of these hold, else the input stays external: the batch-norm
** gradient is the nearest call before, with only L's own gradients between;
** its name starts with L's layer prefix (L up to its last '_' or '/':
** block_3_depthwise_BN, block7a_bn, expanded_conv_2/depthwise/BatchNorm);
** dtype and shape are equal. Everything else (forward activations, the
** pointwise convolutions' and activations' gradients) is external: the
** runner synthesizes it at the call that reads it, live for that call only.
**
** Lifetimes: an external input, the scratch and an output nothing in the
** step reads live for their call only (the gradients of weights, scale and
** offset go to the optimizer as they are made; the first layer's
** x_backprop has no reader); a chained output from its call to its last
** reader.
*/
#include <stdlib.h>
#include <string.h>

#include "plan.h"

/* Ops by their family (the generated op table's metadata), never by name. */
static int in_family(const kfm_run *r, const char *family) {
  const char *f = kf_op_family(r->op);
  return f && strcmp(f, family) == 0;
}

static int is_bn(const kfm_run *r) { return in_family(r, "bngrad"); }

static int is_dw(const kfm_run *r) { return in_family(r, "dwbpi") || in_family(r, "dwbpf"); }

static int input_named(const kfm_run *r, const char *name) {
  int j;
  for (j = 0; j < r->num_inputs; j++)
    if (strcmp(kf_op_input_name(r->op, j), name) == 0) return j;
  return -1;
}

static int output_named(const kfm_run *r, const char *name) {
  int j;
  for (j = 0; j < r->num_outputs; j++)
    if (strcmp(kf_op_output_name(r->op, j), name) == 0) return j;
  return -1;
}

static int same_desc(const kf_tensor_desc *a, const kf_tensor_desc *b) {
  int i;
  if (a->dtype != b->dtype || a->rank != b->rank) return 0;
  for (i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i]) return 0;
  return 1;
}

/* The layer of a depthwise gradient instance: its name less "/filter". */
static size_t layer_len(const char *name, const kfm_run *r) {
  size_t n = strlen(name);
  if (in_family(r, "dwbpf") && n > 7 &&
      strcmp(name + n - 7, "/filter") == 0)
    n -= 7;
  return n;
}

/* The call whose x_backprop is depthwise call i's out_backprop, or -1. */
static int producer_of(const kfm_run *d, int i) {
  const char *name = kfm_instances[i].name;
  size_t len = layer_len(name, &d[i]), pre = len;
  int p, ob = input_named(&d[i], "out_backprop"), xb;
  if (ob < 0) return -1;
  for (p = i - 1; p >= 0; p--) { /* back over L's other gradient */
    const char *q = kfm_instances[p].name;
    if (!is_dw(&d[p])) break;
    if (layer_len(q, &d[p]) != len || strncmp(q, name, len) != 0) return -1;
  }
  if (p < 0 || !is_bn(&d[p]) || (xb = output_named(&d[p], "x_backprop")) < 0) return -1;
  while (pre > 0 && name[pre - 1] != '_' && name[pre - 1] != '/') pre--;
  if (pre == 0 || strncmp(kfm_instances[p].name, name, pre) != 0) return -1;
  if (!same_desc(d[p].out_desc[xb], &d[i].in_desc[ob])) return -1;
  return p;
}

static size_t bytes_of(const kf_tensor_desc *d) {
  size_t n = kf_dtype_size(d->dtype);
  int i;
  for (i = 0; i < d->rank; i++) n *= (size_t)d->dims[i];
  return n;
}

int kfm_plan_step(const kfm_run *d, int n, int allow_inplace, kfm_call_plan *calls, kfm_plan_report *rep) {
  int (*in_t)[KFM_MAX_IO] = calloc((size_t)n + 1, sizeof *in_t), (*out_t)[KFM_MAX_IO] = calloc((size_t)n + 1, sizeof *out_t);
  int *scr_t = calloc((size_t)n + 1, sizeof *scr_t), *order;
  kfm_tensor *t = calloc((size_t)n * (2 * KFM_MAX_IO + 1) + 1, sizeof *t);
  int i, j, nt = 0, a, b;
  if (!in_t || !out_t || !scr_t || !t) return -1;
  memset(rep, 0, sizeof *rep);
  for (i = 0; i < n; i++) {
    kfm_call_plan *c = &calls[i];
    int p = is_dw(&d[i]) ? producer_of(d, i) : -1, ob = input_named(&d[i], "out_backprop");
    memset(c, 0, sizeof *c);
    for (j = 0; j < KFM_MAX_IO; j++) c->from[j] = -1;
    for (j = 0; j < d[i].num_inputs; j++) {
      if (p >= 0 && j == ob) { /* the producer's x_backprop: one tensor, live until here */
        int k = output_named(&d[p], "x_backprop");
        c->from[j] = (int16_t)p;
        c->from_out[j] = (uint8_t)k;
        in_t[i][j] = out_t[p][k];
        t[in_t[i][j]].last = i;
        rep->chained++;
        continue;
      }
      t[nt].bytes = bytes_of(&d[i].in_desc[j]);
      t[nt].first = t[nt].last = i;
      in_t[i][j] = nt++;
    }
    for (j = 0; j < d[i].num_outputs; j++) {
      int y = kf_op_output_in_place_of(d[i].op, j);
      /* In place where the op's spec allows it (in_place_of: the batch-norm
         gradients' x_backprop over y_backprop; kf_execute); the input must
         be external (read by no later call) and of the output's size. */
      if (allow_inplace && y >= 0 && y < d[i].num_inputs && c->from[y] < 0 &&
          same_desc(&d[i].in_desc[y], d[i].out_desc[j])) {
        out_t[i][j] = in_t[i][y];
        rep->inplace++;
        continue;
      }
      t[nt].bytes = bytes_of(d[i].out_desc[j]);
      t[nt].first = t[nt].last = i;
      out_t[i][j] = nt++;
    }
    t[nt].bytes = d[i].scratch_bytes;
    t[nt].first = t[nt].last = i;
    scr_t[i] = nt++;
  }
  order = malloc(((size_t)nt + 1) * sizeof *order);
  if (!order) return -1;
  rep->tensors = nt;
  rep->arena = kfm_arena_place(t, nt, order);
  rep->lower = kfm_arena_lower_bound(t, nt);
  rep->verify = kfm_arena_verify(t, nt, rep->arena, &a, &b);
  {
    size_t best = 0;
    for (i = 0; i < n; i++) { /* where the lower bound is reached */
      size_t live = 0;
      for (j = 0; j < nt; j++)
        if (t[j].first <= i && i <= t[j].last) live += (t[j].bytes + KFM_ALIGN - 1) & ~(size_t)(KFM_ALIGN - 1);
      if (live > best) { best = live; rep->peak_call = i; }
    }
  }
  for (i = 0; i < n; i++) {
    for (j = 0; j < d[i].num_inputs; j++) calls[i].in_off[j] = (uint32_t)t[in_t[i][j]].off;
    for (j = 0; j < d[i].num_outputs; j++) calls[i].out_off[j] = (uint32_t)t[out_t[i][j]].off;
    calls[i].scratch_off = (uint32_t)t[scr_t[i]].off;
  }
  free(order);
  free(t);
  free(scr_t);
  free(out_t);
  free(in_t);
  return 0;
}

static void ints(FILE *f, const char *name, const uint32_t *v, int n) {
  int j;
  fprintf(f, " .%s = {", name);
  for (j = 0; j < n; j++) fprintf(f, "%s%lu", j ? ", " : " ", (unsigned long)v[j]);
  fprintf(f, " },");
}

void kfm_write_step(FILE *f, const kfm_call_plan *calls, int n, size_t arena_bytes) {
  int i, j;
  fprintf(f, "/* kfm_step.c -- the training step of model %s (target %s) as planned by the host check\n"
             "   (tools/model/plan.c): arena offsets and chained inputs per call. Generated; do not edit. */\n"
             "#include \"step.h\"\n\nstatic const kfm_call_plan calls[] = {\n", kfm_model_name, kfm_target_name);
  for (i = 0; i < n; i++) {
    fprintf(f, "  { /* %d %s */", i, kfm_instances[i].name);
    ints(f, "in_off", calls[i].in_off, KFM_MAX_IO);
    ints(f, "out_off", calls[i].out_off, KFM_MAX_IO);
    fprintf(f, " .scratch_off = %lu, .from = {", (unsigned long)calls[i].scratch_off);
    for (j = 0; j < KFM_MAX_IO; j++) fprintf(f, "%s%d", j ? ", " : " ", calls[i].from[j]);
    fprintf(f, " }, .from_out = {");
    for (j = 0; j < KFM_MAX_IO; j++) fprintf(f, "%s%d", j ? ", " : " ", calls[i].from_out[j]);
    fprintf(f, " } },\n");
  }
  fprintf(f, "};\n\nconst kfm_step kfm_step_plan = { calls, %luu };\n", (unsigned long)arena_bytes);
}
