/*
** profile.h -- the CLI's `profile` command (profile.c).
*/
#ifndef kf_cli_profile_h
#define kf_cli_profile_h

#include <stddef.h>

/* argv[1] is "profile". Returns the exit status (2: usage); msg holds the
   error line when it is not 0. */
int kf_cli_profile(int argc, char **argv, char *msg, size_t n);

#endif
