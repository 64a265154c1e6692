/*
** tune.h -- the CLI's `tune` command (tune.c).
*/
#ifndef kf_cli_tune_h
#define kf_cli_tune_h

#include <stddef.h>

/* argv[1] is "tune". Returns the exit status (2: usage); msg holds the
   error line when it is not 0. */
int kf_cli_tune(int argc, char **argv, char *msg, size_t n);

#endif
