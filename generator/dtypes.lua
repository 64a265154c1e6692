-- dtypes.lua -- what each dtype tag of the specs means in C. Kernels load
-- and store through kfi_ld_<tag>/kfi_st_<tag> (runtime/kfi_kernel.h), so
-- half and bfloat16 are converted once per element and computed in float.
return {
  f16  = { ctype = "uint16_t", tf = "half",     acc = "float",  c = "KF_HALF" },
  bf16 = { ctype = "uint16_t", tf = "bfloat16", acc = "float",  c = "KF_BFLOAT16" },
  f32  = { ctype = "float",    tf = "float",    acc = "float",  c = "KF_FLOAT" },
  f64  = { ctype = "double",   tf = "double",   acc = "double", c = "KF_DOUBLE" },
}
