"""kforge inside TensorFlow (custom ops and Keras integration)."""
