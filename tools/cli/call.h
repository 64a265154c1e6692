/*
** call.h -- one call of an op as the CLI's `plan` and `tune` take it, in
** words: <OpName> [--name LABEL] [--attr NAME=VALUE]... --input
** NAME=DTYPE:D0,D1,... [--values NAME=V0,V1,...]. `plan --batch` and
** `tune --batch` read one call a line; tools/tune_calls.lua writes a model
** manifest's calls so (generator/model.lua's plan_args: one reader of the
** manifests).
*/
#ifndef kf_cli_call_h
#define kf_cli_call_h

#include <stddef.h>
#include <stdint.h>

#include "kforge.h"

#define KFC_MAX_IO 8       /* inputs of any op */
#define KFC_MAX_VALUES 64  /* --values of one input */

typedef struct kfc_call {
  char name[128];          /* --name, else "" */
  kf_op op;
  kf_attrs attrs;
  int num_inputs;
  kf_tensor_desc in[KFC_MAX_IO];          /* host_data points into values: do not copy */
  int32_t values[KFC_MAX_IO][KFC_MAX_VALUES];
} kfc_call;

/* Parses argv[first..argc) into c. 0, or 1 with msg and *rule ("usage",
   or the rule of a refused attribute). */
int kfc_call_parse(int argc, char **argv, int first, kfc_call *c, char *msg, size_t n, const char **rule);

/* Splits line into blank-separated words in place (at most max); returns
   their count. */
int kfc_split(char *line, char **words, int max);

/* The error's message, else the status's name. */
const char *kfc_message(kf_status st, const kf_error *err);

/* "y_backprop, x, scale, ..." for messages. */
const char *kfc_input_list(kf_op op, char *buf, size_t n);

#endif
