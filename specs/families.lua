-- The op families kforge knows, each specified in specs/ops/<family>.lua.
-- Every build gets the op tables of all of them (the runtime validates every
-- op); a kernel set decides which of their kernels are generated.
return { "bngrad", "dwbpi", "dwbpf" }
