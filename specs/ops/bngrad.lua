-- FusedBatchNormGrad, FusedBatchNormGradV2, FusedBatchNormGradV3: the
-- gradient of fused batch normalization, with TensorFlow's CPU semantics
-- (docs/tf_semantics.md section 1). Data only.

local eps = { name = "epsilon", kind = "float", default = 0.0001,
              doc = "added to the variance inside the rsqrt; any value, negative included" }
local train = { name = "is_training", kind = "bool", default = true,
                doc = "true: batch statistics (reserve spaces); false: frozen population statistics" }
local fmt2d = { name = "data_format", kind = "string", default = "NHWC", allowed = { "NHWC", "NCHW" } }
local fmt3d = { name = "data_format", kind = "string", default = "NHWC",
                allowed = { "NHWC", "NCHW", "NDHWC", "NCDHW" } }

-- x_backprop may be y_backprop's buffer: every kernel (templates/bngrad,
-- the generic one too) reads dy[e] and x[e] before it writes dx[e].
local grads = {
  { name = "x_backprop", type = "T", in_place_of = "y_backprop" },
  { name = "scale_backprop", type = "U" },
  { name = "offset_backprop", type = "U" },
}

return {
  family = "bngrad",
  summary = "Batch-norm gradient: x_backprop, scale_backprop, offset_backprop.",

  ops = {
    {
      name = "FusedBatchNormGrad", enum = "KF_OP_FUSED_BATCH_NORM_GRAD",
      doc = "V1: everything float.",
      inputs = {
        { name = "y_backprop", type = "T" }, { name = "x", type = "T" },
        { name = "scale", type = "T" },
        { name = "reserve_space_1", type = "T", doc = "mean" },
        { name = "reserve_space_2", type = "T", doc = "biased variance", range = { 0.1, 2.0 } },
      },
      outputs = {
        grads[1], { name = "scale_backprop", type = "T" }, { name = "offset_backprop", type = "T" },
        { name = "reserve_space_3", type = "T", doc = "placeholder, shape [0]" },
        { name = "reserve_space_4", type = "T", doc = "placeholder, shape [0]" },
      },
      attrs = { { name = "T", kind = "type", default = "float", allowed = { "float" } }, eps, fmt2d, train },
    },
    {
      name = "FusedBatchNormGradV2", enum = "KF_OP_FUSED_BATCH_NORM_GRAD_V2",
      inputs = {
        { name = "y_backprop", type = "T" }, { name = "x", type = "T" },
        { name = "scale", type = "float" },
        { name = "reserve_space_1", type = "U" }, { name = "reserve_space_2", type = "U", range = { 0.1, 2.0 } },
      },
      outputs = {
        grads[1], grads[2], grads[3],
        { name = "reserve_space_3", type = "U" }, { name = "reserve_space_4", type = "U" },
      },
      attrs = {
        { name = "T", kind = "type", allowed = { "half", "bfloat16", "float" } },
        { name = "U", kind = "type", default = "float", allowed = { "float" } },
        eps, fmt2d, train,
      },
    },
    {
      name = "FusedBatchNormGradV3", enum = "KF_OP_FUSED_BATCH_NORM_GRAD_V3",
      inputs = {
        { name = "y_backprop", type = "T" }, { name = "x", type = "T" },
        { name = "scale", type = "float" },
        { name = "reserve_space_1", type = "U" }, { name = "reserve_space_2", type = "U", range = { 0.1, 2.0 } },
        { name = "reserve_space_3", type = "U", doc = "ignored on CPU, any shape" },
      },
      outputs = {
        grads[1], grads[2], grads[3],
        { name = "reserve_space_4", type = "U" }, { name = "reserve_space_5", type = "U" },
      },
      attrs = {
        { name = "T", kind = "type", allowed = { "half", "bfloat16", "float" } },
        { name = "U", kind = "type", default = "float", allowed = { "float" } },
        eps, fmt3d, train,
      },
    },
  },

  -- TF's checks in TF's order (section 1.11); %s is filled by the runtime.
  rules = {
    { id = "input_dtype", tf = "op def",
      message = "%s must be %s, got %s" },
    { id = "dy_rank", tf = "1.11 compute 1", message = "input must be 4 or 5-dimensional%s" },
    { id = "x_rank", tf = "1.11 compute 2", message = "input must be 4 or 5-dimensional%s" },
    { id = "scale_rank", tf = "1.11 compute 3", message = "scale must be 1-dimensional%s" },
    { id = "mean_rank", tf = "1.11 compute 4", message = "saved mean must be 1-dimensional%s" },
    { id = "var_rank", tf = "1.11 compute 5", message = "saved variance must be 1-dimensional%s" },
    { id = "same_shape", tf = "1.11 compute 6",
      message = "x and y_backprop must have same shape, but x has shape %s and y_backprop has shape %s" },
    { id = "scale_channels", tf = "1.11 compute 8",
      message = "scale must have the same number of elements as the channels of x, got %lld and %lld" },
    { id = "mean_channels", tf = "1.11 compute 9",
      message = "reserve_space_1 must have the same number of elements as the channels of x, got %lld and %lld" },
    { id = "var_channels", tf = "1.11 compute 10",
      message = "reserve_space_2 must have the same number of elements as the channels of x, got %lld and %lld" },
  },

  -- Specialization axes. The 5-D layouts are the 4-D ones with the spatial
  -- dims merged (TF does the same view), so rank is not a code axis.
  axes = {
    { name = "T", values = { "f16", "bf16", "f32" } }, -- C constants: generator/dtypes.lua
    { name = "layout", values = { "nhwc", "nchw" },
      c = { nhwc = "KFI_CHANNELS_LAST", nchw = "KFI_CHANNELS_FIRST" },
      doc = "nhwc: NHWC and NDHWC; nchw: NCHW and NCDHW" },
    { name = "mode", values = { "train", "infer" }, c = { train = "1", infer = "0" },
      doc = "is_training" },
  },

  kernels = {
    { kind = "specialized", axes = { "T", "layout", "mode" }, isas = { "scalar", "avx2", "avx512", "neon", "mve" },
      name = "bngrad_${T}_${layout}_${mode}", template = "bngrad/${layout}.c.in",
      config = "T=${T} layout=${layout} mode=${mode}",
      doc = "two-pass (train) or one-pass (infer) kernels: fixed-size tasks, register-tiled channels, "
        .. "deterministic reduction for any thread count, streaming stores for large x_backprop" },
    { kind = "generic", axes = { "T" },
      name = "bngrad_${T}_generic", template = "bngrad/generic.c.in",
      config = "T=${T} layout=any mode=any",
      doc = "any layout and mode through runtime strides; the fallback" },
  },

  blocks = { rows = "BLOCK" }, -- kernel metadata: rows per partial sum (tests aim at it)
  params = {
    BLOCK = 256,        -- rows (channels last) or vector pairs (channels first) per partial sum
    L1_ELEMS = 0,       -- pass-1 sub-block (channels last): rows of at most this many elements (0: L1d / 8)
    TASK = 0,           -- elements per task (both passes), fixed per plan, so sums never depend on threads (0: L2 / 8)
    PAR_MIN = 262144,   -- fewer elements than this: tasks run on the calling thread
    NT_MIN = 0,         -- x_backprop bytes from which pass 2 uses streaming stores (0: a quarter of the LLC)
    SWEEP = 1,          -- channels last, C wider than two register tiles: pass 1 sweeps whole rows when the data exceed half the LLC, or when L1 sub-blocks hold under 8 rows and the sweep's sums fit half the L1d
  },

  -- Tunable params (docs/tuning.md): every value is correct; tools/tune.lua
  -- times them. TASK also fixes the reduction partition, so results stay
  -- independent of the thread count for every value.
  knobs = {
    { name = "L1_ELEMS", tag = "l", values = { 0, 1024, 2048, 4096, 8192, 16384 },
      doc = "pass-1 sub-block (channels last): elements kept hot in L1 (0: the cache rule, L1d bytes / 8)" },
    { name = "BLOCK", tag = "b", values = { 64, 128, 256, 512 }, doc = "rows or vector pairs per partial sum" },
    { name = "TASK", tag = "t", values = { 0, 16384, 65536, 262144 },
      doc = "elements per task: the thread work grain (0: the cache rule, L2 bytes / 8)" },
    { name = "NT_MIN", tag = "nt", values = { 0, 1048576, 8388608, 1073741824 },
      doc = "x_backprop bytes from which pass 2 streams its stores (0: the cache rule, a quarter of the last-level cache; 1 GiB: never)" },
    { name = "SWEEP", tag = "w", values = { 0, 1, 2 },
      doc = "pass 1 over rows wider than a register tile: channel tiles down L1_ELEMS sub-blocks (0), whole rows with the sums in L1 (2), or whole rows when C is wider than two tiles and dy, x and dx exceed half the last-level cache or the L1 sub-blocks hold under 8 rows while the sums fit half the L1d (1)" },
  },

  -- The family's hand-written files (the build and the tools list them from here).
  sources = {
    runtime = { "runtime/bngrad_plan.c", "runtime/bngrad_entry.c" },
    bench = { "bench/bench_bngrad.c" },
    bench_py = { "bench/bench_torch.py" },
  },
}
