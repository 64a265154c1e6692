/*
** arena.c -- see arena.h. First fit by decreasing size: the big tensors
** (which set the peak) get the low offsets, the small ones fill the gaps
** they leave. O(n^2) in the worst case; steps have a few thousand tensors.
*/
#include "arena.h"

static size_t up(size_t v) { return (v + (KFM_ALIGN - 1)) & ~(size_t)(KFM_ALIGN - 1); }

static int live_together(const kfm_tensor *x, const kfm_tensor *y) {
  return x->first <= y->last && y->first <= x->last;
}

/* Whether x goes before y in placement order. */
static int before(const kfm_tensor *t, int x, int y) {
  if (t[x].bytes != t[y].bytes) return t[x].bytes > t[y].bytes;
  if (t[x].first != t[y].first) return t[x].first < t[y].first;
  return x < y;
}

size_t kfm_arena_place(kfm_tensor *t, int n, int *order) {
  size_t top = 0;
  int i, j;
  for (i = 0; i < n; i++) { /* insertion sort: deterministic, no heap */
    int v = i;
    for (j = i; j > 0 && before(t, v, order[j - 1]); j--) order[j] = order[j - 1];
    order[j] = v;
  }
  for (i = 0; i < n; i++) {
    kfm_tensor *x = &t[order[i]];
    size_t at = 0, sz = up(x->bytes);
    int moved = 1;
    if (sz == 0) { x->off = 0; continue; }
    /* Move past every placed, live-together tensor it would overlap until
       none is left: each move only goes up, so this ends. */
    while (moved) {
      moved = 0;
      for (j = 0; j < i; j++) {
        const kfm_tensor *y = &t[order[j]];
        if (y->bytes == 0 || !live_together(x, y)) continue;
        if (at < y->off + up(y->bytes) && y->off < at + sz) { at = y->off + up(y->bytes); moved = 1; }
      }
    }
    x->off = at;
    if (at + sz > top) top = at + sz;
  }
  return top;
}

size_t kfm_arena_lower_bound(const kfm_tensor *t, int n) {
  size_t best = 0;
  int i, j, c;
  for (i = 0; i < n; i++) { /* the peak is at some tensor's first call */
    size_t live = 0;
    c = t[i].first;
    for (j = 0; j < n; j++)
      if (t[j].first <= c && c <= t[j].last) live += up(t[j].bytes);
    if (live > best) best = live;
  }
  return best;
}

const char *kfm_arena_verify(const kfm_tensor *t, int n, size_t arena_bytes, int *a, int *b) {
  int i, j;
  *a = *b = -1;
  for (i = 0; i < n; i++) {
    *a = i;
    if (t[i].first > t[i].last) return "a lifetime ends before it starts";
    if (t[i].off % KFM_ALIGN) return "an offset is not 16-byte aligned";
    if (t[i].off > arena_bytes || t[i].bytes > arena_bytes - t[i].off) return "a tensor ends past the arena";
    for (j = i + 1; j < n; j++)
      if (t[i].bytes && t[j].bytes && live_together(&t[i], &t[j]) && t[i].off < t[j].off + t[j].bytes &&
          t[j].off < t[i].off + t[i].bytes) {
        *b = j;
        return "two tensors live at the same call share bytes";
      }
  }
  *a = -1;
  if (arena_bytes < kfm_arena_lower_bound(t, n)) return "the arena is below the lower bound";
  return 0;
}
