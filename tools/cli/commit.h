/*
** commit.h -- a transaction of file replacements: the new contents of a few
** files, in one or more directories, are put in place all together or not at
** all, old files included.
**
**   txn *t = txn_new();
**   int od = txn_dir(t, "out", 1, err, n);         // each directory, created if asked
**   int rd = txn_dir(t, "models", 0, err, n);
**   txn_lock(t, err, n);                            // serialize, recover, clean up
**   txn_file(t, od, "x.npy", write_x, &x, err, n);  // stage: a synced temporary file
**   txn_file(t, rd, "rec.lua", write_rec, &r, err, n);
**   txn_commit(t, err, n);                          // all renamed, or all restored
**   txn_free(t);                                    // without a commit: as found
**
** Every call but txn_free returns 0 (txn_dir: the directory's index) or -1
** with a one-line message in err. After a failure, txn_free is all that is
** left to call.
**
** A destination that is a symbolic link, has other hard links, is not a
** regular file or is read-only (no write bit) is refused (a rename would not keep it);
** a replaced file keeps its mode (and its owner and group where the process
** may set them).
**
** Guarantees. txn_lock takes an exclusive flock on each directory itself (no
** lock file), in (st_dev, st_ino) order, printing "kforge: waiting for
** another kforge run writing to DIR" on stderr when another process holds
** one. Every destination is checked and every new content written (and
** fsynced) before the first rename. The commit writes a journal
** (.kforge-journal) in each directory it touches, keeps each old file as a
** hard link (.kforge-bak.PID.N; renamed aside where links are refused),
** renames the temporaries (.kforge-tmp.PID.N) over the destinations, fsyncs
** the directories, marks the first directory's journal "done" (the commit
** point), removes the backups and then the journals. On any failure the old files are
** put back. If the process dies mid-commit (kill -9, power loss), the next
** txn_lock of any of those directories rolls the torn commit back from the
** journals before anything else. Catchable signals (SIGINT, SIGTERM, ...)
** are blocked from the end of txn_lock to txn_free: one that came while
** staging makes txn_commit refuse (nothing changed), a commit always
** finishes or is undone, and the signal acts once txn_free cleaned up. While
** the transaction lives, SIGXFSZ is ignored, so a file over RLIMIT_FSIZE is a
** write error (EFBIG), not a kill.
**
** Test hook (never set it otherwise): KFORGE_TEST_FAULT=kill-after-rename:N
** (or term-after-rename:N) makes txn_commit send SIGKILL (SIGTERM) to its own
** process right after its N-th rename (N = 0: just before the commit).
*/
#ifndef commit_h
#define commit_h

#include <stddef.h>
#include <stdio.h>

typedef struct txn txn;

/* Writes the new content of one file to f; returns 0, or -1 with a message
   in err. txn_file flushes, fsyncs and closes f. */
typedef int (*txn_writer)(FILE *f, void *ctx, char *err, size_t errlen);

txn *txn_new(void); /* NULL when out of memory */

/* Adds the directory path (the same directory twice gives the same index).
   create: make it when missing; txn_free removes it again (if still empty)
   unless the transaction committed. Call before txn_lock. */
int txn_dir(txn *t, const char *path, int create, char *err, size_t errlen);

/* Locks every directory, rolls back any interrupted earlier commit found in
   them, and removes the temporaries and backups an interrupted run's
   journal names (never other files). */
int txn_lock(txn *t, char *err, size_t errlen);

/* The open directory (for openat), after txn_lock. */
int txn_dirfd(const txn *t, int dir);

/* Stages dir/name (a plain file name): refuses a destination that is a
   directory, writes the new content to a temporary file in dir. */
int txn_file(txn *t, int dir, const char *name, txn_writer w, void *ctx, char *err, size_t errlen);

/* Replaces every staged destination, or (on failure) none. */
int txn_commit(txn *t, char *err, size_t errlen);

/* Ends the transaction: temporaries removed, an uncommitted transaction's
   created directories removed, locks released, SIGXFSZ and the signal mask
   restored (so a signal that came meanwhile acts now). */
void txn_free(txn *t);

#endif
