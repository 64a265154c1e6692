-- tests/models/test_models.sh: the Helium layer's kv_pair (depth multiplier 2), 5x5
-- stride-2 filters and predicated channel tails (18 and 36 channels), on Cortex-M55.
return {
  name = "mve_tails",
  summary = "Depthwise gradients with multiplier 2, 5x5 stride 2 and channel tails (a test manifest).",
  instances = {
    { name = "dw/input", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 3, 3, 18, 2 }, out_backprop = { 1, 9, 7, 36 } },
      values = { input_sizes = { 1, 9, 7, 18 } } },
    { name = "dw/input2", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,2,2,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 5, 5, 18, 2 }, out_backprop = { 1, 5, 4, 36 } },
      values = { input_sizes = { 1, 9, 7, 18 } } },
    { name = "dw/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,2,2,1", padding = "VALID", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 9, 7, 18 }, filter_sizes = { 4 }, out_backprop = { 1, 3, 2, 18 } },
      values = { filter_sizes = { 5, 5, 18, 1 } } },
  },
}
