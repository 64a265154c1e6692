# _capi.py -- the ctypes signatures of runtime/kforge.h's functions, read from the
# header by generator/kforge-gen.lua (emit_python.lua). Do not edit. Pointers to kforge's
# structs are c_void_p: kforge/_runtime.py passes addresses (and checks its struct
# mirrors' sizes against the library at import).
"""ctypes signatures of kforge.h (generated)."""
import ctypes

#: (name, restype, argtypes) of every function kforge.h declares, in its order.
SIGNATURES = [
    ("kf_status_name", ctypes.c_char_p, [ctypes.c_int]),
    ("kf_dtype_name", ctypes.c_char_p, [ctypes.c_int]),
    ("kf_dtype_from_name", ctypes.c_int, [ctypes.c_char_p]),
    ("kf_dtype_size", ctypes.c_size_t, [ctypes.c_int]),
    ("kf_half_to_float", ctypes.c_float, [ctypes.c_uint16]),
    ("kf_float_to_half", ctypes.c_uint16, [ctypes.c_float]),
    ("kf_bfloat16_to_float", ctypes.c_float, [ctypes.c_uint16]),
    ("kf_float_to_bfloat16", ctypes.c_uint16, [ctypes.c_float]),
    ("kf_op_from_name", ctypes.c_int, [ctypes.c_char_p]),
    ("kf_op_name", ctypes.c_char_p, [ctypes.c_int]),
    ("kf_op_num_inputs", ctypes.c_int, [ctypes.c_int]),
    ("kf_op_num_outputs", ctypes.c_int, [ctypes.c_int]),
    ("kf_op_input_name", ctypes.c_char_p, [ctypes.c_int, ctypes.c_int]),
    ("kf_op_output_name", ctypes.c_char_p, [ctypes.c_int, ctypes.c_int]),
    ("kf_op_output_in_place_of", ctypes.c_int, [ctypes.c_int, ctypes.c_int]),
    ("kf_op_num_attrs", ctypes.c_int, [ctypes.c_int]),
    ("kf_op_attr_name", ctypes.c_char_p, [ctypes.c_int, ctypes.c_int]),
    ("kf_op_attr_default", ctypes.c_char_p, [ctypes.c_int, ctypes.c_int]),
    ("kf_attrs_init", None, [ctypes.c_int, ctypes.c_void_p]),
    ("kf_attrs_set", ctypes.c_int, [ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p]),
    ("kf_cpu_isas", ctypes.c_uint, []),
    ("kf_isa_name", ctypes.c_char_p, [ctypes.c_uint]),
    ("kf_plan_op", ctypes.c_int, [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]),
    ("kf_plan_num_outputs", ctypes.c_int, [ctypes.c_void_p]),
    ("kf_plan_output_desc", ctypes.c_void_p, [ctypes.c_void_p, ctypes.c_int]),
    ("kf_plan_scratch_bytes", ctypes.c_size_t, [ctypes.c_void_p]),
    ("kf_plan_kernel_name", ctypes.c_char_p, [ctypes.c_void_p]),
    ("kf_execute", ctypes.c_int, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]),
    ("kf_run_op", ctypes.c_int, [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]),
    ("kf_fused_batch_norm_grad", ctypes.c_int, [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]),
    ("kf_depthwise_conv2d_backprop_input", ctypes.c_int, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]),
    ("kf_kernel_count", ctypes.c_int, []),
    ("kf_kernel_name", ctypes.c_char_p, [ctypes.c_int]),
    ("kf_kernel_config", ctypes.c_char_p, [ctypes.c_int]),
    ("kf_kernel_info_of", ctypes.c_int, [ctypes.c_int, ctypes.c_void_p]),
    ("kf_kernel_lanes", ctypes.c_int, [ctypes.c_int]),
    ("kf_kernel_block", ctypes.c_int, [ctypes.c_int, ctypes.c_char_p]),
    ("kf_plan_kernel_index", ctypes.c_int, [ctypes.c_void_p]),
    ("kf_plan_key", ctypes.c_int, [ctypes.c_void_p, ctypes.c_void_p]),
    ("kf_family_count", ctypes.c_int, []),
    ("kf_family_name", ctypes.c_char_p, [ctypes.c_int]),
    ("kf_op_family", ctypes.c_char_p, [ctypes.c_int]),
]
