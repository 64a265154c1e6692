/*
** test_nofallback.c -- linked against a per-model set built with
** --no-fallback (kws_dscnn): the model's own calls plan, and a call outside
** the set fails with KF_NO_KERNEL and a message naming its configuration.
*/
#include <stdio.h>
#include <string.h>

#include "kforge.h"

static int passed, failed;

static void check(int ok, const char *what, const char *detail) {
  if (ok) passed++; else failed++;
  printf("%s - %s%s%s\n", ok ? "ok" : "FAIL", what, ok ? "" : ": ", ok ? "" : detail);
}

static kf_status plan_dw(int k, kf_error *err, kf_plan *p) {
  static const int32_t sizes[4] = { 1, 25, 5, 64 };
  kf_attrs a;
  kf_tensor_desc in[3];
  memset(in, 0, sizeof in);
  kf_attrs_init(KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT, &a);
  kf_attrs_set(KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT, &a, "strides", "1,1,1,1", err);
  kf_attrs_set(KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT, &a, "padding", "SAME", err);
  in[0].dtype = KF_INT32; in[0].rank = 1; in[0].dims[0] = 4; in[0].host_data = sizes;
  in[1].dtype = KF_FLOAT; in[1].rank = 4; in[1].dims[0] = k; in[1].dims[1] = k; in[1].dims[2] = 64; in[1].dims[3] = 1;
  in[2].dtype = KF_FLOAT; in[2].rank = 4; in[2].dims[0] = 1; in[2].dims[1] = 25; in[2].dims[2] = 5; in[2].dims[3] = 64;
  return kf_plan_op(p, KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT, &a, in, 3, NULL, err);
}

/* The value of key axis `axis` of a kernel (its registry metadata), "" if none. */
static const char *key_of(const kf_kernel_info *k, const char *axis) {
  int a;
  for (a = 0; a < k->num_keys; a++)
    if (strcmp(k->key_name[a], axis) == 0) return k->key_value[a];
  return "";
}

int main(void) {
  kf_error err = {0};
  kf_plan p;
  kf_kernel_info k;
  int i, j, generic = 0, special = 0, one_each = 1, fams = 0;
  /* kws_dscnn (host-scalar) makes one configuration per op family it
     calls (batch norm, depthwise input and filter gradients): one kernel
     per family, none generic */
  for (i = 0; i < kf_kernel_count(); i++) {
    kf_kernel_info o;
    int first = 1;
    generic |= kf_kernel_info_of(i, &k) != KF_OK || k.generic;
    for (j = 0; j < kf_kernel_count(); j++)
      if (j != i && kf_kernel_info_of(j, &o) == KF_OK && strcmp(o.family, k.family) == 0) {
        one_each = 0;
        if (j < i) first = 0;
      }
    fams += first;
  }
  check(kf_kernel_count() == fams && one_each && fams == kf_family_count() && !generic,
        "the no-fallback set holds one specialization per op family of the model and no generic kernel", "");
  memset(&err, 0, sizeof err);
  if (plan_dw(3, &err, &p) == KF_OK && kf_kernel_info_of(kf_plan_kernel_index(&p), &k) == KF_OK)
    special = !k.generic && strcmp(key_of(&k, "kh"), "3") == 0 && strcmp(key_of(&k, "kw"), "3") == 0 &&
              strcmp(key_of(&k, "sh"), "1") == 0 && strcmp(key_of(&k, "sw"), "1") == 0;
  check(special,
        "the model's own depthwise call plans with its specialization", err.message);
  memset(&err, 0, sizeof err);
  check(plan_dw(5, &err, &p) == KF_NO_KERNEL && strcmp(err.rule, "kernel.none") == 0 &&
            strstr(err.message, "no kernel in this kernel set serves dwbpi T=f32 layout=nhwc kh=5 kw=5 sh=1 sw=1") != NULL,
        "a 5x5 call outside the set fails naming its configuration", err.message);
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
