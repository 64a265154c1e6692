-- MobileNetV2 1.0 at 224x224, NHWC, batch 1: every batch-norm and depthwise gradient of a training step, traced from tf-keras.
-- Traced from tf_keras.applications.MobileNetV2(alpha=1.0, input_shape=(224,224,3), weights=None) (Keras model mobilenetv2_1.00_224) with TensorFlow 2.21.0, tf-keras 2.21.0: one training step, batch 1, policy float32:
-- 17 DepthwiseConv2dNativeBackpropFilter, 17 DepthwiseConv2dNativeBackpropInput, 52 FusedBatchNormGradV3.
-- Written by tools/models/keras_manifest.py; regenerate, do not edit:
--   bash tools/keras-manifest.sh --app MobileNetV2 --arg alpha=1.0 --input-shape 224,224,3 --batch 1 --name mobilenet_v2_224 --summary 'MobileNetV2 1.0 at 224x224, NHWC, batch 1: every batch-norm and depthwise gradient of a training step, traced from tf-keras.' --out FILE
return {
  name = "mobilenet_v2_224",
  summary = "MobileNetV2 1.0 at 224x224, NHWC, batch 1: every batch-norm and depthwise gradient of a training step, traced from tf-keras.",
  instances = {
    -- Conv_1_bn (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/Conv_1_bn/FusedBatchNormGradV3
    { name = "Conv_1_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 7, 7, 1280 }, x = { 1, 7, 7, 1280 }, scale = { 1280 }, reserve_space_1 = { 1280 }, reserve_space_2 = { 1280 }, reserve_space_3 = {} } },
    -- block_16_project_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_16_project_BN/FusedBatchNormGradV3
    { name = "block_16_project_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 7, 7, 320 }, x = { 1, 7, 7, 320 }, scale = { 320 }, reserve_space_1 = { 320 }, reserve_space_2 = { 320 }, reserve_space_3 = {} } },
    -- block_16_depthwise_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_16_depthwise_BN/FusedBatchNormGradV3
    { name = "block_16_depthwise_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 7, 7, 960 }, x = { 1, 7, 7, 960 }, scale = { 960 }, reserve_space_1 = { 960 }, reserve_space_2 = { 960 }, reserve_space_3 = {} } },
    -- block_16_depthwise (DepthwiseConv2D): gradient_tape/mobilenetv2_1.00_224/block_16_depthwise/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "block_16_depthwise", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 3, 3, 960, 1 }, out_backprop = { 1, 7, 7, 960 } },
      values = { input_sizes = { 1, 7, 7, 960 } } },
    -- block_16_depthwise (DepthwiseConv2D): gradient_tape/mobilenetv2_1.00_224/block_16_depthwise/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "block_16_depthwise/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 7, 7, 960 }, filter_sizes = { 4 }, out_backprop = { 1, 7, 7, 960 } },
      values = { filter_sizes = { 3, 3, 960, 1 } } },
    -- block_16_expand_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_16_expand_BN/FusedBatchNormGradV3
    { name = "block_16_expand_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 7, 7, 960 }, x = { 1, 7, 7, 960 }, scale = { 960 }, reserve_space_1 = { 960 }, reserve_space_2 = { 960 }, reserve_space_3 = {} } },
    -- block_15_project_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_15_project_BN/FusedBatchNormGradV3
    { name = "block_15_project_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 7, 7, 160 }, x = { 1, 7, 7, 160 }, scale = { 160 }, reserve_space_1 = { 160 }, reserve_space_2 = { 160 }, reserve_space_3 = {} } },
    -- block_15_depthwise_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_15_depthwise_BN/FusedBatchNormGradV3
    { name = "block_15_depthwise_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 7, 7, 960 }, x = { 1, 7, 7, 960 }, scale = { 960 }, reserve_space_1 = { 960 }, reserve_space_2 = { 960 }, reserve_space_3 = {} } },
    -- block_15_depthwise (DepthwiseConv2D): gradient_tape/mobilenetv2_1.00_224/block_15_depthwise/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "block_15_depthwise", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 3, 3, 960, 1 }, out_backprop = { 1, 7, 7, 960 } },
      values = { input_sizes = { 1, 7, 7, 960 } } },
    -- block_15_depthwise (DepthwiseConv2D): gradient_tape/mobilenetv2_1.00_224/block_15_depthwise/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "block_15_depthwise/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 7, 7, 960 }, filter_sizes = { 4 }, out_backprop = { 1, 7, 7, 960 } },
      values = { filter_sizes = { 3, 3, 960, 1 } } },
    -- block_15_expand_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_15_expand_BN/FusedBatchNormGradV3
    { name = "block_15_expand_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 7, 7, 960 }, x = { 1, 7, 7, 960 }, scale = { 960 }, reserve_space_1 = { 960 }, reserve_space_2 = { 960 }, reserve_space_3 = {} } },
    -- block_14_project_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_14_project_BN/FusedBatchNormGradV3
    { name = "block_14_project_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 7, 7, 160 }, x = { 1, 7, 7, 160 }, scale = { 160 }, reserve_space_1 = { 160 }, reserve_space_2 = { 160 }, reserve_space_3 = {} } },
    -- block_14_depthwise_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_14_depthwise_BN/FusedBatchNormGradV3
    { name = "block_14_depthwise_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 7, 7, 960 }, x = { 1, 7, 7, 960 }, scale = { 960 }, reserve_space_1 = { 960 }, reserve_space_2 = { 960 }, reserve_space_3 = {} } },
    -- block_14_depthwise (DepthwiseConv2D): gradient_tape/mobilenetv2_1.00_224/block_14_depthwise/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "block_14_depthwise", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 3, 3, 960, 1 }, out_backprop = { 1, 7, 7, 960 } },
      values = { input_sizes = { 1, 7, 7, 960 } } },
    -- block_14_depthwise (DepthwiseConv2D): gradient_tape/mobilenetv2_1.00_224/block_14_depthwise/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "block_14_depthwise/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 7, 7, 960 }, filter_sizes = { 4 }, out_backprop = { 1, 7, 7, 960 } },
      values = { filter_sizes = { 3, 3, 960, 1 } } },
    -- block_14_expand_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_14_expand_BN/FusedBatchNormGradV3
    { name = "block_14_expand_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 7, 7, 960 }, x = { 1, 7, 7, 960 }, scale = { 960 }, reserve_space_1 = { 960 }, reserve_space_2 = { 960 }, reserve_space_3 = {} } },
    -- block_13_project_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_13_project_BN/FusedBatchNormGradV3
    { name = "block_13_project_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 7, 7, 160 }, x = { 1, 7, 7, 160 }, scale = { 160 }, reserve_space_1 = { 160 }, reserve_space_2 = { 160 }, reserve_space_3 = {} } },
    -- block_13_depthwise_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_13_depthwise_BN/FusedBatchNormGradV3
    { name = "block_13_depthwise_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 7, 7, 576 }, x = { 1, 7, 7, 576 }, scale = { 576 }, reserve_space_1 = { 576 }, reserve_space_2 = { 576 }, reserve_space_3 = {} } },
    -- block_13_depthwise (DepthwiseConv2D): gradient_tape/mobilenetv2_1.00_224/block_13_depthwise/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "block_13_depthwise", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,2,2,1", padding = "VALID", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 3, 3, 576, 1 }, out_backprop = { 1, 7, 7, 576 } },
      values = { input_sizes = { 1, 15, 15, 576 } } },
    -- block_13_depthwise (DepthwiseConv2D): gradient_tape/mobilenetv2_1.00_224/block_13_depthwise/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "block_13_depthwise/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,2,2,1", padding = "VALID", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 15, 15, 576 }, filter_sizes = { 4 }, out_backprop = { 1, 7, 7, 576 } },
      values = { filter_sizes = { 3, 3, 576, 1 } } },
    -- block_13_expand_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_13_expand_BN/FusedBatchNormGradV3
    { name = "block_13_expand_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 576 }, x = { 1, 14, 14, 576 }, scale = { 576 }, reserve_space_1 = { 576 }, reserve_space_2 = { 576 }, reserve_space_3 = {} } },
    -- block_12_project_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_12_project_BN/FusedBatchNormGradV3
    { name = "block_12_project_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 96 }, x = { 1, 14, 14, 96 }, scale = { 96 }, reserve_space_1 = { 96 }, reserve_space_2 = { 96 }, reserve_space_3 = {} } },
    -- block_12_depthwise_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_12_depthwise_BN/FusedBatchNormGradV3
    { name = "block_12_depthwise_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 576 }, x = { 1, 14, 14, 576 }, scale = { 576 }, reserve_space_1 = { 576 }, reserve_space_2 = { 576 }, reserve_space_3 = {} } },
    -- block_12_depthwise (DepthwiseConv2D): gradient_tape/mobilenetv2_1.00_224/block_12_depthwise/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "block_12_depthwise", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 3, 3, 576, 1 }, out_backprop = { 1, 14, 14, 576 } },
      values = { input_sizes = { 1, 14, 14, 576 } } },
    -- block_12_depthwise (DepthwiseConv2D): gradient_tape/mobilenetv2_1.00_224/block_12_depthwise/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "block_12_depthwise/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 14, 14, 576 }, filter_sizes = { 4 }, out_backprop = { 1, 14, 14, 576 } },
      values = { filter_sizes = { 3, 3, 576, 1 } } },
    -- block_12_expand_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_12_expand_BN/FusedBatchNormGradV3
    { name = "block_12_expand_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 576 }, x = { 1, 14, 14, 576 }, scale = { 576 }, reserve_space_1 = { 576 }, reserve_space_2 = { 576 }, reserve_space_3 = {} } },
    -- block_11_project_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_11_project_BN/FusedBatchNormGradV3
    { name = "block_11_project_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 96 }, x = { 1, 14, 14, 96 }, scale = { 96 }, reserve_space_1 = { 96 }, reserve_space_2 = { 96 }, reserve_space_3 = {} } },
    -- block_11_depthwise_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_11_depthwise_BN/FusedBatchNormGradV3
    { name = "block_11_depthwise_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 576 }, x = { 1, 14, 14, 576 }, scale = { 576 }, reserve_space_1 = { 576 }, reserve_space_2 = { 576 }, reserve_space_3 = {} } },
    -- block_11_depthwise (DepthwiseConv2D): gradient_tape/mobilenetv2_1.00_224/block_11_depthwise/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "block_11_depthwise", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 3, 3, 576, 1 }, out_backprop = { 1, 14, 14, 576 } },
      values = { input_sizes = { 1, 14, 14, 576 } } },
    -- block_11_depthwise (DepthwiseConv2D): gradient_tape/mobilenetv2_1.00_224/block_11_depthwise/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "block_11_depthwise/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 14, 14, 576 }, filter_sizes = { 4 }, out_backprop = { 1, 14, 14, 576 } },
      values = { filter_sizes = { 3, 3, 576, 1 } } },
    -- block_11_expand_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_11_expand_BN/FusedBatchNormGradV3
    { name = "block_11_expand_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 576 }, x = { 1, 14, 14, 576 }, scale = { 576 }, reserve_space_1 = { 576 }, reserve_space_2 = { 576 }, reserve_space_3 = {} } },
    -- block_10_project_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_10_project_BN/FusedBatchNormGradV3
    { name = "block_10_project_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 96 }, x = { 1, 14, 14, 96 }, scale = { 96 }, reserve_space_1 = { 96 }, reserve_space_2 = { 96 }, reserve_space_3 = {} } },
    -- block_10_depthwise_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_10_depthwise_BN/FusedBatchNormGradV3
    { name = "block_10_depthwise_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 384 }, x = { 1, 14, 14, 384 }, scale = { 384 }, reserve_space_1 = { 384 }, reserve_space_2 = { 384 }, reserve_space_3 = {} } },
    -- block_10_depthwise (DepthwiseConv2D): gradient_tape/mobilenetv2_1.00_224/block_10_depthwise/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "block_10_depthwise", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 3, 3, 384, 1 }, out_backprop = { 1, 14, 14, 384 } },
      values = { input_sizes = { 1, 14, 14, 384 } } },
    -- block_10_depthwise (DepthwiseConv2D): gradient_tape/mobilenetv2_1.00_224/block_10_depthwise/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "block_10_depthwise/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 14, 14, 384 }, filter_sizes = { 4 }, out_backprop = { 1, 14, 14, 384 } },
      values = { filter_sizes = { 3, 3, 384, 1 } } },
    -- block_10_expand_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_10_expand_BN/FusedBatchNormGradV3
    { name = "block_10_expand_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 384 }, x = { 1, 14, 14, 384 }, scale = { 384 }, reserve_space_1 = { 384 }, reserve_space_2 = { 384 }, reserve_space_3 = {} } },
    -- block_9_project_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_9_project_BN/FusedBatchNormGradV3
    { name = "block_9_project_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 64 }, x = { 1, 14, 14, 64 }, scale = { 64 }, reserve_space_1 = { 64 }, reserve_space_2 = { 64 }, reserve_space_3 = {} } },
    -- block_9_depthwise_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_9_depthwise_BN/FusedBatchNormGradV3
    { name = "block_9_depthwise_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 384 }, x = { 1, 14, 14, 384 }, scale = { 384 }, reserve_space_1 = { 384 }, reserve_space_2 = { 384 }, reserve_space_3 = {} } },
    -- block_9_depthwise (DepthwiseConv2D): gradient_tape/mobilenetv2_1.00_224/block_9_depthwise/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "block_9_depthwise", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 3, 3, 384, 1 }, out_backprop = { 1, 14, 14, 384 } },
      values = { input_sizes = { 1, 14, 14, 384 } } },
    -- block_9_depthwise (DepthwiseConv2D): gradient_tape/mobilenetv2_1.00_224/block_9_depthwise/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "block_9_depthwise/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 14, 14, 384 }, filter_sizes = { 4 }, out_backprop = { 1, 14, 14, 384 } },
      values = { filter_sizes = { 3, 3, 384, 1 } } },
    -- block_9_expand_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_9_expand_BN/FusedBatchNormGradV3
    { name = "block_9_expand_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 384 }, x = { 1, 14, 14, 384 }, scale = { 384 }, reserve_space_1 = { 384 }, reserve_space_2 = { 384 }, reserve_space_3 = {} } },
    -- block_8_project_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_8_project_BN/FusedBatchNormGradV3
    { name = "block_8_project_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 64 }, x = { 1, 14, 14, 64 }, scale = { 64 }, reserve_space_1 = { 64 }, reserve_space_2 = { 64 }, reserve_space_3 = {} } },
    -- block_8_depthwise_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_8_depthwise_BN/FusedBatchNormGradV3
    { name = "block_8_depthwise_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 384 }, x = { 1, 14, 14, 384 }, scale = { 384 }, reserve_space_1 = { 384 }, reserve_space_2 = { 384 }, reserve_space_3 = {} } },
    -- block_8_depthwise (DepthwiseConv2D): gradient_tape/mobilenetv2_1.00_224/block_8_depthwise/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "block_8_depthwise", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 3, 3, 384, 1 }, out_backprop = { 1, 14, 14, 384 } },
      values = { input_sizes = { 1, 14, 14, 384 } } },
    -- block_8_depthwise (DepthwiseConv2D): gradient_tape/mobilenetv2_1.00_224/block_8_depthwise/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "block_8_depthwise/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 14, 14, 384 }, filter_sizes = { 4 }, out_backprop = { 1, 14, 14, 384 } },
      values = { filter_sizes = { 3, 3, 384, 1 } } },
    -- block_8_expand_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_8_expand_BN/FusedBatchNormGradV3
    { name = "block_8_expand_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 384 }, x = { 1, 14, 14, 384 }, scale = { 384 }, reserve_space_1 = { 384 }, reserve_space_2 = { 384 }, reserve_space_3 = {} } },
    -- block_7_project_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_7_project_BN/FusedBatchNormGradV3
    { name = "block_7_project_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 64 }, x = { 1, 14, 14, 64 }, scale = { 64 }, reserve_space_1 = { 64 }, reserve_space_2 = { 64 }, reserve_space_3 = {} } },
    -- block_7_depthwise_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_7_depthwise_BN/FusedBatchNormGradV3
    { name = "block_7_depthwise_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 384 }, x = { 1, 14, 14, 384 }, scale = { 384 }, reserve_space_1 = { 384 }, reserve_space_2 = { 384 }, reserve_space_3 = {} } },
    -- block_7_depthwise (DepthwiseConv2D): gradient_tape/mobilenetv2_1.00_224/block_7_depthwise/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "block_7_depthwise", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 3, 3, 384, 1 }, out_backprop = { 1, 14, 14, 384 } },
      values = { input_sizes = { 1, 14, 14, 384 } } },
    -- block_7_depthwise (DepthwiseConv2D): gradient_tape/mobilenetv2_1.00_224/block_7_depthwise/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "block_7_depthwise/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 14, 14, 384 }, filter_sizes = { 4 }, out_backprop = { 1, 14, 14, 384 } },
      values = { filter_sizes = { 3, 3, 384, 1 } } },
    -- block_7_expand_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_7_expand_BN/FusedBatchNormGradV3
    { name = "block_7_expand_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 384 }, x = { 1, 14, 14, 384 }, scale = { 384 }, reserve_space_1 = { 384 }, reserve_space_2 = { 384 }, reserve_space_3 = {} } },
    -- block_6_project_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_6_project_BN/FusedBatchNormGradV3
    { name = "block_6_project_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 64 }, x = { 1, 14, 14, 64 }, scale = { 64 }, reserve_space_1 = { 64 }, reserve_space_2 = { 64 }, reserve_space_3 = {} } },
    -- block_6_depthwise_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_6_depthwise_BN/FusedBatchNormGradV3
    { name = "block_6_depthwise_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 192 }, x = { 1, 14, 14, 192 }, scale = { 192 }, reserve_space_1 = { 192 }, reserve_space_2 = { 192 }, reserve_space_3 = {} } },
    -- block_6_depthwise (DepthwiseConv2D): gradient_tape/mobilenetv2_1.00_224/block_6_depthwise/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "block_6_depthwise", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,2,2,1", padding = "VALID", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 3, 3, 192, 1 }, out_backprop = { 1, 14, 14, 192 } },
      values = { input_sizes = { 1, 29, 29, 192 } } },
    -- block_6_depthwise (DepthwiseConv2D): gradient_tape/mobilenetv2_1.00_224/block_6_depthwise/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "block_6_depthwise/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,2,2,1", padding = "VALID", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 29, 29, 192 }, filter_sizes = { 4 }, out_backprop = { 1, 14, 14, 192 } },
      values = { filter_sizes = { 3, 3, 192, 1 } } },
    -- block_6_expand_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_6_expand_BN/FusedBatchNormGradV3
    { name = "block_6_expand_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 28, 28, 192 }, x = { 1, 28, 28, 192 }, scale = { 192 }, reserve_space_1 = { 192 }, reserve_space_2 = { 192 }, reserve_space_3 = {} } },
    -- block_5_project_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_5_project_BN/FusedBatchNormGradV3
    { name = "block_5_project_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 28, 28, 32 }, x = { 1, 28, 28, 32 }, scale = { 32 }, reserve_space_1 = { 32 }, reserve_space_2 = { 32 }, reserve_space_3 = {} } },
    -- block_5_depthwise_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_5_depthwise_BN/FusedBatchNormGradV3
    { name = "block_5_depthwise_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 28, 28, 192 }, x = { 1, 28, 28, 192 }, scale = { 192 }, reserve_space_1 = { 192 }, reserve_space_2 = { 192 }, reserve_space_3 = {} } },
    -- block_5_depthwise (DepthwiseConv2D): gradient_tape/mobilenetv2_1.00_224/block_5_depthwise/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "block_5_depthwise", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 3, 3, 192, 1 }, out_backprop = { 1, 28, 28, 192 } },
      values = { input_sizes = { 1, 28, 28, 192 } } },
    -- block_5_depthwise (DepthwiseConv2D): gradient_tape/mobilenetv2_1.00_224/block_5_depthwise/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "block_5_depthwise/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 28, 28, 192 }, filter_sizes = { 4 }, out_backprop = { 1, 28, 28, 192 } },
      values = { filter_sizes = { 3, 3, 192, 1 } } },
    -- block_5_expand_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_5_expand_BN/FusedBatchNormGradV3
    { name = "block_5_expand_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 28, 28, 192 }, x = { 1, 28, 28, 192 }, scale = { 192 }, reserve_space_1 = { 192 }, reserve_space_2 = { 192 }, reserve_space_3 = {} } },
    -- block_4_project_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_4_project_BN/FusedBatchNormGradV3
    { name = "block_4_project_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 28, 28, 32 }, x = { 1, 28, 28, 32 }, scale = { 32 }, reserve_space_1 = { 32 }, reserve_space_2 = { 32 }, reserve_space_3 = {} } },
    -- block_4_depthwise_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_4_depthwise_BN/FusedBatchNormGradV3
    { name = "block_4_depthwise_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 28, 28, 192 }, x = { 1, 28, 28, 192 }, scale = { 192 }, reserve_space_1 = { 192 }, reserve_space_2 = { 192 }, reserve_space_3 = {} } },
    -- block_4_depthwise (DepthwiseConv2D): gradient_tape/mobilenetv2_1.00_224/block_4_depthwise/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "block_4_depthwise", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 3, 3, 192, 1 }, out_backprop = { 1, 28, 28, 192 } },
      values = { input_sizes = { 1, 28, 28, 192 } } },
    -- block_4_depthwise (DepthwiseConv2D): gradient_tape/mobilenetv2_1.00_224/block_4_depthwise/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "block_4_depthwise/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 28, 28, 192 }, filter_sizes = { 4 }, out_backprop = { 1, 28, 28, 192 } },
      values = { filter_sizes = { 3, 3, 192, 1 } } },
    -- block_4_expand_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_4_expand_BN/FusedBatchNormGradV3
    { name = "block_4_expand_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 28, 28, 192 }, x = { 1, 28, 28, 192 }, scale = { 192 }, reserve_space_1 = { 192 }, reserve_space_2 = { 192 }, reserve_space_3 = {} } },
    -- block_3_project_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_3_project_BN/FusedBatchNormGradV3
    { name = "block_3_project_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 28, 28, 32 }, x = { 1, 28, 28, 32 }, scale = { 32 }, reserve_space_1 = { 32 }, reserve_space_2 = { 32 }, reserve_space_3 = {} } },
    -- block_3_depthwise_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_3_depthwise_BN/FusedBatchNormGradV3
    { name = "block_3_depthwise_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 28, 28, 144 }, x = { 1, 28, 28, 144 }, scale = { 144 }, reserve_space_1 = { 144 }, reserve_space_2 = { 144 }, reserve_space_3 = {} } },
    -- block_3_depthwise (DepthwiseConv2D): gradient_tape/mobilenetv2_1.00_224/block_3_depthwise/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "block_3_depthwise", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,2,2,1", padding = "VALID", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 3, 3, 144, 1 }, out_backprop = { 1, 28, 28, 144 } },
      values = { input_sizes = { 1, 57, 57, 144 } } },
    -- block_3_depthwise (DepthwiseConv2D): gradient_tape/mobilenetv2_1.00_224/block_3_depthwise/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "block_3_depthwise/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,2,2,1", padding = "VALID", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 57, 57, 144 }, filter_sizes = { 4 }, out_backprop = { 1, 28, 28, 144 } },
      values = { filter_sizes = { 3, 3, 144, 1 } } },
    -- block_3_expand_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_3_expand_BN/FusedBatchNormGradV3
    { name = "block_3_expand_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 56, 56, 144 }, x = { 1, 56, 56, 144 }, scale = { 144 }, reserve_space_1 = { 144 }, reserve_space_2 = { 144 }, reserve_space_3 = {} } },
    -- block_2_project_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_2_project_BN/FusedBatchNormGradV3
    { name = "block_2_project_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 56, 56, 24 }, x = { 1, 56, 56, 24 }, scale = { 24 }, reserve_space_1 = { 24 }, reserve_space_2 = { 24 }, reserve_space_3 = {} } },
    -- block_2_depthwise_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_2_depthwise_BN/FusedBatchNormGradV3
    { name = "block_2_depthwise_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 56, 56, 144 }, x = { 1, 56, 56, 144 }, scale = { 144 }, reserve_space_1 = { 144 }, reserve_space_2 = { 144 }, reserve_space_3 = {} } },
    -- block_2_depthwise (DepthwiseConv2D): gradient_tape/mobilenetv2_1.00_224/block_2_depthwise/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "block_2_depthwise", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 3, 3, 144, 1 }, out_backprop = { 1, 56, 56, 144 } },
      values = { input_sizes = { 1, 56, 56, 144 } } },
    -- block_2_depthwise (DepthwiseConv2D): gradient_tape/mobilenetv2_1.00_224/block_2_depthwise/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "block_2_depthwise/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 56, 56, 144 }, filter_sizes = { 4 }, out_backprop = { 1, 56, 56, 144 } },
      values = { filter_sizes = { 3, 3, 144, 1 } } },
    -- block_2_expand_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_2_expand_BN/FusedBatchNormGradV3
    { name = "block_2_expand_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 56, 56, 144 }, x = { 1, 56, 56, 144 }, scale = { 144 }, reserve_space_1 = { 144 }, reserve_space_2 = { 144 }, reserve_space_3 = {} } },
    -- block_1_project_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_1_project_BN/FusedBatchNormGradV3
    { name = "block_1_project_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 56, 56, 24 }, x = { 1, 56, 56, 24 }, scale = { 24 }, reserve_space_1 = { 24 }, reserve_space_2 = { 24 }, reserve_space_3 = {} } },
    -- block_1_depthwise_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_1_depthwise_BN/FusedBatchNormGradV3
    { name = "block_1_depthwise_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 56, 56, 96 }, x = { 1, 56, 56, 96 }, scale = { 96 }, reserve_space_1 = { 96 }, reserve_space_2 = { 96 }, reserve_space_3 = {} } },
    -- block_1_depthwise (DepthwiseConv2D): gradient_tape/mobilenetv2_1.00_224/block_1_depthwise/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "block_1_depthwise", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,2,2,1", padding = "VALID", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 3, 3, 96, 1 }, out_backprop = { 1, 56, 56, 96 } },
      values = { input_sizes = { 1, 113, 113, 96 } } },
    -- block_1_depthwise (DepthwiseConv2D): gradient_tape/mobilenetv2_1.00_224/block_1_depthwise/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "block_1_depthwise/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,2,2,1", padding = "VALID", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 113, 113, 96 }, filter_sizes = { 4 }, out_backprop = { 1, 56, 56, 96 } },
      values = { filter_sizes = { 3, 3, 96, 1 } } },
    -- block_1_expand_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/block_1_expand_BN/FusedBatchNormGradV3
    { name = "block_1_expand_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 112, 112, 96 }, x = { 1, 112, 112, 96 }, scale = { 96 }, reserve_space_1 = { 96 }, reserve_space_2 = { 96 }, reserve_space_3 = {} } },
    -- expanded_conv_project_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/expanded_conv_project_BN/FusedBatchNormGradV3
    { name = "expanded_conv_project_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 112, 112, 16 }, x = { 1, 112, 112, 16 }, scale = { 16 }, reserve_space_1 = { 16 }, reserve_space_2 = { 16 }, reserve_space_3 = {} } },
    -- expanded_conv_depthwise_BN (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/expanded_conv_depthwise_BN/FusedBatchNormGradV3
    { name = "expanded_conv_depthwise_BN", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 112, 112, 32 }, x = { 1, 112, 112, 32 }, scale = { 32 }, reserve_space_1 = { 32 }, reserve_space_2 = { 32 }, reserve_space_3 = {} } },
    -- expanded_conv_depthwise (DepthwiseConv2D): gradient_tape/mobilenetv2_1.00_224/expanded_conv_depthwise/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "expanded_conv_depthwise", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 3, 3, 32, 1 }, out_backprop = { 1, 112, 112, 32 } },
      values = { input_sizes = { 1, 112, 112, 32 } } },
    -- expanded_conv_depthwise (DepthwiseConv2D): gradient_tape/mobilenetv2_1.00_224/expanded_conv_depthwise/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "expanded_conv_depthwise/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 112, 112, 32 }, filter_sizes = { 4 }, out_backprop = { 1, 112, 112, 32 } },
      values = { filter_sizes = { 3, 3, 32, 1 } } },
    -- bn_Conv1 (BatchNormalization): gradient_tape/mobilenetv2_1.00_224/bn_Conv1/FusedBatchNormGradV3
    { name = "bn_Conv1", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 112, 112, 32 }, x = { 1, 112, 112, 32 }, scale = { 32 }, reserve_space_1 = { 32 }, reserve_space_2 = { 32 }, reserve_space_3 = {} } },
  },
}
