-- DepthwiseConv2dNativeBackpropFilter: the filter gradient of a depthwise
-- convolution, with TensorFlow 2.21's semantics (docs/semantics_dwbpf.md)
-- and kforge's documented extensions: NCHW, unequal strides, true dilation,
-- zeros for an empty batch. Data only.

return {
  family = "dwbpf",
  summary = "Depthwise convolution filter gradient.",
  sources = { runtime = { "runtime/dwbpf_plan.c" }, bench = { "bench/bench_dwbpf.c" },
              bench_py = { "bench/bench_torch_dwbpf.py" } },

  ops = {
    {
      name = "DepthwiseConv2dNativeBackpropFilter", enum = "KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_FILTER",
      inputs = {
        { name = "input", type = "T", doc = "[N, H, W, C] or [N, C, H, W]" },
        { name = "filter_sizes", type = "int32", doc = "the 4 dims of the filter: [FH, FW, C, M]" },
        { name = "out_backprop", type = "T", doc = "[N, OH, OW, C*M] or [N, C*M, OH, OW]" },
      },
      outputs = { { name = "output", type = "T" } }, -- TF names it `output` (the filter gradient)
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

  -- TF 2.21's checks in TF's order (docs/semantics_dwbpf.md, section 3),
  -- each message checked against TF 2.21 itself; %s/%lld filled by the runtime.
  rules = {
    { id = "input_dtype", tf = "op def", message = "%s must be %s, got %s" },
    { id = "strides_len", tf = "construction 1",
      message = "Sliding window strides field must specify 4 dimensions" },
    { id = "strides_batch_depth", tf = "construction 4",
      message = "Current implementation does not yet support strides in the batch and depth dimensions." },
    { id = "dilations_len", tf = "kforge",
      message = "Sliding window dilations field must specify 4 dimensions" },
    { id = "dilations_batch_depth", tf = "kforge",
      message = "Current implementation does not yet support dilations in the batch and depth dimensions." },
    { id = "explicit_len", tf = "construction 5 CheckValidPadding",
      message = "explicit_paddings attribute must contain 8 values, but got: %d" },
    { id = "explicit_negative", tf = "construction 5 CheckValidPadding",
      message = "All elements of explicit_paddings must be nonnegative" },
    { id = "explicit_batch_depth", tf = "construction 5 CheckValidPadding",
      message = "Nonzero explicit padding in the batch or depth dimensions is not supported" },
    { id = "explicit_not_empty", tf = "construction 5 CheckValidPadding",
      message = "explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT" },
    { id = "filter_sizes_rank", tf = "compute 1",
      message = "Conv2DBackpropFilter: filter_sizes input must be 1-dim, not %d" },
    { id = "filter_sizes_negative", tf = "compute 2",
      message = "Dimension %d of filter_sizes must be >= 0" },
    { id = "filter_sizes_overflow", tf = "compute 2 TensorShape::AddDimWithStatus",
      message = "Encountered overflow when multiplying %lld with %lld, result: -1" },
    { id = "input_rank", tf = "compute 3",
      message = "DepthwiseConv2DBackpropFilter: input must be 4-dimensional" },
    { id = "filter_rank", tf = "compute 3",
      message = "DepthwiseConv2DBackpropFilter: filter must be 4-dimensional" },
    { id = "out_backprop_rank", tf = "compute 3",
      message = "DepthwiseConv2DBackpropFilter: out_backprop must be 4-dimensional" },
    { id = "batch", tf = "compute 3",
      message = "DepthwiseConv2DBackpropFilter: input and out_backprop must have the same batch size" },
    { id = "too_large", tf = "compute 3", message = "%s too large" },
    { id = "in_depth", tf = "compute 3",
      message = "DepthwiseConv2DBackpropFilter: input and filter must have the same in_depth" },
    { id = "out_depth", tf = "compute 3",
      message = "DepthwiseConv2DBackpropFilter: depth_multiplier * in_depth not equal to out_depth" },
    { id = "stride_positive", tf = "compute 3 GetWindowedOutputSize", message = "Stride must be > 0, but got %lld" },
    { id = "dilation_positive", tf = "compute 3 GetWindowedOutputSize", message = "Dilation rate must be >= 1, but got %lld" },
    { id = "negative_output", tf = "compute 3 GetWindowedOutputSize",
      message = "Computed output size would be negative: %lld [input_size: %lld, effective_filter_size: %lld, stride: %lld]" },
    { id = "rows_mismatch", tf = "compute 3",
      message = "DepthwiseConv2DBackpropFilter: Number of rows of out_backprop doesn't match computed: actual = %lld, computed = %lld" },
    { id = "cols_mismatch", tf = "compute 3",
      message = "DepthwiseConv2DBackpropFilter: Number of cols of out_backprop doesn't match computed: actual = %lld, computed = %lld" },
  },

  -- Specialization axes (as dwbpi's). Padding is not an axis: every kernel
  -- takes the top/left padding as a run-time value.
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
      -- double has no SIMD layer: portable C only.
      isa_only = { avx2 = { T = { "f16", "bf16", "f32" } }, avx512 = { T = { "f16", "bf16", "f32" } },
                   neon = { T = { "f16", "bf16", "f32" } }, mve = { T = { "f16", "bf16", "f32" } } },
      name = "dwbpf_${T}_${layout}_k${kh}x${kw}s${sh}x${sw}d${dh}x${dw}m${dm}",
      template = "dwbpf/${layout}.c.in",
      config = "T=${T} layout=${layout} filter=${kh}x${kw} strides=${sh}x${sw} dilations=${dh}x${dw} multiplier=${dm}",
      doc = "filter window fully unrolled, every tap's accumulator in registers" },
    { kind = "generic", axes = { "T" },
      name = "dwbpf_${T}_generic", template = "dwbpf/generic.c.in",
      config = "T=${T} layout=any filter=any strides=any dilations=any multiplier=any",
      doc = "any configuration; the fallback" },
  },

  -- The reduction's partition (runtime/kfi_dwbpf.h): a piece is at most PIECE
  -- output pixels (whole rows of one image, or part of one long row; NCHW
  -- SIMD kernels: PIECE vectors per lane), fewer where L1B is set and the
  -- pixels' data (x and dy, all channels) would not fit L1B bytes, summed in
  -- registers; a pixel task sums whole pieces (about TASKWORK multiply-adds)
  -- into its own partial filter, and where one piece is more than TASKWORK
  -- its channels are cut into groups (tasks of their own, writing disjoint
  -- channels of the partial); after the one parallel round the calling
  -- thread reduces the partials in a fixed pairwise tree. All of it depends
  -- on the shapes and these params only, never on the thread count.
  blocks = { pixels = "PIECE" }, -- kernel metadata: output pixels per piece (tests aim at it)
  params = {
    PIECE = 128,        -- output pixels (NCHW SIMD: vectors per lane) per piece: the longest running float sum
    TASKWORK = 262144,  -- multiply-adds per task (at least one piece, or one channel group of one)
    SERIAL = 4194304,   -- multiply-adds below which the tasks run on the calling thread
    RED = 512,          -- filter elements per chunk of the final reduction (calling thread)
    L1B = 0,            -- NHWC SIMD kernels: bytes of x and dy a piece may span (0: no bound; docs/performance_dwbpf.md)
    PF = 1,             -- SIMD kernels: prefetch the next channel vector's lines (NHWC) or rows ahead (NCHW) (0: no)
    L1W = 100,          -- NHWC SIMD kernels: percent of the detected L1d the reused rows of a wide pass may fill
  },

  -- Tunable params (docs/tuning.md): every value is correct (the partition
  -- still depends on the shapes only, so thread-count independence holds).
  knobs = {
    { name = "PIECE", tag = "p", values = { 32, 64, 128, 256 }, doc = "pixels per piece (NCHW SIMD: vectors per lane)" },
    { name = "TASKWORK", tag = "t", values = { 65536, 262144, 1048576 }, doc = "multiply-adds per task: the thread work grain" },
    { name = "L1B", tag = "l", values = { 0, 16384, 32768, 65536 },
      doc = "NHWC SIMD kernels: bytes of x and dy a piece may span (0: no bound)" },
    { name = "PF", tag = "pf", values = { 0, 1 }, doc = "SIMD kernels: prefetch (NHWC: the next channel vector; NCHW: rows ahead)" },
    { name = "L1W", tag = "w", values = { 0, 50, 100, 200, 100000 },
      doc = "NHWC SIMD kernels: percent of the detected L1d the reused rows of a wide pass may fill (0: never wide)" },
  },
}
