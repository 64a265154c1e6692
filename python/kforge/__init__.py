"""kforge: TensorFlow's training kernels as generated, specialized C kernels.

    import kforge
    r = kforge.raw_ops.FusedBatchNormGradV3(y_backprop=dy, x=x, scale=s, reserve_space_1=m,
                                            reserve_space_2=v, reserve_space_3=r3, data_format="NCHW")
    r.x_backprop, r.scale_backprop, r.offset_backprop
    kforge.fused_batch_norm_grad_v3(...)      # the same function, snake_case
    kforge.plan("FusedBatchNormGradV3", ...)  # the validated call: its kernel, outputs, scratch
    kforge.last_kernel()                      # the kernel the last call on this thread ran

See docs/python.md.
"""
from . import _native  # noqa: F401
from . import raw_ops  # noqa: F401
from . import wisdom  # noqa: F401  (measured plans and wisdom files)
from . import _ops
from ._ops import *  # noqa: F401,F403  (the op functions and their snake_case names)
from ._ops import OPS as _OPS
from ._runtime import (KforgeError, Plan, cache_info, clear_cache, dtypes, kernels, last_kernel, last_plan,
                       plan, set_cache_size)

__version__ = "0.1.0"

#: The TF names of the ops this package runs.
ops = tuple(_OPS)

__all__ = ["KforgeError", "Plan", "cache_info", "clear_cache", "dtypes", "kernels", "last_kernel", "last_plan",
           "ops", "plan", "raw_ops", "set_cache_size", "wisdom"] + list(_ops.__all__)
