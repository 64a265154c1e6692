/*
** manifest.h -- reads a model manifest (a specs/models file, as
** tools/models/write_manifest.lua writes them) without Lua: the subset of
** Lua's table constructors those files use (strings, integers, nested
** tables, `key = value`, `--` comments, one `return`).
*/
#ifndef kf_cli_manifest_h
#define kf_cli_manifest_h

#include <stddef.h>
#include <stdint.h>

#define KFC_MAX_ATTRS 16
#define KFC_MAX_IO 8
#define KFC_MAX_DIMS 8

typedef struct kfc_call {
  char name[128], op[64];
  int num_attrs;
  char attr_name[KFC_MAX_ATTRS][32], attr_value[KFC_MAX_ATTRS][128];
  int num_inputs;
  char input_name[KFC_MAX_IO][32];
  int rank[KFC_MAX_IO];
  int64_t dims[KFC_MAX_IO][KFC_MAX_DIMS];
  int num_values[KFC_MAX_IO];            /* -1: no values (not read at plan time) */
  int32_t values[KFC_MAX_IO][KFC_MAX_DIMS];
} kfc_call;

/* The manifest's instances, in order, into a malloc'd array (*calls, *n).
   0, or -1 with a message naming the file and line. */
int kfc_manifest_read(const char *path, kfc_call **calls, int *n, char *msg, size_t msg_bytes);

#endif
