"""kforge: TensorFlow's training kernels as generated, specialized C kernels."""
from . import _native  # noqa: F401
