/*
** kfpy_abi.h -- sizes and alignments of kforge.h's structs, for the Python
** package's ctypes layer (python/kforge/_runtime.py): it checks its mirrors
** of the public structs against the compiled library at import, and sizes
** kf_attrs (generated from specs/attrs.lua) and kf_plan from here.
*/
#ifndef kfpy_abi_h
#define kfpy_abi_h

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* what: 0 kf_attrs, 1 kf_plan, 2 kf_tensor_desc, 3 kf_error,
   4 kf_plan_options, 5 kf_kernel_info, 6 kf_threads; 0 for any other value. */
size_t kfpy_sizeof(int what);
size_t kfpy_alignof(int what);

#ifdef __cplusplus
}
#endif
#endif
