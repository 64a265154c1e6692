-- MobileNetV3-Small 1.0 at 224x224 (minimalistic=False, with its preprocessing), NHWC, batch 1: every batch-norm and depthwise gradient of a training step, traced from tf-keras.
-- Traced from tf_keras.applications.MobileNetV3Small(input_shape=(224,224,3), weights=None) (Keras model MobilenetV3small) with TensorFlow 2.21.0, tf-keras 2.21.0: one training step, batch 1, policy float32:
-- 11 DepthwiseConv2dNativeBackpropFilter, 11 DepthwiseConv2dNativeBackpropInput, 34 FusedBatchNormGradV3.
-- Written by tools/models/keras_manifest.py; regenerate, do not edit:
--   bash tools/keras-manifest.sh --app MobileNetV3Small --input-shape 224,224,3 --batch 1 --name mobilenet_v3_small --summary 'MobileNetV3-Small 1.0 at 224x224 (minimalistic=False, with its preprocessing), NHWC, batch 1: every batch-norm and depthwise gradient of a training step, traced from tf-keras.' --out FILE
return {
  name = "mobilenet_v3_small",
  summary = "MobileNetV3-Small 1.0 at 224x224 (minimalistic=False, with its preprocessing), NHWC, batch 1: every batch-norm and depthwise gradient of a training step, traced from tf-keras.",
  instances = {
    -- Conv_1/BatchNorm (BatchNormalization): gradient_tape/MobilenetV3small/Conv_1/BatchNorm/FusedBatchNormGradV3
    { name = "Conv_1/BatchNorm", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 7, 7, 576 }, x = { 1, 7, 7, 576 }, scale = { 576 }, reserve_space_1 = { 576 }, reserve_space_2 = { 576 }, reserve_space_3 = {} } },
    -- expanded_conv_10/project/BatchNorm (BatchNormalization): gradient_tape/MobilenetV3small/expanded_conv_10/project/BatchNorm/FusedBatchNormGradV3
    { name = "expanded_conv_10/project/BatchNorm", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 7, 7, 96 }, x = { 1, 7, 7, 96 }, scale = { 96 }, reserve_space_1 = { 96 }, reserve_space_2 = { 96 }, reserve_space_3 = {} } },
    -- expanded_conv_10/depthwise/BatchNorm (BatchNormalization): gradient_tape/MobilenetV3small/expanded_conv_10/depthwise/BatchNorm/FusedBatchNormGradV3
    { name = "expanded_conv_10/depthwise/BatchNorm", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 7, 7, 576 }, x = { 1, 7, 7, 576 }, scale = { 576 }, reserve_space_1 = { 576 }, reserve_space_2 = { 576 }, reserve_space_3 = {} } },
    -- expanded_conv_10/depthwise (DepthwiseConv2D): gradient_tape/MobilenetV3small/expanded_conv_10/depthwise/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "expanded_conv_10/depthwise", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 5, 5, 576, 1 }, out_backprop = { 1, 7, 7, 576 } },
      values = { input_sizes = { 1, 7, 7, 576 } } },
    -- expanded_conv_10/depthwise (DepthwiseConv2D): gradient_tape/MobilenetV3small/expanded_conv_10/depthwise/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "expanded_conv_10/depthwise/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 7, 7, 576 }, filter_sizes = { 4 }, out_backprop = { 1, 7, 7, 576 } },
      values = { filter_sizes = { 5, 5, 576, 1 } } },
    -- expanded_conv_10/expand/BatchNorm (BatchNormalization): gradient_tape/MobilenetV3small/expanded_conv_10/expand/BatchNorm/FusedBatchNormGradV3
    { name = "expanded_conv_10/expand/BatchNorm", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 7, 7, 576 }, x = { 1, 7, 7, 576 }, scale = { 576 }, reserve_space_1 = { 576 }, reserve_space_2 = { 576 }, reserve_space_3 = {} } },
    -- expanded_conv_9/project/BatchNorm (BatchNormalization): gradient_tape/MobilenetV3small/expanded_conv_9/project/BatchNorm/FusedBatchNormGradV3
    { name = "expanded_conv_9/project/BatchNorm", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 7, 7, 96 }, x = { 1, 7, 7, 96 }, scale = { 96 }, reserve_space_1 = { 96 }, reserve_space_2 = { 96 }, reserve_space_3 = {} } },
    -- expanded_conv_9/depthwise/BatchNorm (BatchNormalization): gradient_tape/MobilenetV3small/expanded_conv_9/depthwise/BatchNorm/FusedBatchNormGradV3
    { name = "expanded_conv_9/depthwise/BatchNorm", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 7, 7, 576 }, x = { 1, 7, 7, 576 }, scale = { 576 }, reserve_space_1 = { 576 }, reserve_space_2 = { 576 }, reserve_space_3 = {} } },
    -- expanded_conv_9/depthwise (DepthwiseConv2D): gradient_tape/MobilenetV3small/expanded_conv_9/depthwise/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "expanded_conv_9/depthwise", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 5, 5, 576, 1 }, out_backprop = { 1, 7, 7, 576 } },
      values = { input_sizes = { 1, 7, 7, 576 } } },
    -- expanded_conv_9/depthwise (DepthwiseConv2D): gradient_tape/MobilenetV3small/expanded_conv_9/depthwise/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "expanded_conv_9/depthwise/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 7, 7, 576 }, filter_sizes = { 4 }, out_backprop = { 1, 7, 7, 576 } },
      values = { filter_sizes = { 5, 5, 576, 1 } } },
    -- expanded_conv_9/expand/BatchNorm (BatchNormalization): gradient_tape/MobilenetV3small/expanded_conv_9/expand/BatchNorm/FusedBatchNormGradV3
    { name = "expanded_conv_9/expand/BatchNorm", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 7, 7, 576 }, x = { 1, 7, 7, 576 }, scale = { 576 }, reserve_space_1 = { 576 }, reserve_space_2 = { 576 }, reserve_space_3 = {} } },
    -- expanded_conv_8/project/BatchNorm (BatchNormalization): gradient_tape/MobilenetV3small/expanded_conv_8/project/BatchNorm/FusedBatchNormGradV3
    { name = "expanded_conv_8/project/BatchNorm", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 7, 7, 96 }, x = { 1, 7, 7, 96 }, scale = { 96 }, reserve_space_1 = { 96 }, reserve_space_2 = { 96 }, reserve_space_3 = {} } },
    -- expanded_conv_8/depthwise/BatchNorm (BatchNormalization): gradient_tape/MobilenetV3small/expanded_conv_8/depthwise/BatchNorm/FusedBatchNormGradV3
    { name = "expanded_conv_8/depthwise/BatchNorm", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 7, 7, 288 }, x = { 1, 7, 7, 288 }, scale = { 288 }, reserve_space_1 = { 288 }, reserve_space_2 = { 288 }, reserve_space_3 = {} } },
    -- expanded_conv_8/depthwise (DepthwiseConv2D): gradient_tape/MobilenetV3small/expanded_conv_8/depthwise/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "expanded_conv_8/depthwise", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,2,2,1", padding = "VALID", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 5, 5, 288, 1 }, out_backprop = { 1, 7, 7, 288 } },
      values = { input_sizes = { 1, 17, 17, 288 } } },
    -- expanded_conv_8/depthwise (DepthwiseConv2D): gradient_tape/MobilenetV3small/expanded_conv_8/depthwise/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "expanded_conv_8/depthwise/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,2,2,1", padding = "VALID", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 17, 17, 288 }, filter_sizes = { 4 }, out_backprop = { 1, 7, 7, 288 } },
      values = { filter_sizes = { 5, 5, 288, 1 } } },
    -- expanded_conv_8/expand/BatchNorm (BatchNormalization): gradient_tape/MobilenetV3small/expanded_conv_8/expand/BatchNorm/FusedBatchNormGradV3
    { name = "expanded_conv_8/expand/BatchNorm", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 288 }, x = { 1, 14, 14, 288 }, scale = { 288 }, reserve_space_1 = { 288 }, reserve_space_2 = { 288 }, reserve_space_3 = {} } },
    -- expanded_conv_7/project/BatchNorm (BatchNormalization): gradient_tape/MobilenetV3small/expanded_conv_7/project/BatchNorm/FusedBatchNormGradV3
    { name = "expanded_conv_7/project/BatchNorm", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 48 }, x = { 1, 14, 14, 48 }, scale = { 48 }, reserve_space_1 = { 48 }, reserve_space_2 = { 48 }, reserve_space_3 = {} } },
    -- expanded_conv_7/depthwise/BatchNorm (BatchNormalization): gradient_tape/MobilenetV3small/expanded_conv_7/depthwise/BatchNorm/FusedBatchNormGradV3
    { name = "expanded_conv_7/depthwise/BatchNorm", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 144 }, x = { 1, 14, 14, 144 }, scale = { 144 }, reserve_space_1 = { 144 }, reserve_space_2 = { 144 }, reserve_space_3 = {} } },
    -- expanded_conv_7/depthwise (DepthwiseConv2D): gradient_tape/MobilenetV3small/expanded_conv_7/depthwise/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "expanded_conv_7/depthwise", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 5, 5, 144, 1 }, out_backprop = { 1, 14, 14, 144 } },
      values = { input_sizes = { 1, 14, 14, 144 } } },
    -- expanded_conv_7/depthwise (DepthwiseConv2D): gradient_tape/MobilenetV3small/expanded_conv_7/depthwise/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "expanded_conv_7/depthwise/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 14, 14, 144 }, filter_sizes = { 4 }, out_backprop = { 1, 14, 14, 144 } },
      values = { filter_sizes = { 5, 5, 144, 1 } } },
    -- expanded_conv_7/expand/BatchNorm (BatchNormalization): gradient_tape/MobilenetV3small/expanded_conv_7/expand/BatchNorm/FusedBatchNormGradV3
    { name = "expanded_conv_7/expand/BatchNorm", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 144 }, x = { 1, 14, 14, 144 }, scale = { 144 }, reserve_space_1 = { 144 }, reserve_space_2 = { 144 }, reserve_space_3 = {} } },
    -- expanded_conv_6/project/BatchNorm (BatchNormalization): gradient_tape/MobilenetV3small/expanded_conv_6/project/BatchNorm/FusedBatchNormGradV3
    { name = "expanded_conv_6/project/BatchNorm", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 48 }, x = { 1, 14, 14, 48 }, scale = { 48 }, reserve_space_1 = { 48 }, reserve_space_2 = { 48 }, reserve_space_3 = {} } },
    -- expanded_conv_6/depthwise/BatchNorm (BatchNormalization): gradient_tape/MobilenetV3small/expanded_conv_6/depthwise/BatchNorm/FusedBatchNormGradV3
    { name = "expanded_conv_6/depthwise/BatchNorm", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 120 }, x = { 1, 14, 14, 120 }, scale = { 120 }, reserve_space_1 = { 120 }, reserve_space_2 = { 120 }, reserve_space_3 = {} } },
    -- expanded_conv_6/depthwise (DepthwiseConv2D): gradient_tape/MobilenetV3small/expanded_conv_6/depthwise/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "expanded_conv_6/depthwise", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 5, 5, 120, 1 }, out_backprop = { 1, 14, 14, 120 } },
      values = { input_sizes = { 1, 14, 14, 120 } } },
    -- expanded_conv_6/depthwise (DepthwiseConv2D): gradient_tape/MobilenetV3small/expanded_conv_6/depthwise/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "expanded_conv_6/depthwise/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 14, 14, 120 }, filter_sizes = { 4 }, out_backprop = { 1, 14, 14, 120 } },
      values = { filter_sizes = { 5, 5, 120, 1 } } },
    -- expanded_conv_6/expand/BatchNorm (BatchNormalization): gradient_tape/MobilenetV3small/expanded_conv_6/expand/BatchNorm/FusedBatchNormGradV3
    { name = "expanded_conv_6/expand/BatchNorm", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 120 }, x = { 1, 14, 14, 120 }, scale = { 120 }, reserve_space_1 = { 120 }, reserve_space_2 = { 120 }, reserve_space_3 = {} } },
    -- expanded_conv_5/project/BatchNorm (BatchNormalization): gradient_tape/MobilenetV3small/expanded_conv_5/project/BatchNorm/FusedBatchNormGradV3
    { name = "expanded_conv_5/project/BatchNorm", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 40 }, x = { 1, 14, 14, 40 }, scale = { 40 }, reserve_space_1 = { 40 }, reserve_space_2 = { 40 }, reserve_space_3 = {} } },
    -- expanded_conv_5/depthwise/BatchNorm (BatchNormalization): gradient_tape/MobilenetV3small/expanded_conv_5/depthwise/BatchNorm/FusedBatchNormGradV3
    { name = "expanded_conv_5/depthwise/BatchNorm", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 240 }, x = { 1, 14, 14, 240 }, scale = { 240 }, reserve_space_1 = { 240 }, reserve_space_2 = { 240 }, reserve_space_3 = {} } },
    -- expanded_conv_5/depthwise (DepthwiseConv2D): gradient_tape/MobilenetV3small/expanded_conv_5/depthwise/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "expanded_conv_5/depthwise", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 5, 5, 240, 1 }, out_backprop = { 1, 14, 14, 240 } },
      values = { input_sizes = { 1, 14, 14, 240 } } },
    -- expanded_conv_5/depthwise (DepthwiseConv2D): gradient_tape/MobilenetV3small/expanded_conv_5/depthwise/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "expanded_conv_5/depthwise/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 14, 14, 240 }, filter_sizes = { 4 }, out_backprop = { 1, 14, 14, 240 } },
      values = { filter_sizes = { 5, 5, 240, 1 } } },
    -- expanded_conv_5/expand/BatchNorm (BatchNormalization): gradient_tape/MobilenetV3small/expanded_conv_5/expand/BatchNorm/FusedBatchNormGradV3
    { name = "expanded_conv_5/expand/BatchNorm", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 240 }, x = { 1, 14, 14, 240 }, scale = { 240 }, reserve_space_1 = { 240 }, reserve_space_2 = { 240 }, reserve_space_3 = {} } },
    -- expanded_conv_4/project/BatchNorm (BatchNormalization): gradient_tape/MobilenetV3small/expanded_conv_4/project/BatchNorm/FusedBatchNormGradV3
    { name = "expanded_conv_4/project/BatchNorm", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 40 }, x = { 1, 14, 14, 40 }, scale = { 40 }, reserve_space_1 = { 40 }, reserve_space_2 = { 40 }, reserve_space_3 = {} } },
    -- expanded_conv_4/depthwise/BatchNorm (BatchNormalization): gradient_tape/MobilenetV3small/expanded_conv_4/depthwise/BatchNorm/FusedBatchNormGradV3
    { name = "expanded_conv_4/depthwise/BatchNorm", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 240 }, x = { 1, 14, 14, 240 }, scale = { 240 }, reserve_space_1 = { 240 }, reserve_space_2 = { 240 }, reserve_space_3 = {} } },
    -- expanded_conv_4/depthwise (DepthwiseConv2D): gradient_tape/MobilenetV3small/expanded_conv_4/depthwise/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "expanded_conv_4/depthwise", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 5, 5, 240, 1 }, out_backprop = { 1, 14, 14, 240 } },
      values = { input_sizes = { 1, 14, 14, 240 } } },
    -- expanded_conv_4/depthwise (DepthwiseConv2D): gradient_tape/MobilenetV3small/expanded_conv_4/depthwise/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "expanded_conv_4/depthwise/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 14, 14, 240 }, filter_sizes = { 4 }, out_backprop = { 1, 14, 14, 240 } },
      values = { filter_sizes = { 5, 5, 240, 1 } } },
    -- expanded_conv_4/expand/BatchNorm (BatchNormalization): gradient_tape/MobilenetV3small/expanded_conv_4/expand/BatchNorm/FusedBatchNormGradV3
    { name = "expanded_conv_4/expand/BatchNorm", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 240 }, x = { 1, 14, 14, 240 }, scale = { 240 }, reserve_space_1 = { 240 }, reserve_space_2 = { 240 }, reserve_space_3 = {} } },
    -- expanded_conv_3/project/BatchNorm (BatchNormalization): gradient_tape/MobilenetV3small/expanded_conv_3/project/BatchNorm/FusedBatchNormGradV3
    { name = "expanded_conv_3/project/BatchNorm", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 40 }, x = { 1, 14, 14, 40 }, scale = { 40 }, reserve_space_1 = { 40 }, reserve_space_2 = { 40 }, reserve_space_3 = {} } },
    -- expanded_conv_3/depthwise/BatchNorm (BatchNormalization): gradient_tape/MobilenetV3small/expanded_conv_3/depthwise/BatchNorm/FusedBatchNormGradV3
    { name = "expanded_conv_3/depthwise/BatchNorm", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 96 }, x = { 1, 14, 14, 96 }, scale = { 96 }, reserve_space_1 = { 96 }, reserve_space_2 = { 96 }, reserve_space_3 = {} } },
    -- expanded_conv_3/depthwise (DepthwiseConv2D): gradient_tape/MobilenetV3small/expanded_conv_3/depthwise/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "expanded_conv_3/depthwise", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,2,2,1", padding = "VALID", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 5, 5, 96, 1 }, out_backprop = { 1, 14, 14, 96 } },
      values = { input_sizes = { 1, 31, 31, 96 } } },
    -- expanded_conv_3/depthwise (DepthwiseConv2D): gradient_tape/MobilenetV3small/expanded_conv_3/depthwise/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "expanded_conv_3/depthwise/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,2,2,1", padding = "VALID", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 31, 31, 96 }, filter_sizes = { 4 }, out_backprop = { 1, 14, 14, 96 } },
      values = { filter_sizes = { 5, 5, 96, 1 } } },
    -- expanded_conv_3/expand/BatchNorm (BatchNormalization): gradient_tape/MobilenetV3small/expanded_conv_3/expand/BatchNorm/FusedBatchNormGradV3
    { name = "expanded_conv_3/expand/BatchNorm", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 28, 28, 96 }, x = { 1, 28, 28, 96 }, scale = { 96 }, reserve_space_1 = { 96 }, reserve_space_2 = { 96 }, reserve_space_3 = {} } },
    -- expanded_conv_2/project/BatchNorm (BatchNormalization): gradient_tape/MobilenetV3small/expanded_conv_2/project/BatchNorm/FusedBatchNormGradV3
    { name = "expanded_conv_2/project/BatchNorm", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 28, 28, 24 }, x = { 1, 28, 28, 24 }, scale = { 24 }, reserve_space_1 = { 24 }, reserve_space_2 = { 24 }, reserve_space_3 = {} } },
    -- expanded_conv_2/depthwise/BatchNorm (BatchNormalization): gradient_tape/MobilenetV3small/expanded_conv_2/depthwise/BatchNorm/FusedBatchNormGradV3
    { name = "expanded_conv_2/depthwise/BatchNorm", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 28, 28, 88 }, x = { 1, 28, 28, 88 }, scale = { 88 }, reserve_space_1 = { 88 }, reserve_space_2 = { 88 }, reserve_space_3 = {} } },
    -- expanded_conv_2/depthwise (DepthwiseConv2D): gradient_tape/MobilenetV3small/expanded_conv_2/depthwise/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "expanded_conv_2/depthwise", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 3, 3, 88, 1 }, out_backprop = { 1, 28, 28, 88 } },
      values = { input_sizes = { 1, 28, 28, 88 } } },
    -- expanded_conv_2/depthwise (DepthwiseConv2D): gradient_tape/MobilenetV3small/expanded_conv_2/depthwise/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "expanded_conv_2/depthwise/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 28, 28, 88 }, filter_sizes = { 4 }, out_backprop = { 1, 28, 28, 88 } },
      values = { filter_sizes = { 3, 3, 88, 1 } } },
    -- expanded_conv_2/expand/BatchNorm (BatchNormalization): gradient_tape/MobilenetV3small/expanded_conv_2/expand/BatchNorm/FusedBatchNormGradV3
    { name = "expanded_conv_2/expand/BatchNorm", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 28, 28, 88 }, x = { 1, 28, 28, 88 }, scale = { 88 }, reserve_space_1 = { 88 }, reserve_space_2 = { 88 }, reserve_space_3 = {} } },
    -- expanded_conv_1/project/BatchNorm (BatchNormalization): gradient_tape/MobilenetV3small/expanded_conv_1/project/BatchNorm/FusedBatchNormGradV3
    { name = "expanded_conv_1/project/BatchNorm", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 28, 28, 24 }, x = { 1, 28, 28, 24 }, scale = { 24 }, reserve_space_1 = { 24 }, reserve_space_2 = { 24 }, reserve_space_3 = {} } },
    -- expanded_conv_1/depthwise/BatchNorm (BatchNormalization): gradient_tape/MobilenetV3small/expanded_conv_1/depthwise/BatchNorm/FusedBatchNormGradV3
    { name = "expanded_conv_1/depthwise/BatchNorm", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 28, 28, 72 }, x = { 1, 28, 28, 72 }, scale = { 72 }, reserve_space_1 = { 72 }, reserve_space_2 = { 72 }, reserve_space_3 = {} } },
    -- expanded_conv_1/depthwise (DepthwiseConv2D): gradient_tape/MobilenetV3small/expanded_conv_1/depthwise/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "expanded_conv_1/depthwise", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,2,2,1", padding = "VALID", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 3, 3, 72, 1 }, out_backprop = { 1, 28, 28, 72 } },
      values = { input_sizes = { 1, 57, 57, 72 } } },
    -- expanded_conv_1/depthwise (DepthwiseConv2D): gradient_tape/MobilenetV3small/expanded_conv_1/depthwise/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "expanded_conv_1/depthwise/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,2,2,1", padding = "VALID", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 57, 57, 72 }, filter_sizes = { 4 }, out_backprop = { 1, 28, 28, 72 } },
      values = { filter_sizes = { 3, 3, 72, 1 } } },
    -- expanded_conv_1/expand/BatchNorm (BatchNormalization): gradient_tape/MobilenetV3small/expanded_conv_1/expand/BatchNorm/FusedBatchNormGradV3
    { name = "expanded_conv_1/expand/BatchNorm", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 56, 56, 72 }, x = { 1, 56, 56, 72 }, scale = { 72 }, reserve_space_1 = { 72 }, reserve_space_2 = { 72 }, reserve_space_3 = {} } },
    -- expanded_conv/project/BatchNorm (BatchNormalization): gradient_tape/MobilenetV3small/expanded_conv/project/BatchNorm/FusedBatchNormGradV3
    { name = "expanded_conv/project/BatchNorm", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 56, 56, 16 }, x = { 1, 56, 56, 16 }, scale = { 16 }, reserve_space_1 = { 16 }, reserve_space_2 = { 16 }, reserve_space_3 = {} } },
    -- expanded_conv/depthwise/BatchNorm (BatchNormalization): gradient_tape/MobilenetV3small/expanded_conv/depthwise/BatchNorm/FusedBatchNormGradV3
    { name = "expanded_conv/depthwise/BatchNorm", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 56, 56, 16 }, x = { 1, 56, 56, 16 }, scale = { 16 }, reserve_space_1 = { 16 }, reserve_space_2 = { 16 }, reserve_space_3 = {} } },
    -- expanded_conv/depthwise (DepthwiseConv2D): gradient_tape/MobilenetV3small/expanded_conv/depthwise/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "expanded_conv/depthwise", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,2,2,1", padding = "VALID", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 3, 3, 16, 1 }, out_backprop = { 1, 56, 56, 16 } },
      values = { input_sizes = { 1, 113, 113, 16 } } },
    -- expanded_conv/depthwise (DepthwiseConv2D): gradient_tape/MobilenetV3small/expanded_conv/depthwise/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "expanded_conv/depthwise/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,2,2,1", padding = "VALID", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 113, 113, 16 }, filter_sizes = { 4 }, out_backprop = { 1, 56, 56, 16 } },
      values = { filter_sizes = { 3, 3, 16, 1 } } },
    -- Conv/BatchNorm (BatchNormalization): gradient_tape/MobilenetV3small/Conv/BatchNorm/FusedBatchNormGradV3
    { name = "Conv/BatchNorm", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 112, 112, 16 }, x = { 1, 112, 112, 16 }, scale = { 16 }, reserve_space_1 = { 16 }, reserve_space_2 = { 16 }, reserve_space_3 = {} } },
  },
}
