-- The default kernel set: every supported specialization of every op, plus
-- the generic kernels. This is what generated/ holds (checked in).
return {
  name = "default",
  summary = "Every specialized and generic kernel, for the host library.",
  kernels = {
    { family = "bngrad", kind = "specialized", T = "*", layout = "*", mode = "*" },
    { family = "bngrad", kind = "generic", T = "*" },
  },
}
