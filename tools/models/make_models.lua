-- make_models.lua -- writes the hand-written model manifests
-- (specs/models/resnet8_cifar.lua, kws_dscnn.lua): the batch-norm and
-- depthwise input- and filter-gradient calls of one training step of each
-- model, from its architecture. The MobileNetV2 manifests (and
-- MobileNetV3-Small, EfficientNet-B0) are traced from tf-keras by
-- tools/keras-manifest.sh instead (docs/models.md). Run from the
-- repository root:
--   lua5.4 tools/models/make_models.lua
-- Deterministic; the manifests are checked in.
package.path = "generator/?.lua;" .. package.path
local spec = require "spec"
local model = require "model"

-- The families kforge knows (specs/families.lua): a depthwise layer gets its
-- filter-gradient call only where the dwbpf family exists.
local families = dofile("specs/families.lua")
local specs = {}
for _, f in ipairs(families) do specs[f] = assert(spec.load_op("specs", f)) end

local function builder(name, summary, fmt)
  local m = { name = name, summary = summary, instances = {} }
  local last = fmt ~= "NCHW"
  local function shape(n, h, w, c) return last and { n, h, w, c } or { n, c, h, w } end
  function m.bn(lname, n, h, w, c)
    m.instances[#m.instances + 1] = {
      name = lname, op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = fmt, is_training = "true" },
      inputs = { y_backprop = shape(n, h, w, c), x = shape(n, h, w, c), scale = { c }, reserve_space_1 = { c },
                 reserve_space_2 = { c }, reserve_space_3 = {} },
    }
  end
  -- Depthwise kxk, stride s, TF SAME, multiplier 1: input [n,h,w,c]. The
  -- layer's two gradients: input (lname) and filter (lname .. "/filter"),
  -- with the same attributes.
  function m.dw(lname, n, h, w, c, k, s)
    local oh, ow = (h + s - 1) // s, (w + s - 1) // s
    local attrs = { T = "float", strides = last and ("1," .. s .. "," .. s .. ",1") or ("1,1," .. s .. "," .. s),
                    padding = "SAME", explicit_paddings = "", data_format = fmt, dilations = "1,1,1,1" }
    m.instances[#m.instances + 1] = {
      name = lname, op = "DepthwiseConv2dNativeBackpropInput", attrs = attrs,
      inputs = { input_sizes = { 4 }, filter = { k, k, c, 1 }, out_backprop = shape(n, oh, ow, c) },
      values = { input_sizes = shape(n, h, w, c) },
    }
    if specs.dwbpf then
      local fattrs = {}
      for key, v in pairs(attrs) do fattrs[key] = v end
      m.instances[#m.instances + 1] = {
        name = lname .. "/filter", op = "DepthwiseConv2dNativeBackpropFilter", attrs = fattrs,
        inputs = { input = shape(n, h, w, c), filter_sizes = { 4 }, out_backprop = shape(n, oh, ow, c) },
        values = { filter_sizes = { k, k, c, 1 } },
      }
    end
    return oh, ow
  end
  return m
end

-- A CIFAR-style ResNet-8 (He et al. 2016), NCHW as PyTorch lays it out, batch 8.
local function resnet8()
  local m = builder("resnet8_cifar", "ResNet-8 for 32x32 images (3 stages of one basic block), NCHW, batch 8: " ..
    "batch-norm gradients only.", "NCHW")
  m.bn("stem/bn", 8, 32, 32, 16)
  local h, c = 32, 16
  for stage, cout in ipairs({ 16, 32, 64 }) do
    local s = stage == 1 and 1 or 2
    local oh = h // s
    local p = string.format("stage%d/", stage)
    m.bn(p .. "conv1/bn", 8, oh, oh, cout)
    m.bn(p .. "conv2/bn", 8, oh, oh, cout)
    if s ~= 1 or cout ~= c then m.bn(p .. "shortcut/bn", 8, oh, oh, cout) end
    h, c = oh, cout
  end
  return m
end

-- DS-CNN keyword spotting (Zhang et al. 2017, "Hello Edge"), small: 49x10
-- MFCC input, a 10x4 stride-2 convolution to 64 channels, four
-- depthwise-separable blocks. Batch 1; fits a Cortex-M4's RAM.
local function kws()
  local m = builder("kws_dscnn", "DS-CNN keyword spotting (49x10 MFCC, 64 channels, 4 depthwise-separable " ..
    "blocks), NHWC, batch 1: sized for a Cortex-M4.", "NHWC")
  m.bn("conv1/bn", 1, 25, 5, 64)
  for i = 1, 4 do
    local p = string.format("ds%d/", i)
    m.dw(p .. "depthwise", 1, 25, 5, 64, 3, 1)
    m.bn(p .. "depthwise/bn", 1, 25, 5, 64)
    m.bn(p .. "pointwise/bn", 1, 25, 5, 64)
  end
  return m
end

local models = {
  resnet8(),
  kws(),
}

for _, m in ipairs(models) do
  m.bn, m.dw = nil, nil -- the builder's methods are not data
  local ok, err = model.validate(m, specs, m.name)
  assert(ok, err)
  local path = "specs/models/" .. m.name .. ".lua"
  local f = assert(io.open(path, "wb"))
  f:write(model.format(m, specs, "-- " .. m.summary .. "\n-- Written by tools/models/make_models.lua from the " ..
    "architecture; edit that script, not this file.\n"))
  f:close()
  print(string.format("%s: %d instances", path, #m.instances))
end
