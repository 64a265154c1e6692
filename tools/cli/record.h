/*
** record.h -- `kforge run --record FILE`: appends the call that just ran to
** FILE as an instance of a model manifest (specs/models format), creating
** the file if needed. A model run once through the CLI with --record yields
** its manifest, from which tools/build-model.sh builds its minimal set.
*/
#ifndef record_h
#define record_h

#include <stddef.h>

#include "kforge.h"
#include "npy.h"

/* kv: the --attr NAME=VALUE texts given; T: the op's dtype as planned.
   Returns 0, or -1 with a message in err. The file is replaced atomically. */
int record_append(const char *path, const char *instance, kf_op op, const char *const *kv, int nkv, kf_dtype T,
                  const kf_tensor_desc *in, const npy_array *in_data, int nin, char *err, size_t errlen);

#endif
