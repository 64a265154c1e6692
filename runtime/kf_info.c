/*
** kf_info.c -- the kernel set and the families as data for tools and
** tests: names, configs, and each kernel's (or a planned call's) place in
** its family's key space, from the generated registry and axis tables.
*/
#include <string.h>

#include "kfi.h"

int kf_kernel_count(void) { return kfg_registry_count; }

const char *kf_kernel_name(int i) { return i >= 0 && i < kfg_registry_count ? kfg_registry[i].name : NULL; }

const char *kf_kernel_config(int i) { return i >= 0 && i < kfg_registry_count ? kfg_registry[i].config : NULL; }

int kf_family_count(void) { return KFG_FAMILY_COUNT; }

const char *kf_family_name(int i) { return i >= 0 && i < KFG_FAMILY_COUNT ? kfg_families[i].name : NULL; }

const char *kf_op_family(kf_op op) {
  const kfi_op_def *od = kfi_op_def_of(op);
  return od ? kfg_families[od->family].name : NULL;
}

/* The axis values of a key in text: the axis's tag ("f32", "nhwc", "3"),
   "*" for a wildcard, the number for a value no axis lists. */
static void fill_key(int family, const int32_t *key, kf_kernel_info *info) {
  const kfi_family_def *f = &kfg_families[family];
  int i;
  info->family = f->name;
  info->num_keys = f->num_axes < KF_MAX_KEY ? f->num_axes : KF_MAX_KEY;
  for (i = 0; i < info->num_keys; i++) {
    const char *tag = key[i] == KFI_ANY ? "*" : kfi_axis_tag(&f->axes[i], key[i]);
    info->key_name[i] = f->axes[i].name;
    if (tag)
      kfi_format(info->key_value[i], sizeof info->key_value[i], "%s", tag);
    else
      kfi_format(info->key_value[i], sizeof info->key_value[i], "%ld", (long)key[i]);
  }
}

kf_status kf_kernel_info_of(int i, kf_kernel_info *info) {
  const kfi_kernel *k;
  if (!info) return KF_INVALID_ARGUMENT;
  memset(info, 0, sizeof *info);
  if (i < 0 || i >= kfg_registry_count) return KF_INVALID_ARGUMENT;
  k = &kfg_registry[i];
  info->name = k->name;
  info->config = k->config;
  info->isa = k->isa;
  info->generic = k->generic;
  fill_key(k->family, k->key, info);
  return KF_OK;
}

int kf_kernel_lanes(int i) { return i >= 0 && i < kfg_registry_count ? kfg_registry[i].lanes : 0; }

int kf_kernel_block(int i, const char *dim) {
  int b;
  if (i < 0 || i >= kfg_registry_count || !dim) return 0;
  for (b = 0; b < KFI_MAX_BLOCKS && kfg_registry[i].blocks[b].dim; b++)
    if (strcmp(kfg_registry[i].blocks[b].dim, dim) == 0) return kfg_registry[i].blocks[b].width;
  return 0;
}

int kf_plan_kernel_index(const kf_plan *plan) {
  const kfi_plan *p = kfi_plan_of(plan);
  return p && p->kernel ? (int)(p->kernel - kfg_registry) : -1;
}

kf_status kf_plan_key(const kf_plan *plan, kf_kernel_info *key) {
  const kfi_plan *p = kfi_plan_of(plan);
  if (!key) return KF_INVALID_ARGUMENT;
  memset(key, 0, sizeof *key);
  if (!p || !p->kernel) return KF_INVALID_ARGUMENT;
  fill_key(p->family, p->key, key);
  return KF_OK;
}
