-- The fields of kf_attrs: every attribute any op has, as in a TF NodeDef.
-- The generator writes the kf_attrs struct and the enums of
-- generated/kforge_ops.h from this file, and the table kf_attrs_set
-- walks (name -> field, kind, element count): an op with a new attribute
-- adds an entry here, never code. An op attr with no field (bngrad's U,
-- always float) is validated against its allowed values and not stored.
-- Data only.
return {
  enums = {
    { name = "data_format", ctype = "kf_data_format", invalid = "KF_FORMAT_INVALID",
      values = { { "NHWC", "KF_NHWC" }, { "NCHW", "KF_NCHW" }, { "NDHWC", "KF_NDHWC" }, { "NCDHW", "KF_NCDHW" } } },
    { name = "padding", ctype = "kf_padding", invalid = "KF_PADDING_INVALID",
      values = { { "SAME", "KF_SAME" }, { "VALID", "KF_VALID" }, { "EXPLICIT", "KF_EXPLICIT" } } },
  },
  fields = {
    { name = "T", kind = "type", doc = "inferred from the inputs when KF_DT_INVALID" },
    { name = "U", kind = "type", stored = false, doc = "always float: validated, not stored" },
    { name = "data_format", kind = "string", enum = "data_format" },
    { name = "epsilon", kind = "float", doc = "batch norm: 0.0001" },
    { name = "is_training", kind = "bool", doc = "batch norm: 1" },
    { name = "strides", kind = "int_list", max = 8, doc = "convolutions: required, 4 values (-1: unset)" },
    { name = "padding", kind = "string", enum = "padding", doc = "convolutions: required (KF_PADDING_INVALID: unset)" },
    { name = "explicit_paddings", kind = "int64_list", max = 16 },
    { name = "dilations", kind = "int_list", max = 8, doc = "convolutions: 4 values, default 1,1,1,1" },
  },
}
