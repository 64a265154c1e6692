-- EfficientNet-B0 at 224x224, NHWC, batch 1: every batch-norm and depthwise gradient of a training step, traced from tf-keras.
-- Traced from tf_keras.applications.EfficientNetB0(input_shape=(224,224,3), weights=None) (Keras model efficientnetb0) with TensorFlow 2.21.0, tf-keras 2.21.0: one training step, batch 1, policy float32:
-- 16 DepthwiseConv2dNativeBackpropFilter, 16 DepthwiseConv2dNativeBackpropInput, 49 FusedBatchNormGradV3.
-- Written by tools/models/keras_manifest.py; regenerate, do not edit:
--   bash tools/keras-manifest.sh --app EfficientNetB0 --input-shape 224,224,3 --batch 1 --name efficientnet_b0 --summary 'EfficientNet-B0 at 224x224, NHWC, batch 1: every batch-norm and depthwise gradient of a training step, traced from tf-keras.' --out FILE
return {
  name = "efficientnet_b0",
  summary = "EfficientNet-B0 at 224x224, NHWC, batch 1: every batch-norm and depthwise gradient of a training step, traced from tf-keras.",
  instances = {
    -- top_bn (BatchNormalization): gradient_tape/efficientnetb0/top_bn/FusedBatchNormGradV3
    { name = "top_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 7, 7, 1280 }, x = { 1, 7, 7, 1280 }, scale = { 1280 }, reserve_space_1 = { 1280 }, reserve_space_2 = { 1280 }, reserve_space_3 = {} } },
    -- block7a_project_bn (BatchNormalization): gradient_tape/efficientnetb0/block7a_project_bn/FusedBatchNormGradV3
    { name = "block7a_project_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 7, 7, 320 }, x = { 1, 7, 7, 320 }, scale = { 320 }, reserve_space_1 = { 320 }, reserve_space_2 = { 320 }, reserve_space_3 = {} } },
    -- block7a_bn (BatchNormalization): gradient_tape/efficientnetb0/block7a_bn/FusedBatchNormGradV3
    { name = "block7a_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 7, 7, 1152 }, x = { 1, 7, 7, 1152 }, scale = { 1152 }, reserve_space_1 = { 1152 }, reserve_space_2 = { 1152 }, reserve_space_3 = {} } },
    -- block7a_dwconv (DepthwiseConv2D): gradient_tape/efficientnetb0/block7a_dwconv/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "block7a_dwconv", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 3, 3, 1152, 1 }, out_backprop = { 1, 7, 7, 1152 } },
      values = { input_sizes = { 1, 7, 7, 1152 } } },
    -- block7a_dwconv (DepthwiseConv2D): gradient_tape/efficientnetb0/block7a_dwconv/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "block7a_dwconv/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 7, 7, 1152 }, filter_sizes = { 4 }, out_backprop = { 1, 7, 7, 1152 } },
      values = { filter_sizes = { 3, 3, 1152, 1 } } },
    -- block7a_expand_bn (BatchNormalization): gradient_tape/efficientnetb0/block7a_expand_bn/FusedBatchNormGradV3
    { name = "block7a_expand_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 7, 7, 1152 }, x = { 1, 7, 7, 1152 }, scale = { 1152 }, reserve_space_1 = { 1152 }, reserve_space_2 = { 1152 }, reserve_space_3 = {} } },
    -- block6d_project_bn (BatchNormalization): gradient_tape/efficientnetb0/block6d_project_bn/FusedBatchNormGradV3
    { name = "block6d_project_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 7, 7, 192 }, x = { 1, 7, 7, 192 }, scale = { 192 }, reserve_space_1 = { 192 }, reserve_space_2 = { 192 }, reserve_space_3 = {} } },
    -- block6d_bn (BatchNormalization): gradient_tape/efficientnetb0/block6d_bn/FusedBatchNormGradV3
    { name = "block6d_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 7, 7, 1152 }, x = { 1, 7, 7, 1152 }, scale = { 1152 }, reserve_space_1 = { 1152 }, reserve_space_2 = { 1152 }, reserve_space_3 = {} } },
    -- block6d_dwconv (DepthwiseConv2D): gradient_tape/efficientnetb0/block6d_dwconv/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "block6d_dwconv", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 5, 5, 1152, 1 }, out_backprop = { 1, 7, 7, 1152 } },
      values = { input_sizes = { 1, 7, 7, 1152 } } },
    -- block6d_dwconv (DepthwiseConv2D): gradient_tape/efficientnetb0/block6d_dwconv/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "block6d_dwconv/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 7, 7, 1152 }, filter_sizes = { 4 }, out_backprop = { 1, 7, 7, 1152 } },
      values = { filter_sizes = { 5, 5, 1152, 1 } } },
    -- block6d_expand_bn (BatchNormalization): gradient_tape/efficientnetb0/block6d_expand_bn/FusedBatchNormGradV3
    { name = "block6d_expand_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 7, 7, 1152 }, x = { 1, 7, 7, 1152 }, scale = { 1152 }, reserve_space_1 = { 1152 }, reserve_space_2 = { 1152 }, reserve_space_3 = {} } },
    -- block6c_project_bn (BatchNormalization): gradient_tape/efficientnetb0/block6c_project_bn/FusedBatchNormGradV3
    { name = "block6c_project_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 7, 7, 192 }, x = { 1, 7, 7, 192 }, scale = { 192 }, reserve_space_1 = { 192 }, reserve_space_2 = { 192 }, reserve_space_3 = {} } },
    -- block6c_bn (BatchNormalization): gradient_tape/efficientnetb0/block6c_bn/FusedBatchNormGradV3
    { name = "block6c_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 7, 7, 1152 }, x = { 1, 7, 7, 1152 }, scale = { 1152 }, reserve_space_1 = { 1152 }, reserve_space_2 = { 1152 }, reserve_space_3 = {} } },
    -- block6c_dwconv (DepthwiseConv2D): gradient_tape/efficientnetb0/block6c_dwconv/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "block6c_dwconv", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 5, 5, 1152, 1 }, out_backprop = { 1, 7, 7, 1152 } },
      values = { input_sizes = { 1, 7, 7, 1152 } } },
    -- block6c_dwconv (DepthwiseConv2D): gradient_tape/efficientnetb0/block6c_dwconv/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "block6c_dwconv/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 7, 7, 1152 }, filter_sizes = { 4 }, out_backprop = { 1, 7, 7, 1152 } },
      values = { filter_sizes = { 5, 5, 1152, 1 } } },
    -- block6c_expand_bn (BatchNormalization): gradient_tape/efficientnetb0/block6c_expand_bn/FusedBatchNormGradV3
    { name = "block6c_expand_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 7, 7, 1152 }, x = { 1, 7, 7, 1152 }, scale = { 1152 }, reserve_space_1 = { 1152 }, reserve_space_2 = { 1152 }, reserve_space_3 = {} } },
    -- block6b_project_bn (BatchNormalization): gradient_tape/efficientnetb0/block6b_project_bn/FusedBatchNormGradV3
    { name = "block6b_project_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 7, 7, 192 }, x = { 1, 7, 7, 192 }, scale = { 192 }, reserve_space_1 = { 192 }, reserve_space_2 = { 192 }, reserve_space_3 = {} } },
    -- block6b_bn (BatchNormalization): gradient_tape/efficientnetb0/block6b_bn/FusedBatchNormGradV3
    { name = "block6b_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 7, 7, 1152 }, x = { 1, 7, 7, 1152 }, scale = { 1152 }, reserve_space_1 = { 1152 }, reserve_space_2 = { 1152 }, reserve_space_3 = {} } },
    -- block6b_dwconv (DepthwiseConv2D): gradient_tape/efficientnetb0/block6b_dwconv/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "block6b_dwconv", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 5, 5, 1152, 1 }, out_backprop = { 1, 7, 7, 1152 } },
      values = { input_sizes = { 1, 7, 7, 1152 } } },
    -- block6b_dwconv (DepthwiseConv2D): gradient_tape/efficientnetb0/block6b_dwconv/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "block6b_dwconv/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 7, 7, 1152 }, filter_sizes = { 4 }, out_backprop = { 1, 7, 7, 1152 } },
      values = { filter_sizes = { 5, 5, 1152, 1 } } },
    -- block6b_expand_bn (BatchNormalization): gradient_tape/efficientnetb0/block6b_expand_bn/FusedBatchNormGradV3
    { name = "block6b_expand_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 7, 7, 1152 }, x = { 1, 7, 7, 1152 }, scale = { 1152 }, reserve_space_1 = { 1152 }, reserve_space_2 = { 1152 }, reserve_space_3 = {} } },
    -- block6a_project_bn (BatchNormalization): gradient_tape/efficientnetb0/block6a_project_bn/FusedBatchNormGradV3
    { name = "block6a_project_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 7, 7, 192 }, x = { 1, 7, 7, 192 }, scale = { 192 }, reserve_space_1 = { 192 }, reserve_space_2 = { 192 }, reserve_space_3 = {} } },
    -- block6a_bn (BatchNormalization): gradient_tape/efficientnetb0/block6a_bn/FusedBatchNormGradV3
    { name = "block6a_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 7, 7, 672 }, x = { 1, 7, 7, 672 }, scale = { 672 }, reserve_space_1 = { 672 }, reserve_space_2 = { 672 }, reserve_space_3 = {} } },
    -- block6a_dwconv (DepthwiseConv2D): gradient_tape/efficientnetb0/block6a_dwconv/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "block6a_dwconv", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,2,2,1", padding = "VALID", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 5, 5, 672, 1 }, out_backprop = { 1, 7, 7, 672 } },
      values = { input_sizes = { 1, 17, 17, 672 } } },
    -- block6a_dwconv (DepthwiseConv2D): gradient_tape/efficientnetb0/block6a_dwconv/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "block6a_dwconv/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,2,2,1", padding = "VALID", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 17, 17, 672 }, filter_sizes = { 4 }, out_backprop = { 1, 7, 7, 672 } },
      values = { filter_sizes = { 5, 5, 672, 1 } } },
    -- block6a_expand_bn (BatchNormalization): gradient_tape/efficientnetb0/block6a_expand_bn/FusedBatchNormGradV3
    { name = "block6a_expand_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 672 }, x = { 1, 14, 14, 672 }, scale = { 672 }, reserve_space_1 = { 672 }, reserve_space_2 = { 672 }, reserve_space_3 = {} } },
    -- block5c_project_bn (BatchNormalization): gradient_tape/efficientnetb0/block5c_project_bn/FusedBatchNormGradV3
    { name = "block5c_project_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 112 }, x = { 1, 14, 14, 112 }, scale = { 112 }, reserve_space_1 = { 112 }, reserve_space_2 = { 112 }, reserve_space_3 = {} } },
    -- block5c_bn (BatchNormalization): gradient_tape/efficientnetb0/block5c_bn/FusedBatchNormGradV3
    { name = "block5c_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 672 }, x = { 1, 14, 14, 672 }, scale = { 672 }, reserve_space_1 = { 672 }, reserve_space_2 = { 672 }, reserve_space_3 = {} } },
    -- block5c_dwconv (DepthwiseConv2D): gradient_tape/efficientnetb0/block5c_dwconv/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "block5c_dwconv", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 5, 5, 672, 1 }, out_backprop = { 1, 14, 14, 672 } },
      values = { input_sizes = { 1, 14, 14, 672 } } },
    -- block5c_dwconv (DepthwiseConv2D): gradient_tape/efficientnetb0/block5c_dwconv/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "block5c_dwconv/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 14, 14, 672 }, filter_sizes = { 4 }, out_backprop = { 1, 14, 14, 672 } },
      values = { filter_sizes = { 5, 5, 672, 1 } } },
    -- block5c_expand_bn (BatchNormalization): gradient_tape/efficientnetb0/block5c_expand_bn/FusedBatchNormGradV3
    { name = "block5c_expand_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 672 }, x = { 1, 14, 14, 672 }, scale = { 672 }, reserve_space_1 = { 672 }, reserve_space_2 = { 672 }, reserve_space_3 = {} } },
    -- block5b_project_bn (BatchNormalization): gradient_tape/efficientnetb0/block5b_project_bn/FusedBatchNormGradV3
    { name = "block5b_project_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 112 }, x = { 1, 14, 14, 112 }, scale = { 112 }, reserve_space_1 = { 112 }, reserve_space_2 = { 112 }, reserve_space_3 = {} } },
    -- block5b_bn (BatchNormalization): gradient_tape/efficientnetb0/block5b_bn/FusedBatchNormGradV3
    { name = "block5b_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 672 }, x = { 1, 14, 14, 672 }, scale = { 672 }, reserve_space_1 = { 672 }, reserve_space_2 = { 672 }, reserve_space_3 = {} } },
    -- block5b_dwconv (DepthwiseConv2D): gradient_tape/efficientnetb0/block5b_dwconv/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "block5b_dwconv", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 5, 5, 672, 1 }, out_backprop = { 1, 14, 14, 672 } },
      values = { input_sizes = { 1, 14, 14, 672 } } },
    -- block5b_dwconv (DepthwiseConv2D): gradient_tape/efficientnetb0/block5b_dwconv/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "block5b_dwconv/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 14, 14, 672 }, filter_sizes = { 4 }, out_backprop = { 1, 14, 14, 672 } },
      values = { filter_sizes = { 5, 5, 672, 1 } } },
    -- block5b_expand_bn (BatchNormalization): gradient_tape/efficientnetb0/block5b_expand_bn/FusedBatchNormGradV3
    { name = "block5b_expand_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 672 }, x = { 1, 14, 14, 672 }, scale = { 672 }, reserve_space_1 = { 672 }, reserve_space_2 = { 672 }, reserve_space_3 = {} } },
    -- block5a_project_bn (BatchNormalization): gradient_tape/efficientnetb0/block5a_project_bn/FusedBatchNormGradV3
    { name = "block5a_project_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 112 }, x = { 1, 14, 14, 112 }, scale = { 112 }, reserve_space_1 = { 112 }, reserve_space_2 = { 112 }, reserve_space_3 = {} } },
    -- block5a_bn (BatchNormalization): gradient_tape/efficientnetb0/block5a_bn/FusedBatchNormGradV3
    { name = "block5a_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 480 }, x = { 1, 14, 14, 480 }, scale = { 480 }, reserve_space_1 = { 480 }, reserve_space_2 = { 480 }, reserve_space_3 = {} } },
    -- block5a_dwconv (DepthwiseConv2D): gradient_tape/efficientnetb0/block5a_dwconv/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "block5a_dwconv", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 5, 5, 480, 1 }, out_backprop = { 1, 14, 14, 480 } },
      values = { input_sizes = { 1, 14, 14, 480 } } },
    -- block5a_dwconv (DepthwiseConv2D): gradient_tape/efficientnetb0/block5a_dwconv/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "block5a_dwconv/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 14, 14, 480 }, filter_sizes = { 4 }, out_backprop = { 1, 14, 14, 480 } },
      values = { filter_sizes = { 5, 5, 480, 1 } } },
    -- block5a_expand_bn (BatchNormalization): gradient_tape/efficientnetb0/block5a_expand_bn/FusedBatchNormGradV3
    { name = "block5a_expand_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 480 }, x = { 1, 14, 14, 480 }, scale = { 480 }, reserve_space_1 = { 480 }, reserve_space_2 = { 480 }, reserve_space_3 = {} } },
    -- block4c_project_bn (BatchNormalization): gradient_tape/efficientnetb0/block4c_project_bn/FusedBatchNormGradV3
    { name = "block4c_project_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 80 }, x = { 1, 14, 14, 80 }, scale = { 80 }, reserve_space_1 = { 80 }, reserve_space_2 = { 80 }, reserve_space_3 = {} } },
    -- block4c_bn (BatchNormalization): gradient_tape/efficientnetb0/block4c_bn/FusedBatchNormGradV3
    { name = "block4c_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 480 }, x = { 1, 14, 14, 480 }, scale = { 480 }, reserve_space_1 = { 480 }, reserve_space_2 = { 480 }, reserve_space_3 = {} } },
    -- block4c_dwconv (DepthwiseConv2D): gradient_tape/efficientnetb0/block4c_dwconv/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "block4c_dwconv", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 3, 3, 480, 1 }, out_backprop = { 1, 14, 14, 480 } },
      values = { input_sizes = { 1, 14, 14, 480 } } },
    -- block4c_dwconv (DepthwiseConv2D): gradient_tape/efficientnetb0/block4c_dwconv/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "block4c_dwconv/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 14, 14, 480 }, filter_sizes = { 4 }, out_backprop = { 1, 14, 14, 480 } },
      values = { filter_sizes = { 3, 3, 480, 1 } } },
    -- block4c_expand_bn (BatchNormalization): gradient_tape/efficientnetb0/block4c_expand_bn/FusedBatchNormGradV3
    { name = "block4c_expand_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 480 }, x = { 1, 14, 14, 480 }, scale = { 480 }, reserve_space_1 = { 480 }, reserve_space_2 = { 480 }, reserve_space_3 = {} } },
    -- block4b_project_bn (BatchNormalization): gradient_tape/efficientnetb0/block4b_project_bn/FusedBatchNormGradV3
    { name = "block4b_project_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 80 }, x = { 1, 14, 14, 80 }, scale = { 80 }, reserve_space_1 = { 80 }, reserve_space_2 = { 80 }, reserve_space_3 = {} } },
    -- block4b_bn (BatchNormalization): gradient_tape/efficientnetb0/block4b_bn/FusedBatchNormGradV3
    { name = "block4b_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 480 }, x = { 1, 14, 14, 480 }, scale = { 480 }, reserve_space_1 = { 480 }, reserve_space_2 = { 480 }, reserve_space_3 = {} } },
    -- block4b_dwconv (DepthwiseConv2D): gradient_tape/efficientnetb0/block4b_dwconv/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "block4b_dwconv", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 3, 3, 480, 1 }, out_backprop = { 1, 14, 14, 480 } },
      values = { input_sizes = { 1, 14, 14, 480 } } },
    -- block4b_dwconv (DepthwiseConv2D): gradient_tape/efficientnetb0/block4b_dwconv/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "block4b_dwconv/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 14, 14, 480 }, filter_sizes = { 4 }, out_backprop = { 1, 14, 14, 480 } },
      values = { filter_sizes = { 3, 3, 480, 1 } } },
    -- block4b_expand_bn (BatchNormalization): gradient_tape/efficientnetb0/block4b_expand_bn/FusedBatchNormGradV3
    { name = "block4b_expand_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 480 }, x = { 1, 14, 14, 480 }, scale = { 480 }, reserve_space_1 = { 480 }, reserve_space_2 = { 480 }, reserve_space_3 = {} } },
    -- block4a_project_bn (BatchNormalization): gradient_tape/efficientnetb0/block4a_project_bn/FusedBatchNormGradV3
    { name = "block4a_project_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 80 }, x = { 1, 14, 14, 80 }, scale = { 80 }, reserve_space_1 = { 80 }, reserve_space_2 = { 80 }, reserve_space_3 = {} } },
    -- block4a_bn (BatchNormalization): gradient_tape/efficientnetb0/block4a_bn/FusedBatchNormGradV3
    { name = "block4a_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 14, 14, 240 }, x = { 1, 14, 14, 240 }, scale = { 240 }, reserve_space_1 = { 240 }, reserve_space_2 = { 240 }, reserve_space_3 = {} } },
    -- block4a_dwconv (DepthwiseConv2D): gradient_tape/efficientnetb0/block4a_dwconv/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "block4a_dwconv", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,2,2,1", padding = "VALID", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 3, 3, 240, 1 }, out_backprop = { 1, 14, 14, 240 } },
      values = { input_sizes = { 1, 29, 29, 240 } } },
    -- block4a_dwconv (DepthwiseConv2D): gradient_tape/efficientnetb0/block4a_dwconv/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "block4a_dwconv/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,2,2,1", padding = "VALID", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 29, 29, 240 }, filter_sizes = { 4 }, out_backprop = { 1, 14, 14, 240 } },
      values = { filter_sizes = { 3, 3, 240, 1 } } },
    -- block4a_expand_bn (BatchNormalization): gradient_tape/efficientnetb0/block4a_expand_bn/FusedBatchNormGradV3
    { name = "block4a_expand_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 28, 28, 240 }, x = { 1, 28, 28, 240 }, scale = { 240 }, reserve_space_1 = { 240 }, reserve_space_2 = { 240 }, reserve_space_3 = {} } },
    -- block3b_project_bn (BatchNormalization): gradient_tape/efficientnetb0/block3b_project_bn/FusedBatchNormGradV3
    { name = "block3b_project_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 28, 28, 40 }, x = { 1, 28, 28, 40 }, scale = { 40 }, reserve_space_1 = { 40 }, reserve_space_2 = { 40 }, reserve_space_3 = {} } },
    -- block3b_bn (BatchNormalization): gradient_tape/efficientnetb0/block3b_bn/FusedBatchNormGradV3
    { name = "block3b_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 28, 28, 240 }, x = { 1, 28, 28, 240 }, scale = { 240 }, reserve_space_1 = { 240 }, reserve_space_2 = { 240 }, reserve_space_3 = {} } },
    -- block3b_dwconv (DepthwiseConv2D): gradient_tape/efficientnetb0/block3b_dwconv/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "block3b_dwconv", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 5, 5, 240, 1 }, out_backprop = { 1, 28, 28, 240 } },
      values = { input_sizes = { 1, 28, 28, 240 } } },
    -- block3b_dwconv (DepthwiseConv2D): gradient_tape/efficientnetb0/block3b_dwconv/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "block3b_dwconv/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 28, 28, 240 }, filter_sizes = { 4 }, out_backprop = { 1, 28, 28, 240 } },
      values = { filter_sizes = { 5, 5, 240, 1 } } },
    -- block3b_expand_bn (BatchNormalization): gradient_tape/efficientnetb0/block3b_expand_bn/FusedBatchNormGradV3
    { name = "block3b_expand_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 28, 28, 240 }, x = { 1, 28, 28, 240 }, scale = { 240 }, reserve_space_1 = { 240 }, reserve_space_2 = { 240 }, reserve_space_3 = {} } },
    -- block3a_project_bn (BatchNormalization): gradient_tape/efficientnetb0/block3a_project_bn/FusedBatchNormGradV3
    { name = "block3a_project_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 28, 28, 40 }, x = { 1, 28, 28, 40 }, scale = { 40 }, reserve_space_1 = { 40 }, reserve_space_2 = { 40 }, reserve_space_3 = {} } },
    -- block3a_bn (BatchNormalization): gradient_tape/efficientnetb0/block3a_bn/FusedBatchNormGradV3
    { name = "block3a_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 28, 28, 144 }, x = { 1, 28, 28, 144 }, scale = { 144 }, reserve_space_1 = { 144 }, reserve_space_2 = { 144 }, reserve_space_3 = {} } },
    -- block3a_dwconv (DepthwiseConv2D): gradient_tape/efficientnetb0/block3a_dwconv/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "block3a_dwconv", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,2,2,1", padding = "VALID", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 5, 5, 144, 1 }, out_backprop = { 1, 28, 28, 144 } },
      values = { input_sizes = { 1, 59, 59, 144 } } },
    -- block3a_dwconv (DepthwiseConv2D): gradient_tape/efficientnetb0/block3a_dwconv/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "block3a_dwconv/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,2,2,1", padding = "VALID", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 59, 59, 144 }, filter_sizes = { 4 }, out_backprop = { 1, 28, 28, 144 } },
      values = { filter_sizes = { 5, 5, 144, 1 } } },
    -- block3a_expand_bn (BatchNormalization): gradient_tape/efficientnetb0/block3a_expand_bn/FusedBatchNormGradV3
    { name = "block3a_expand_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 56, 56, 144 }, x = { 1, 56, 56, 144 }, scale = { 144 }, reserve_space_1 = { 144 }, reserve_space_2 = { 144 }, reserve_space_3 = {} } },
    -- block2b_project_bn (BatchNormalization): gradient_tape/efficientnetb0/block2b_project_bn/FusedBatchNormGradV3
    { name = "block2b_project_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 56, 56, 24 }, x = { 1, 56, 56, 24 }, scale = { 24 }, reserve_space_1 = { 24 }, reserve_space_2 = { 24 }, reserve_space_3 = {} } },
    -- block2b_bn (BatchNormalization): gradient_tape/efficientnetb0/block2b_bn/FusedBatchNormGradV3
    { name = "block2b_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 56, 56, 144 }, x = { 1, 56, 56, 144 }, scale = { 144 }, reserve_space_1 = { 144 }, reserve_space_2 = { 144 }, reserve_space_3 = {} } },
    -- block2b_dwconv (DepthwiseConv2D): gradient_tape/efficientnetb0/block2b_dwconv/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "block2b_dwconv", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 3, 3, 144, 1 }, out_backprop = { 1, 56, 56, 144 } },
      values = { input_sizes = { 1, 56, 56, 144 } } },
    -- block2b_dwconv (DepthwiseConv2D): gradient_tape/efficientnetb0/block2b_dwconv/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "block2b_dwconv/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 56, 56, 144 }, filter_sizes = { 4 }, out_backprop = { 1, 56, 56, 144 } },
      values = { filter_sizes = { 3, 3, 144, 1 } } },
    -- block2b_expand_bn (BatchNormalization): gradient_tape/efficientnetb0/block2b_expand_bn/FusedBatchNormGradV3
    { name = "block2b_expand_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 56, 56, 144 }, x = { 1, 56, 56, 144 }, scale = { 144 }, reserve_space_1 = { 144 }, reserve_space_2 = { 144 }, reserve_space_3 = {} } },
    -- block2a_project_bn (BatchNormalization): gradient_tape/efficientnetb0/block2a_project_bn/FusedBatchNormGradV3
    { name = "block2a_project_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 56, 56, 24 }, x = { 1, 56, 56, 24 }, scale = { 24 }, reserve_space_1 = { 24 }, reserve_space_2 = { 24 }, reserve_space_3 = {} } },
    -- block2a_bn (BatchNormalization): gradient_tape/efficientnetb0/block2a_bn/FusedBatchNormGradV3
    { name = "block2a_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 56, 56, 96 }, x = { 1, 56, 56, 96 }, scale = { 96 }, reserve_space_1 = { 96 }, reserve_space_2 = { 96 }, reserve_space_3 = {} } },
    -- block2a_dwconv (DepthwiseConv2D): gradient_tape/efficientnetb0/block2a_dwconv/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "block2a_dwconv", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,2,2,1", padding = "VALID", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 3, 3, 96, 1 }, out_backprop = { 1, 56, 56, 96 } },
      values = { input_sizes = { 1, 113, 113, 96 } } },
    -- block2a_dwconv (DepthwiseConv2D): gradient_tape/efficientnetb0/block2a_dwconv/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "block2a_dwconv/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,2,2,1", padding = "VALID", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 113, 113, 96 }, filter_sizes = { 4 }, out_backprop = { 1, 56, 56, 96 } },
      values = { filter_sizes = { 3, 3, 96, 1 } } },
    -- block2a_expand_bn (BatchNormalization): gradient_tape/efficientnetb0/block2a_expand_bn/FusedBatchNormGradV3
    { name = "block2a_expand_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 112, 112, 96 }, x = { 1, 112, 112, 96 }, scale = { 96 }, reserve_space_1 = { 96 }, reserve_space_2 = { 96 }, reserve_space_3 = {} } },
    -- block1a_project_bn (BatchNormalization): gradient_tape/efficientnetb0/block1a_project_bn/FusedBatchNormGradV3
    { name = "block1a_project_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 112, 112, 16 }, x = { 1, 112, 112, 16 }, scale = { 16 }, reserve_space_1 = { 16 }, reserve_space_2 = { 16 }, reserve_space_3 = {} } },
    -- block1a_bn (BatchNormalization): gradient_tape/efficientnetb0/block1a_bn/FusedBatchNormGradV3
    { name = "block1a_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 112, 112, 32 }, x = { 1, 112, 112, 32 }, scale = { 32 }, reserve_space_1 = { 32 }, reserve_space_2 = { 32 }, reserve_space_3 = {} } },
    -- block1a_dwconv (DepthwiseConv2D): gradient_tape/efficientnetb0/block1a_dwconv/depthwise/DepthwiseConv2dNativeBackpropInput
    { name = "block1a_dwconv", op = "DepthwiseConv2dNativeBackpropInput",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input_sizes = { 4 }, filter = { 3, 3, 32, 1 }, out_backprop = { 1, 112, 112, 32 } },
      values = { input_sizes = { 1, 112, 112, 32 } } },
    -- block1a_dwconv (DepthwiseConv2D): gradient_tape/efficientnetb0/block1a_dwconv/depthwise/DepthwiseConv2dNativeBackpropFilter
    { name = "block1a_dwconv/filter", op = "DepthwiseConv2dNativeBackpropFilter",
      attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", explicit_paddings = "", data_format = "NHWC", dilations = "1,1,1,1" },
      inputs = { input = { 1, 112, 112, 32 }, filter_sizes = { 4 }, out_backprop = { 1, 112, 112, 32 } },
      values = { filter_sizes = { 3, 3, 32, 1 } } },
    -- stem_bn (BatchNormalization): gradient_tape/efficientnetb0/stem_bn/FusedBatchNormGradV3
    { name = "stem_bn", op = "FusedBatchNormGradV3",
      attrs = { T = "float", U = "float", epsilon = "0.001", data_format = "NHWC", is_training = "true" },
      inputs = { y_backprop = { 1, 112, 112, 32 }, x = { 1, 112, 112, 32 }, scale = { 32 }, reserve_space_1 = { 32 }, reserve_space_2 = { 32 }, reserve_space_3 = {} } },
  },
}
