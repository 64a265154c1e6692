/*
** record.h -- `kforge run --record FILE`: appends the call that just ran to
** FILE as an instance of a model manifest (specs/models format), creating
** the file if needed. A model run once through the CLI with --record yields
** its manifest, from which tools/build-model.sh builds its minimal set.
*/
#ifndef record_h
#define record_h

#include <stddef.h>

#include "commit.h"
#include "kforge.h"
#include "npy.h"

/* The longest --record-name (bytes); a longer one is refused, as is one
   holding a control character. */
#define RECORD_MAX_NAME 256
/* 0, or -1 with a message in err when name is no valid --record-name. */
int record_check_name(const char *name, char *err, size_t errlen);

/* The new manifest text: old (oldlen bytes; NULL: a new manifest, named after
   path) plus this call's instance. kv: the --attr NAME=VALUE texts given; T:
   the op's dtype as planned. Returns 0 with *text (free it) and *textlen, or
   -1 with a message in err. Touches no file. */
int record_text(const char *path, const char *old, size_t oldlen, const char *instance, kf_op op,
                const char *const *kv, int nkv, kf_dtype T, const kf_tensor_desc *in, const npy_array *in_data,
                int nin, char **text, size_t *textlen, char *err, size_t errlen);

/* Stages the append in t: reads dir/name (the file path, in messages) as it
   is now, under t's lock, and stages record_text's result as its new
   content. txn_commit puts it in place with the outputs. Returns 0 or -1
   with a message in err. */
int record_stage(txn *t, int dir, const char *name, const char *path, const char *instance, kf_op op,
                 const char *const *kv, int nkv, kf_dtype T, const kf_tensor_desc *in, const npy_array *in_data,
                 int nin, char *err, size_t errlen);

#endif
