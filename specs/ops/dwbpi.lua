-- DepthwiseConv2dNativeBackpropInput: the input gradient of a depthwise
-- convolution, with TensorFlow's semantics (docs/
-- tf_semantics.md section 2) and kforge's documented extensions: NCHW,
-- unequal strides and true dilation. Data only.

return {
  family = "dwbpi",
  summary = "Depthwise convolution input gradient.",

  ops = {
    {
      name = "DepthwiseConv2dNativeBackpropInput", enum = "KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT",
      inputs = {
        { name = "input_sizes", type = "int32", doc = "the 4 dims of the output, data_format order" },
        { name = "filter", type = "T", doc = "[FH, FW, C, M]" },
        { name = "out_backprop", type = "T", doc = "[N, OH, OW, C*M] or [N, C*M, OH, OW]" },
      },
      outputs = { { name = "output", type = "T" } },
      attrs = {
        { name = "T", kind = "type", allowed = { "half", "bfloat16", "float", "double" } },
        { name = "strides", kind = "int_list", required = true },
        { name = "padding", kind = "string", allowed = { "SAME", "VALID", "EXPLICIT" }, required = true },
        { name = "explicit_paddings", kind = "int_list", default = {} },
        { name = "data_format", kind = "string", default = "NHWC", allowed = { "NHWC", "NCHW" } },
        { name = "dilations", kind = "int_list", default = { 1, 1, 1, 1 } },
      },
    },
  },

  -- TF's checks in TF's order (section 2.6, 2.3); %s/%lld filled by the runtime.
  rules = {
    { id = "input_dtype", tf = "op def", message = "%s must be %s, got %s" },
    { id = "strides_len", tf = "2.6 construction 1",
      message = "Sliding window strides field must specify 4 dimensions" },
    { id = "strides_batch_depth", tf = "2.6 construction 4",
      message = "Current implementation does not yet support strides in the batch and depth dimensions." },
    { id = "dilations_len", tf = "kforge",
      message = "Sliding window dilations field must specify 4 dimensions" },
    { id = "dilations_batch_depth", tf = "kforge",
      message = "Current implementation does not yet support dilations in the batch and depth dimensions." },
    { id = "explicit_len", tf = "2.3 CheckValidPadding",
      message = "explicit_paddings attribute must contain 8 values, but got: %d" },
    { id = "explicit_negative", tf = "2.3 CheckValidPadding",
      message = "All elements of explicit_paddings must be nonnegative" },
    { id = "explicit_batch_depth", tf = "2.3 CheckValidPadding",
      message = "Nonzero explicit padding in the batch or depth dimensions is not supported" },
    { id = "explicit_not_empty", tf = "2.3 CheckValidPadding",
      message = "explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT" },
    { id = "input_sizes_rank", tf = "2.6 compute 1",
      message = "Conv2DBackpropInput: input_sizes input must be 1-dim, not %d" },
    { id = "input_sizes_negative", tf = "2.6 compute 2",
      message = "Dimension %d of input_sizes must be >= 0" },
    { id = "input_rank", tf = "2.6 compute 3",
      message = "DepthwiseConv2DBackpropInput: input must be 4-dimensional" },
    { id = "filter_rank", tf = "2.6 compute 3",
      message = "DepthwiseConv2DBackpropInput: filter must be 4-dimensional" },
    { id = "out_backprop_rank", tf = "2.6 compute 3",
      message = "DepthwiseConv2DBackpropInput: out_backprop must be 4-dimensional" },
    { id = "batch", tf = "2.6 compute 3",
      message = "DepthwiseConv2DBackpropInput: input and out_backprop must have the same batch size" },
    { id = "too_large", tf = "2.6 compute 3 (TF 2.21's message has no op label)",
      message = "%s too large" },
    { id = "in_depth", tf = "2.6 compute 3",
      message = "DepthwiseConv2DBackpropInput: input and filter must have the same in_depth" },
    { id = "out_depth", tf = "2.6 compute 3",
      message = "DepthwiseConv2DBackpropInput: depth_multiplier * in_depth not equal to out_depth" },
    { id = "stride_positive", tf = "2.3", message = "Stride must be > 0, but got %lld" },
    { id = "dilation_positive", tf = "2.3", message = "Dilation rate must be >= 1, but got %lld" },
    { id = "negative_output", tf = "2.3",
      message = "Computed output size would be negative: %lld [input_size: %lld, effective_filter_size: %lld, stride: %lld]" },
    { id = "rows_mismatch", tf = "2.6 compute 3",
      message = "DepthwiseConv2DBackpropInput: Number of rows of out_backprop doesn't match computed: actual = %lld, computed = %lld" },
    { id = "cols_mismatch", tf = "2.6 compute 3",
      message = "DepthwiseConv2DBackpropInput: Number of cols of out_backprop doesn't match computed: actual = %lld, computed = %lld" },
  },

  -- Specialization axes. Padding is not an axis: every kernel takes the
  -- top/left padding as a run-time value, so each specialization serves
  -- SAME, VALID and EXPLICIT alike.
  axes = {
    { name = "T", values = { "f16", "bf16", "f32", "f64" } }, -- C constants: generator/dtypes.lua
    { name = "layout", values = { "nhwc", "nchw" },
      c = { nhwc = "KFI_CHANNELS_LAST", nchw = "KFI_CHANNELS_FIRST" } },
    { name = "kh", values = { 1, 2, 3, 4, 5, 6, 7 }, doc = "filter rows" },
    { name = "kw", values = { 1, 2, 3, 4, 5, 6, 7 }, doc = "filter cols" },
    { name = "sh", values = { 1, 2, 3, 4 }, doc = "row stride" },
    { name = "sw", values = { 1, 2, 3, 4 }, doc = "col stride" },
    { name = "dh", values = { 1, 2, 3, 4 }, doc = "row dilation" },
    { name = "dw", values = { 1, 2, 3, 4 }, doc = "col dilation" },
    { name = "dm", values = { 1, 2, 3, 4 }, doc = "depth multiplier" },
  },

  kernels = {
    { kind = "specialized", axes = { "T", "layout", "kh", "kw", "sh", "sw", "dh", "dw", "dm" },
      isas = { "scalar", "avx2", "avx512", "neon", "mve" },
      -- NEON has intrinsics only in the NHWC SIMD path; elsewhere its plain C
      -- would repeat the scalar kernel, which AArch64 compiles with NEON anyway.
      -- MVE (Helium) likewise: its SIMD path is the NHWC one.
      isa_only = { neon = { layout = { "nhwc" }, T = { "f16", "bf16", "f32" }, dm = { 1, 2 } },
                   mve = { layout = { "nhwc" }, T = { "f16", "bf16", "f32" }, dm = { 1, 2 } } },
      name = "dwbpi_${T}_${layout}_k${kh}x${kw}s${sh}x${sw}d${dh}x${dw}m${dm}",
      template = "dwbpi/${layout}.c.in",
      config = "T=${T} layout=${layout} filter=${kh}x${kw} strides=${sh}x${sw} dilations=${dh}x${dw} multiplier=${dm}",
      doc = "filter window fully unrolled, only the taps that exist" },
    { kind = "generic", axes = { "T" },
      name = "dwbpi_${T}_generic", template = "dwbpi/generic.c.in",
      config = "T=${T} layout=any filter=any strides=any dilations=any multiplier=any",
      doc = "any configuration; the fallback" },
  },

  blocks = { W = "PIX" }, -- kernel metadata: output pixels per register block (tests aim at it)
  params = {
    PIX = 8,            -- SIMD kernels: at most this many output pixels per register block
    TASK = 0,           -- outputs per task (a block of rows): the thread work grain (0: L2 / 32)
    NT_MIN = 0,         -- dx bytes from which the SIMD kernels stream their stores (0: the cache rule)
    L1B = 0,            -- NHWC SIMD kernels: bytes for a block's working set (sets the channel chunk; 0: the L1d)
  },

  -- Tunable params (docs/tuning.md): every value is correct (each output
  -- element still has one writer, so thread-count independence holds).
  knobs = {
    { name = "PIX", tag = "p", values = { 2, 4, 6, 8 }, doc = "pixels per register block (rows per iteration)" },
    { name = "TASK", tag = "t", values = { 0, 4096, 16384, 65536 },
      doc = "outputs per task: the thread work grain (0: the cache rule, L2 bytes / 32)" },
    { name = "NT_MIN", tag = "nt", values = { 0, 65536, 1048576, 8388608, 1073741824 },
      doc = "dx bytes from which stores stream (0: the cache rule, whole lines only, from a quarter of the last-level cache; 1 GiB: never)" },
    { name = "L1B", tag = "l", values = { 0, 8192, 16384, 32768, 1048576 },
      doc = "bytes for an NHWC SIMD block's working set: sets the channel chunk (0: the cache rule, the L1d; 1 MiB: no chunks)" },
  },

  -- The family's hand-written files (the build and the tools list them from here).
  sources = {
    runtime = { "runtime/dwbpi_plan.c", "runtime/dwbpi_entry.c" },
    bench = { "bench/bench_dwbpi.c" },
    bench_py = { "bench/bench_torch_dwbpi.py" },
  },
}
