/*
** cpu_isas.c -- prints the ISAs this CPU and OS run, comma-separated
** ("scalar,avx2"), as the runtime detects them (runtime/kf_cpu.c, capped by
** KFORGE_ISA). tests/asan.sh generates the ASan build's kernels for these.
** Built from kf_cpu.c and kf_core.c alone (-ffunction-sections and
** --gc-sections drop kf_core.c's functions that need the op tables).
*/
#include <stdio.h>

#include "kforge.h"

int main(void) {
  const unsigned isas = kf_cpu_isas();
  const char *sep = "";
  for (unsigned bit = 1; bit != 0 && bit <= isas; bit <<= 1) {
    if (isas & bit) {
      printf("%s%s", sep, kf_isa_name(bit));
      sep = ",";
    }
  }
  printf("\n");
  return 0;
}
