/*
** kf_select.c -- kernel selection from the generated registry: below the
** family planners (which call it once their argument block is filled),
** above nothing but the tables. The registry is in selection order
** (kforge-gen: specialized before generic, higher ISA first).
*/
#include <string.h>

#include "kfi.h"

static int key_matches(const kfi_kernel *k, const int32_t *key, int len) {
  int i;
  for (i = 0; i < len; i++)
    if (k->key[i] != KFI_ANY && k->key[i] != key[i]) return 0;
  return 1;
}

const char *kfi_axis_tag(const kfi_axis_def *axis, int32_t v) {
  int j;
  for (j = 0; j < axis->num_values; j++)
    if (axis->values[j].c == v) return axis->values[j].tag;
  return NULL;
}

void kfi_key_str(int family, const int32_t *key, char *buf, size_t n) {
  const kfi_family_def *f = &kfg_families[family];
  size_t k = 0;
  int i;
  buf[0] = 0;
  for (i = 0; i < f->num_axes && k < n; i++) {
    const char *tag = kfi_axis_tag(&f->axes[i], key[i]);
    int w;
    w = tag ? kfi_format(buf + k, n - k, "%s%s=%s", i ? " " : "", f->axes[i].name, tag)
            : kfi_format(buf + k, n - k, "%s%s=%ld", i ? " " : "", f->axes[i].name, (long)key[i]);
    if (w < 0) break;
    k += (size_t)w;
  }
}

static const kfi_kernel *find(int family, const int32_t *key, const kf_plan_options *opt, kf_error *err) {
  const kfi_family_def *f = &kfg_families[family];
  const unsigned isas = kf_cpu_isas() & (opt && opt->isas ? opt->isas : ~0u);
  char cfg[200];
  int i;
  for (i = 0; i < kfg_registry_count; i++) {
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
      kfi_key_str(family, key, cfg, sizeof cfg);
      kfi_fail(err, KF_NO_KERNEL, "kernel.mismatch", "kernel %s does not serve %s %s", k->name, f->name, cfg);
      return NULL;
    }
    if (opt && opt->generic_only && !k->generic) continue;
    if (!(k->isa & isas)) continue;
    if (key_matches(k, key, f->num_axes)) return k;
  }
  kfi_key_str(family, key, cfg, sizeof cfg);
  if (opt && opt->kernel)
    kfi_fail(err, KF_NO_KERNEL, "kernel.unknown", "no kernel named %.60s in this kernel set", opt->kernel);
  else
    kfi_fail(err, KF_NO_KERNEL, "kernel.none", "no kernel in this kernel set serves %s %s", f->name, cfg);
  return NULL;
}

kf_status kfi_select(kfi_plan *p, int family, const int32_t *key, const kf_plan_options *opt, kf_error *err) {
  int i;
  p->family = family;
  for (i = 0; i < KFG_MAX_KEY; i++) p->key[i] = i < kfg_families[family].num_axes ? key[i] : KFI_ANY;
  p->kernel = find(family, key, opt, err);
  if (!p->kernel) return err ? err->status : KF_NO_KERNEL;
  p->scratch_bytes = p->kernel->scratch(p->args.bytes);
  return KF_OK;
}
