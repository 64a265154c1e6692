/*
** kfpy_abi.c -- sizes and alignments of kforge.h's structs (kfpy_abi.h).
*/
#include <stdalign.h>

#include "kforge.h"
#include "kfpy_abi.h"

#define KFPY_CASES(F) \
  F(0, kf_attrs) F(1, kf_plan) F(2, kf_tensor_desc) F(3, kf_error) \
  F(4, kf_plan_options) F(5, kf_kernel_info) F(6, kf_threads)

size_t kfpy_sizeof(int what) {
  switch (what) {
#define KFPY_SIZE(i, t) case i: return sizeof(t);
    KFPY_CASES(KFPY_SIZE)
#undef KFPY_SIZE
  }
  return 0;
}

size_t kfpy_alignof(int what) {
  switch (what) {
#define KFPY_ALIGN(i, t) case i: return alignof(t);
    KFPY_CASES(KFPY_ALIGN)
#undef KFPY_ALIGN
  }
  return 0;
}
