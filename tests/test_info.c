/*
** test_info.c -- the open runtime's metadata: every kernel's family, ISA,
** genericity and key as data (kf_kernel_info_of), a planned call's key
** (kf_plan_key) and kernel (kf_plan_kernel_index), families and ops, the
** generated attribute table (kf_attrs_set / kf_attrs_init) and kf_run_op.
** Checked against each other and against the specs' axes, never against a
** kernel's name.
*/
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "kforge.h"

static int family_index(const char *name) {
  int i;
  for (i = 0; i < kf_family_count(); i++)
    if (strcmp(kf_family_name(i), name) == 0) return i;
  return -1;
}

/* A kernel's key serves a call's key: each slot equal or "*". */
static int serves(const kf_kernel_info *k, const kf_kernel_info *call) {
  int i;
  if (strcmp(k->family, call->family) != 0 || k->num_keys != call->num_keys) return 0;
  for (i = 0; i < k->num_keys; i++)
    if (strcmp(k->key_value[i], "*") != 0 && strcmp(k->key_value[i], call->key_value[i]) != 0) return 0;
  return 1;
}

static void kernels(void) {
  int i, n = kf_kernel_count(), generics = 0;
  kf_kernel_info k;
  th_check(kf_kernel_info_of(-1, &k) != KF_OK, "kf_kernel_info_of(-1) fails");
  th_check(kf_kernel_info_of(n, &k) != KF_OK, "kf_kernel_info_of(count) fails");
  th_check(kf_kernel_lanes(n) == 0 && kf_kernel_block(n, "W") == 0 && kf_kernel_block(0, NULL) == 0,
           "lanes and blocks: 0 past the end");
  for (i = 0; i < n; i++) {
    int j, isa_bits = 0;
    if (!th_check(kf_kernel_info_of(i, &k) == KF_OK, "kernel %d: info", i)) continue;
    th_check(k.name && strcmp(k.name, kf_kernel_name(i)) == 0, "kernel %d: name", i);
    th_check(k.config && strcmp(k.config, kf_kernel_config(i)) == 0, "kernel %d: config", i);
    th_check(family_index(k.family) >= 0, "kernel %s: family %s is a known family", k.name, k.family);
    for (j = 0; j < 4; j++) isa_bits += (k.isa >> j) & 1u;
    th_check(isa_bits == 1 && k.isa <= KF_ISA_AVX512, "kernel %s: one ISA bit (%u)", k.name, k.isa);
    th_check(k.num_keys > 0 && k.num_keys <= KF_MAX_KEY, "kernel %s: %d keys", k.name, k.num_keys);
    for (j = 0; j < k.num_keys; j++)
      th_check(k.key_name[j] && k.key_value[j][0], "kernel %s: key %d named and valued", k.name, j);
    /* vector length: 1 for scalar kernels, more for the SIMD ISAs' */
    th_check(k.isa == KF_ISA_SCALAR ? kf_kernel_lanes(i) == 1 : kf_kernel_lanes(i) >= 2, "kernel %s: %d lanes (%s)",
             k.name, kf_kernel_lanes(i), kf_isa_name(k.isa));
    if (strcmp(k.family, "dwbpi") == 0) /* its spec's blocks: W = PIX */
      th_check(kf_kernel_block(i, "W") >= 1 && kf_kernel_block(i, "H") == 0, "kernel %s: W block %d", k.name,
               kf_kernel_block(i, "W"));
    if (k.generic) {
      generics++;
      /* a generic kernel is specialized on the dtype at most */
      for (j = 1; j < k.num_keys; j++)
        th_check(strcmp(k.key_value[j], "*") == 0, "generic %s: key %s is *", k.name, k.key_name[j]);
    }
  }
  th_check(generics > 0, "the kernel set has generic kernels (%d)", generics);
}

static void families_and_ops(void) {
  int op;
  th_check(kf_family_count() >= 2, "families: %d", kf_family_count());
  th_check(kf_family_name(-1) == NULL && kf_family_name(kf_family_count()) == NULL, "family index bounds");
  th_check(kf_op_family(KF_OP_INVALID) == NULL, "no family for KF_OP_INVALID");
  for (op = 1; op < KF_OP_COUNT; op++) {
    const char *f = kf_op_family((kf_op)op);
    th_check(f && family_index(f) >= 0, "op %s has a family (%s)", kf_op_name((kf_op)op), f ? f : "NULL");
    th_check(kf_op_from_name(kf_op_name((kf_op)op)) == (kf_op)op, "op %d round-trips by name", op);
  }
}

/* A depthwise input-gradient call: its key names its configuration, the
   selected kernel serves it, and forcing the generic kernel changes the
   kernel but not the key. */
static void call_key(void) {
  const kf_op op = kf_op_from_name("DepthwiseConv2dNativeBackpropInput");
  kf_attrs a;
  kf_tensor_desc in[3];
  kf_plan plan;
  kf_plan_options o;
  kf_kernel_info key, kern, key2;
  kf_error e = {0};
  const int32_t sizes[4] = { 2, 9, 7, 5 };
  int idx, j;
  kf_attrs_init(op, &a);
  th_check(a.num_strides == -1 && a.padding == KF_PADDING_INVALID, "required attrs start unset");
  th_check(a.num_dilations == 4 && a.dilations[1] == 1 && a.data_format == KF_NHWC, "defaults applied");
  kf_attrs_set(op, &a, "strides", "1,2,1,1", NULL);
  kf_attrs_set(op, &a, "padding", "SAME", NULL);
  th_check(a.num_strides == 4 && a.strides[1] == 2 && a.padding == KF_SAME, "attrs set through the table");
  memset(in, 0, sizeof in);
  in[0].dtype = KF_INT32; in[0].rank = 1; in[0].dims[0] = 4; in[0].host_data = sizes;
  in[1].dtype = KF_FLOAT; in[1].rank = 4; in[1].dims[0] = 3; in[1].dims[1] = 3; in[1].dims[2] = 5; in[1].dims[3] = 1;
  in[2].dtype = KF_FLOAT; in[2].rank = 4; in[2].dims[0] = 2; in[2].dims[1] = 5; in[2].dims[2] = 7; in[2].dims[3] = 5;
  if (!th_check(kf_plan_op(&plan, op, &a, in, 3, NULL, &e) == KF_OK, "plan: %s", e.message)) return;
  th_check(kf_plan_key(&plan, &key) == KF_OK, "call key");
  th_check(strcmp(key.family, "dwbpi") == 0 && key.name == NULL && key.isa == 0, "call key: family, no kernel");
  for (j = 0; j < key.num_keys; j++) {
    const char *want = NULL;
    if (strcmp(key.key_name[j], "T") == 0) want = "f32";
    if (strcmp(key.key_name[j], "layout") == 0) want = "nhwc";
    if (strcmp(key.key_name[j], "sh") == 0) want = "2";
    if (strcmp(key.key_name[j], "sw") == 0) want = "1";
    if (strcmp(key.key_name[j], "kh") == 0) want = "3";
    if (want) th_check(strcmp(key.key_value[j], want) == 0, "call key %s = %s (got %s)", key.key_name[j], want,
                       key.key_value[j]);
  }
  idx = kf_plan_kernel_index(&plan);
  th_check(idx >= 0 && kf_kernel_info_of(idx, &kern) == KF_OK && serves(&kern, &key),
           "the selected kernel serves the call's key");
  memset(&o, 0, sizeof o);
  o.generic_only = 1;
  if (th_check(kf_plan_op(&plan, op, &a, in, 3, &o, &e) == KF_OK, "generic plan: %s", e.message)) {
    idx = kf_plan_kernel_index(&plan);
    th_check(idx >= 0 && kf_kernel_info_of(idx, &kern) == KF_OK && kern.generic, "generic_only gives a generic kernel");
    th_check(kf_plan_key(&plan, &key2) == KF_OK && memcmp(key.key_value, key2.key_value, sizeof key.key_value) == 0,
             "the call's key does not depend on the kernel");
  }
  /* an empty output: no kernel, no key */
  {
    const int32_t empty[4] = { 0, 9, 7, 5 };
    in[0].host_data = empty;
    in[2].dims[0] = 0;
    th_check(kf_plan_op(&plan, op, &a, in, 3, NULL, &e) == KF_OK, "empty plan");
    th_check(kf_plan_kernel_index(&plan) == -1 && kf_plan_key(&plan, &key) != KF_OK, "empty output: no kernel, no key");
  }
  th_check(kf_plan_kernel_index(NULL) == -1 && kf_plan_key(NULL, &key) != KF_OK, "NULL plan");
}

/* kf_run_op equals plan + execute (FusedBatchNormGradV3, inference). */
static void run_op(void) {
  const kf_op op = kf_op_from_name("FusedBatchNormGradV3");
  float dy[8], x[8], scale[2] = { 1.5f, -2.0f }, mean[2] = { 0.25f, -1.0f }, var[2] = { 4.0f, 0.5f }, rs3[1] = { 0 };
  float dx[8], ds[2], dof[2], dx2[8], ds2[2], dof2[2];
  static unsigned char scratch[1 << 16];
  const void *ins[6] = { dy, x, scale, mean, var, rs3 };
  void *outs[5] = { dx, ds, dof, NULL, NULL }, *outs2[5] = { dx2, ds2, dof2, NULL, NULL };
  kf_tensor_desc in[6];
  kf_attrs a;
  kf_plan plan;
  kf_error e = {0};
  int i;
  for (i = 0; i < 8; i++) { dy[i] = (float)(i % 3) - 0.5f; x[i] = (float)i * 0.25f; }
  kf_attrs_init(op, &a);
  th_check(kf_attrs_set(op, &a, "is_training", "false", &e) == KF_OK && a.is_training == 0, "is_training=false");
  th_check(kf_attrs_set(op, &a, "epsilon", "0.001", &e) == KF_OK && a.epsilon == 0.001f, "epsilon");
  th_check(kf_attrs_set(op, &a, "U", "float", &e) == KF_OK, "U=float accepted (not stored)");
  {
    kf_attrs v1;
    kf_attrs_init(KF_OP_FUSED_BATCH_NORM_GRAD, &v1);
    th_check(kf_attrs_set(KF_OP_FUSED_BATCH_NORM_GRAD, &v1, "data_format", "NCDHW", &e) == KF_INVALID_ARGUMENT &&
             strstr(e.message, "not in the list of allowed values") != NULL && v1.data_format == KF_NHWC,
             "V1 refuses NCDHW and keeps NHWC: %s", e.message);
    th_check(kf_attrs_set(op, &a, "data_format", "NCHW", &e) == KF_OK && a.data_format == KF_NCHW, "V3 NCHW");
    th_check(kf_attrs_set(op, &a, "data_format", "NHWC", &e) == KF_OK && a.data_format == KF_NHWC, "V3 NHWC");
  }
  memset(in, 0, sizeof in);
  in[0].dtype = in[1].dtype = KF_FLOAT; in[0].rank = in[1].rank = 4;
  in[0].dims[0] = in[1].dims[0] = 1; in[0].dims[1] = in[1].dims[1] = 2;
  in[0].dims[2] = in[1].dims[2] = 2; in[0].dims[3] = in[1].dims[3] = 2;
  for (i = 2; i < 6; i++) { in[i].dtype = KF_FLOAT; in[i].rank = 1; in[i].dims[0] = i < 5 ? 2 : 1; }
  th_check(kf_run_op(op, &a, in, 6, ins, outs, scratch, sizeof scratch, &e) == KF_OK, "kf_run_op: %s", e.message);
  if (th_check(kf_plan_op(&plan, op, &a, in, 6, NULL, &e) == KF_OK, "plan") &&
      th_check(kf_plan_scratch_bytes(&plan) <= sizeof scratch, "scratch fits")) {
    if (kf_plan_scratch_bytes(&plan) > 0)
      th_check(kf_run_op(op, &a, in, 6, ins, outs, NULL, 0, &e) == KF_SCRATCH_TOO_SMALL, "kf_run_op checks scratch");
    th_check(kf_execute(&plan, ins, outs2, scratch, sizeof scratch, &e) == KF_OK, "execute");
    th_check(memcmp(dx, dx2, sizeof dx) == 0 && memcmp(ds, ds2, sizeof ds) == 0 && memcmp(dof, dof2, sizeof dof) == 0,
             "kf_run_op gives kf_execute's bits");
  }
  th_check(kf_run_op(KF_OP_INVALID, &a, in, 6, ins, outs, NULL, 0, &e) == KF_INVALID_ARGUMENT, "kf_run_op: bad op");
}

int main(void) {
  kernels();
  families_and_ops();
  call_key();
  run_op();
  return th_done();
}
