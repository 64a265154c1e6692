-- The tuner's case for a batch-norm gradient kernel (tools/tune.lua): the
-- benchmark's shape [8,56,56,256] in the kernel's dtype, layout and mode,
-- as a call of the op (attrs as on the CLI, inputs in TF order).
-- v: the kernel's key values; t: { dtype = TF name of T, size = its bytes }.
return function(v, t)
  local nhwc = v.layout == "nhwc"
  local N, H, W, C = 8, 56, 56, 256
  local x = nhwc and { N, H, W, C } or { N, C, H, W }
  return {
    op = "FusedBatchNormGradV3",
    attrs = { { "T", t.dtype }, { "data_format", nhwc and "NHWC" or "NCHW" },
              { "is_training", v.mode == "train" and "true" or "false" } },
    inputs = { { "y_backprop", t.dtype, x }, { "x", t.dtype, x }, { "scale", "float", { C } },
               { "reserve_space_1", "float", { C } }, { "reserve_space_2", "float", { C } },
               { "reserve_space_3", "float", { C } } },
    positive = { "reserve_space_2" }, -- a variance
    -- two passes: read x and dy twice, write x_backprop once
    work = N * H * W * C * t.size * 5, unit = "GB/s",
  }
end
