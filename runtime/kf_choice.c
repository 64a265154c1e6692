/*
** kf_choice.c -- the plan-time parameters a measured plan may vary (one
** entry each: family, field, candidates beside the rule's value) and the
** helpers that read, set and print a plan's variant. No OS needed: a
** microcontroller build links it and only ever uses the rule's variant.
*/
#include <stddef.h>
#include <string.h>

#include "kfi_wisdom.h"
#include "kfi_bngrad.h"
#include "kfi_dwbpf.h"
#include "kfi_dwbpi.h"

/* Cache sizes that steer an algorithm are choices: a tiny one takes the
   path for data that does not fit, a huge one the other (batch norm's llc:
   the pass-1 sweep everywhere it applies, or never, and channels first the
   channel-block plan wherever a channel fits the L2, or never; the filter gradient's:
   prefetching the next channel pass). stream, the output size from which
   stores go around the cache (kfi_stream_bytes), is one too: always or never. */
#define KFI_TINY ((int64_t)1)
#define KFI_HUGE ((int64_t)1 << 40)
/* Cache sizes that size blocks are choices too: the rule sizes by the
   detected L1d and L2, a measured plan may size as the other CPU classes
   users run (L1d 32 or 64 KiB; L2 512 KiB as Zen 3, 2 MiB as Emerald
   Rapids). Batch norm's l1d: pass 1's sub-block of rows; its l2: the task
   grain (which also fixes the reduction partition) and channels first
   the channel blocks; depthwise input's
   l1d: the channel chunks run down a task's rows (2^40: one chunk, the
   rows walked once with every channel), its l2: the task grain. The filter
   gradient sizes its pieces at build time (knobs) but for span, the NHWC
   pieces cut to runs of all channels whose data fit span bytes of L1 (0:
   never; a span also turns the prefetching walkers on); its l2, the sweep's
   prefetching of the next row (tiny: always, huge: never); its l1d (the
   NHWC wide walker's gate) is not a choice yet. Algorithms are choices as well:
   batch norm's columns, the channel-block plans (few rows of many channels;
   channels first, both passes per block of planes) where their rules take
   them (1) or the rows and planes plans always (0); the filter gradient's
   flat, the AVX-512 NCHW kernels' flat walk or row walk
   (kfi_dwbpf_flat_rule); its rows, the NHWC rows walker on whole centred
   rows where there is no wide walker (1), also where there is (2; the rule
   on x86-64 but for far data: kfi_dwbpf_rows_rule), or never (0); its
   next, the NHWC kernels' stream of the next piece's lines (1) or not (0;
   kfi_dwbpf_next_rule). Depthwise input's ahead: the bytes of dy
   prefetched ahead of the row computed (0: none; the rule's quarter of the
   L1d leaves rows above 12 KiB unprefetched, 32 KiB takes them too, 256 KiB
   reads far ahead); its wahead: with that read-ahead, the dx rows
   prefetched for writing (1) or not (0). */
#define KFI_KIB ((int64_t)1 << 10)

const kfi_choice_def kfi_choices[] = {
  { KFG_FAMILY_BNGRAD, "llc", offsetof(kfi_bngrad_args, cache.llc), 2, { KFI_TINY, KFI_HUGE } },
  { KFG_FAMILY_BNGRAD, "l1d", offsetof(kfi_bngrad_args, cache.l1d), 2, { 32 * KFI_KIB, 64 * KFI_KIB } },
  { KFG_FAMILY_BNGRAD, "l2", offsetof(kfi_bngrad_args, cache.l2), 2, { 512 * KFI_KIB, 2048 * KFI_KIB } },
  { KFG_FAMILY_BNGRAD, "columns", offsetof(kfi_bngrad_args, columns), 1, { 0 } },
  { KFG_FAMILY_BNGRAD, "stream", offsetof(kfi_bngrad_args, cache.stream), 2, { KFI_TINY, KFI_HUGE } },
  { KFG_FAMILY_BNGRAD, "next", offsetof(kfi_bngrad_args, next), 2, { 0, 1 } },
  { KFG_FAMILY_DWBPI, "l1d", offsetof(kfi_dwbpi_args, cache.l1d), 3, { 32 * KFI_KIB, 64 * KFI_KIB, KFI_HUGE } },
  { KFG_FAMILY_DWBPI, "l2", offsetof(kfi_dwbpi_args, cache.l2), 2, { 512 * KFI_KIB, 2048 * KFI_KIB } },
  { KFG_FAMILY_DWBPI, "stream", offsetof(kfi_dwbpi_args, cache.stream), 2, { KFI_TINY, KFI_HUGE } },
  { KFG_FAMILY_DWBPI, "ahead", offsetof(kfi_dwbpi_args, ahead), 3, { 0, 32 * KFI_KIB, 256 * KFI_KIB } },
  { KFG_FAMILY_DWBPI, "wahead", offsetof(kfi_dwbpi_args, wahead), 2, { 0, 1 } },
  { KFG_FAMILY_DWBPF, "llc", offsetof(kfi_dwbpf_args, llc), 2, { KFI_TINY, KFI_HUGE } },
  { KFG_FAMILY_DWBPF, "flat", offsetof(kfi_dwbpf_args, flat), 2, { 0, 1 } },
  { KFG_FAMILY_DWBPF, "span", offsetof(kfi_dwbpf_args, span), 3, { 0, 24 * KFI_KIB, 32 * KFI_KIB } },
  { KFG_FAMILY_DWBPF, "sweep", offsetof(kfi_dwbpf_args, sweep), 1, { 1 } },
  { KFG_FAMILY_DWBPF, "rows", offsetof(kfi_dwbpf_args, rows), 3, { 0, 1, 2 } },
  { KFG_FAMILY_DWBPF, "l2", offsetof(kfi_dwbpf_args, l2), 2, { KFI_TINY, KFI_HUGE } },
  { KFG_FAMILY_DWBPF, "next", offsetof(kfi_dwbpf_args, next), 2, { 0, 1 } },
};
const int kfi_num_choices = (int)(sizeof kfi_choices / sizeof kfi_choices[0]);

int kfi_family_choices(int family, int idx[KFI_MAX_CHOICES]) {
  int i, n = 0;
  for (i = 0; i < kfi_num_choices && n < KFI_MAX_CHOICES; i++)
    if (kfi_choices[i].family == family) idx[n++] = i;
  return n;
}

/* In a step whose data is far larger than the LLC (the caller's fresh
   outputs), the filter gradient's x comes from the forward pass and its
   dy from the op before, both from DRAM whatever their size: NHWC
   kernels stream the next piece's lines in order and cut their pieces to
   L1 runs of whole rows at every stride (next, kfi_dwbpf_span_cold;
   docs/performance.md, "Zen 4: the next piece in order"), and unit-stride
   passes prefetch as for data beyond the LLC (NHWC: the next channel
   vectors, strided by C elements; NCHW: the next channel's planes).
   Strided calls keep the rest of the rule: strided NHWC calls measured
   slower with it, and strided NCHW calls run the plain loops
   (docs/performance_dwbpf.md, "Cold inputs in a step", "NCHW: the next
   channel's planes"). The input gradient's dx is in no
   cache either: where it is not streamed, its NHWC rows are prefetched
   for writing with dy's read-ahead (docs/performance_dwbpi.md, "Fresh
   outputs: dx prefetched for writing"), which reads further ahead
   (kfi_dwbpi_ahead_cold). Batch norm, channels last, takes the plan for
   data beyond the LLC (llc: pass 1 sweeps rows of more than two tiles;
   MobileNetV2's cold calls of 144-1280 channels 1.13-1.6x faster on Zen
   4, the others level) and its tiles stream the next sub-block's rows
   (next). */
void kfi_choices_rule_cold(kfi_plan *p) {
  kfi_dwbpf_args *g = (kfi_dwbpf_args *)(void *)p->args.bytes;
  if (p->family == KFG_FAMILY_BNGRAD) {
    kfi_bngrad_args *n = (kfi_bngrad_args *)(void *)p->args.bytes;
    if (n->layout != KFI_CHANNELS_LAST) return;
    n->next = 1;
    n->cache.llc = KFI_TINY; /* pass 1 sweeps wherever it applies, as for data beyond the LLC */
    if (p->kernel) p->scratch_bytes = p->kernel->scratch(p->args.bytes);
    return;
  }
  if (p->family == KFG_FAMILY_DWBPI) {
    kfi_dwbpi_args *d = (kfi_dwbpi_args *)(void *)p->args.bytes;
    d->wahead = 1;
    d->ahead = kfi_dwbpi_ahead_cold(&d->cache);
    return;
  }
  if (p->family != KFG_FAMILY_DWBPF) return;
  g->next = g->layout == KFI_CHANNELS_LAST;
  g->span = kfi_dwbpf_span_cold(g, (int64_t)kf_dtype_size(p->outputs[0].dtype));
  if (g->sh == 1 && g->sw == 1) {
    g->llc = KFI_TINY;
    g->l2 = KFI_TINY; /* the sweep of short rows prefetches its next row */
  }
  if (p->kernel) p->scratch_bytes = p->kernel->scratch(p->args.bytes);
}

int64_t kfi_choice_get(const kfi_plan *p, const kfi_choice_def *c) {
  int64_t v;
  memcpy(&v, p->args.bytes + c->offset, sizeof v);
  return v;
}

void kfi_choice_set(kfi_plan *p, const kfi_choice_def *c, int64_t v) {
  memcpy(p->args.bytes + c->offset, &v, sizeof v);
  if (p->kernel) p->scratch_bytes = p->kernel->scratch(p->args.bytes);
}

int kfi_kernel_fits(const kfi_kernel *k, const kfi_plan *p, const kf_plan_options *opt) {
  const unsigned isas = kf_cpu_isas() & (opt && opt->isas ? opt->isas : ~0u);
  int i;
  if (k->family != p->family || !(k->isa & isas)) return 0;
  if (opt && opt->generic_only && !k->generic) return 0;
  for (i = 0; i < kfg_families[p->family].num_axes; i++)
    if (k->key[i] != KFI_ANY && k->key[i] != p->key[i]) return 0;
  return 1;
}

void kfi_use_kernel(kfi_plan *p, const kfi_kernel *k) {
  p->kernel = k;
  p->scratch_bytes = k->scratch(p->args.bytes);
}

void kfi_choices_str(const kfi_plan *p, char *buf, size_t n) {
  int idx[KFI_MAX_CHOICES], m = kfi_family_choices(p->family, idx), i;
  size_t k;
  int w;
  if (!n) return;
  buf[0] = 0;
  if (!p->kernel) return;
  w = kfi_format(buf, n, "kernel=%s", p->kernel->name);
  k = w > 0 ? (size_t)w : 0;
  for (i = 0; i < m && k < n; i++) {
    const kfi_choice_def *c = &kfi_choices[idx[i]];
    w = kfi_format(buf + k, n - k, " %s=%lld", c->name, (long long)kfi_choice_get(p, c));
    if (w < 0) break;
    k += (size_t)w;
  }
}

/* One "name=value" word of s at *pos: name and value copied (bounded). */
static int ch_word(const char **pos, char *name, size_t nn, char *value, size_t vn) {
  const char *s = *pos;
  size_t i = 0, j = 0;
  while (*s == ' ') s++;
  if (!*s) return 0;
  while (*s && *s != '=' && *s != ' ') { if (i + 1 < nn) name[i++] = *s; s++; }
  name[i] = 0;
  if (*s == '=') s++;
  while (*s && *s != ' ') { if (j + 1 < vn) value[j++] = *s; s++; }
  value[j] = 0;
  *pos = s;
  return 1;
}

static int ch_parse_i64(const char *s, int64_t *v) {
  int64_t x = 0;
  if (!*s) return 0;
  for (; *s; s++) {
    if (*s < '0' || *s > '9' || x > (INT64_MAX - 9) / 10) return 0;
    x = x * 10 + (*s - '0');
  }
  *v = x;
  return 1;
}

int kfi_choices_apply(kfi_plan *p, const char *s, const kf_plan_options *opt, char *why, size_t n) {
  kfi_plan q = *p;
  char name[64], value[128];
  int i, have_kernel = 0;
  while (ch_word(&s, name, sizeof name, value, sizeof value)) {
    if (strcmp(name, "kernel") == 0) {
      for (i = 0; i < kfg_registry_count; i++)
        if (strcmp(kfg_registry[i].name, value) == 0) break;
      if (i == kfg_registry_count) { kfi_format(why, n, "kernel %.60s is not in this build", value); return 0; }
      if (!kfi_kernel_fits(&kfg_registry[i], &q, opt))
        { kfi_format(why, n, "kernel %.60s cannot run this call here", value); return 0; }
      q.kernel = &kfg_registry[i];
      have_kernel = 1;
    } else {
      int64_t v;
      for (i = 0; i < kfi_num_choices; i++)
        if (kfi_choices[i].family == q.family && strcmp(kfi_choices[i].name, name) == 0) break;
      if (i == kfi_num_choices) { kfi_format(why, n, "no plan-time parameter %.40s here", name); return 0; }
      if (!ch_parse_i64(value, &v)) { kfi_format(why, n, "%.40s=%.40s is no count", name, value); return 0; }
      memcpy(q.args.bytes + kfi_choices[i].offset, &v, sizeof v);
    }
  }
  if (!have_kernel) { kfi_format(why, n, "no kernel named"); return 0; }
  kfi_use_kernel(&q, q.kernel);
  *p = q;
  return 1;
}
