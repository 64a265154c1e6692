-- The tuner's case for a depthwise filter-gradient kernel (tools/tune.lua):
-- the benchmark's shape (batch 8, 56x56, 144 channels, SAME) with the
-- kernel's filter size, stride, multiplier, dtype and layout, as a call of
-- the op (attrs as on the CLI, inputs in TF order).
-- v: the kernel's key values; t: { dtype = TF name of T, size = its bytes }.
return function(v, t)
  local nhwc = v.layout == "nhwc"
  local N, H, W, C, K, S, M = 8, 56, 56, 144, v.kh, v.sh, v.dm
  local OH, OW = (H + S - 1) // S, (W + S - 1) // S
  return {
    op = "DepthwiseConv2dNativeBackpropFilter",
    attrs = { { "T", t.dtype }, { "data_format", nhwc and "NHWC" or "NCHW" },
              { "strides", nhwc and ("1," .. S .. "," .. S .. ",1") or ("1,1," .. S .. "," .. S) },
              { "padding", "SAME" } },
    inputs = { { "input", t.dtype, nhwc and { N, H, W, C } or { N, C, H, W } },
               { "filter_sizes", "int32", { 4 }, { K, K, C, M } },
               { "out_backprop", t.dtype, nhwc and { N, OH, OW, C * M } or { N, C * M, OH, OW } } },
    work = 2 * N * OH * OW * C * M * K * K, unit = "GFLOP/s",
  }
end
