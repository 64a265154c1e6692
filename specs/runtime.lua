-- The runtime's own C files (runtime/), which every build links; each op
-- family adds the files its spec lists in `sources.runtime`. The generator
-- turns both into the build edges of generated/sources.ninja (and
-- tools/amalgamate.lua reads them), so no build file lists a family. Data only.
return {
  runtime = {
    "runtime/kf_core.c", "runtime/kf_attrs.c", "runtime/kf_plan.c", "runtime/kf_select.c",
    "runtime/kf_info.c", "runtime/kf_conv.c", "runtime/kf_cpu.c", "runtime/kf_format.c",
    "runtime/kf_choice.c", "runtime/kf_measure.c", "runtime/kf_wisdom.c", "runtime/kf_stream.c",
  },
}
