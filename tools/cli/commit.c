/*
** commit.c -- see commit.h: a transaction of file replacements.
**
** The journal (.kforge-journal, written to a temporary and renamed, so it is
** whole or absent) exists in two kinds. The primary one, in the directory of
** the first staged file, lists every file: its directory, its name, its
** temporary and its backup ("-": there was no old file). A secondary one, in
** each other directory the commit touches, names the primary's directory.
** Both carry the same transaction id; paths of other directories are
** absolute, the journal's own directory is ".". Fields are %XX-escaped.
**
**   kforge-journal 1 <id> primary|secondary|done|staging
**   dir 0 .
**   dir 1 /abs/other/dir
**   file 0 x_backprop.npy .kforge-tmp.123.0 .kforge-bak.123.0
**   temp 0 .kforge-tmp.123.0
**   end
**
** Order of a commit: secondaries, the primary, backups (hard links), renames,
** fsync of the directories, the primary rewritten as "done" (the commit
** point), removal of the backups, of the secondaries, of the primary. So a
** primary journal means "not committed": roll back every file of it (in
** each other directory only while its secondary is there); a "done" one
** means committed: remove its backups (same rule) and the journals; a
** secondary without its primary means "finished": just remove it (and the
** temporaries it names). Rolling back one file: a backup that exists is
** renamed over the destination; without a backup (no old file), a
** destination whose temporary is gone (it was renamed into place) is
** removed. This is idempotent, so a rollback that is itself interrupted is
** simply redone.
** Before its commit, a run names each temporary it is about to create in a
** staging journal of that directory (kind "staging", a "temp" line each,
** appended), which its commit's journals replace (they carry "temp" lines
** too). A recovery removes the temporaries a journal names, and nothing
** else: files of other programs that look like ours are never touched.
*/
#define _XOPEN_SOURCE 700 /* realpath */
#include "commit.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_DIRS 8
#define MAX_FILES 16
#define PATH_BYTES 4096
#define NAME_BYTES 256
#define JOURNAL ".kforge-journal"
#define TMP_PREFIX ".kforge-tmp."
#define BAK_PREFIX ".kforge-bak."

typedef struct tdir {
  char path[PATH_BYTES]; /* as given (absolute for one found in a journal) */
  char abs[PATH_BYTES];  /* realpath, for journals */
  int fd;                /* -1: not open (a journal's directory that is gone) */
  dev_t dev;
  ino_t ino;
  int create, created, waited;
  int extra; /* named by a journal only: locked for its recovery */
  int staged; /* its journal is this run's staging journal */
} tdir;

typedef struct tfile { /* one replacement, staged or read from a journal */
  int dir;
  char name[NAME_BYTES], tmp[64], bak[64]; /* bak "": there was no old file */
  int moved;                               /* no hard link: the old file is renamed aside */
} tfile;

typedef struct journal {
  char id[64];
  int primary, done, staging, ndirs, nfiles, ntemps; /* done: a primary after its commit point */
  char temps[MAX_FILES + 1][64]; /* "temp" lines: this directory's temporaries */
  char dirs[MAX_DIRS][PATH_BYTES];
  tfile files[MAX_FILES];
} journal;

struct txn {
  tdir dirs[MAX_DIRS];
  tfile files[MAX_FILES];
  int ndirs, nfiles, locked, committed;
  struct sigaction old_xfsz;
  sigset_t old_mask; /* catchable signals are blocked from txn_lock's end to txn_free */
  journal jr[3]; /* scratch for recovery */
};

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 3, 4)))
#endif
static int fail(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
  return -1;
}

/* Blocks every catchable signal but the synchronous ones and SIGXFSZ (it is
   ignored; blocked, it would stay pending until its default action is back). */
static void block_signals(sigset_t *old) {
  sigset_t s;
  static const int keep[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT, SIGSYS, SIGXFSZ };
  sigfillset(&s);
  for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) sigdelset(&s, keep[i]);
  sigprocmask(SIG_BLOCK, &s, old);
}

static void restore_signals(const sigset_t *old) { sigprocmask(SIG_SETMASK, old, NULL); }

/* A terminating signal came while blocked (staging): do not commit. */
static int interrupted(void) {
  static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGALRM, SIGUSR1, SIGUSR2, SIGXCPU };
  sigset_t s;
  if (sigpending(&s) != 0) return 0;
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
    if (sigismember(&s, sigs[i]) == 1) return sigs[i];
  return 0;
}

/* KFORGE_TEST_FAULT (see commit.h): after the n-th rename (0: before the
   commit begins). */
static void fault_after_rename(int n) {
  const char *f = getenv("KFORGE_TEST_FAULT");
  int sig = !f ? 0 : strncmp(f, "kill-after-rename:", 18) == 0 ? SIGKILL
                   : strncmp(f, "term-after-rename:", 18) == 0 ? SIGTERM : 0;
  if (sig && atoi(f + 18) == n) kill(getpid(), sig);
}

static int sync_dir(int fd) { return fsync(fd) == 0 || errno == EINVAL || errno == EROFS ? 0 : -1; }

/* ---------------------------------------------------------------- directories */

/* Opens (creating it if asked) directory d; on failure d->fd is -1. */
static int open_dir(tdir *d, char *err, size_t errlen) {
  struct stat st;
  int e;
  d->fd = -1;
  d->created = 0;
  if (d->create) {
    if (mkdir(d->path, 0777) == 0) d->created = 1;
    else if (errno != EEXIST) return fail(err, errlen, "cannot create directory %s: %s", d->path, strerror(errno));
  }
  d->fd = open(d->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (d->fd >= 0 && fstat(d->fd, &st) == 0 && (d->extra || realpath(d->path, d->abs))) {
    if (d->extra) snprintf(d->abs, sizeof d->abs, "%s", d->path);
    d->dev = st.st_dev, d->ino = st.st_ino;
    return 0;
  }
  e = errno;
  if (d->fd >= 0) close(d->fd);
  d->fd = -1;
  if (d->created) rmdir(d->path), d->created = 0;
  if (e == ENOTDIR) fail(err, errlen, "%s is not a directory", d->path);
  else fail(err, errlen, "cannot open directory %s: %s", d->path, strerror(e));
  errno = e;
  return -1;
}

static int same_dir(const tdir *a, const tdir *b) {
  return a->fd >= 0 && b->fd >= 0 && a->dev == b->dev && a->ino == b->ino;
}

/* The directory at absolute path p (named by a journal): its index, adding
   it (not locked yet: *added) when new; -2 when it is gone. */
static int find_or_add(txn *t, const char *p, int *added, char *err, size_t errlen) {
  tdir *d = &t->dirs[t->ndirs];
  if (t->ndirs == MAX_DIRS) return fail(err, errlen, "too many directories in kforge journals");
  memset(d, 0, sizeof *d);
  snprintf(d->path, sizeof d->path, "%s", p);
  d->extra = 1;
  if (open_dir(d, err, errlen) != 0) return errno == ENOENT || errno == ENOTDIR ? -2 : -1;
  for (int i = 0; i < t->ndirs; i++)
    if (same_dir(&t->dirs[i], d)) {
      close(d->fd);
      return i;
    }
  *added = 1;
  return t->ndirs++;
}

int txn_dir(txn *t, const char *path, int create, char *err, size_t errlen) {
  if (t->locked || t->ndirs == MAX_DIRS) return fail(err, errlen, "internal: txn_dir after txn_lock");
  if (strlen(path) >= PATH_BYTES) return fail(err, errlen, "path too long: %.64s...", path);
  tdir *d = &t->dirs[t->ndirs];
  memset(d, 0, sizeof *d);
  snprintf(d->path, sizeof d->path, "%s", path);
  d->create = create;
  if (open_dir(d, err, errlen) != 0) return -1;
  for (int i = 0; i < t->ndirs; i++)
    if (same_dir(&t->dirs[i], d)) { /* one lock per directory: a second flock would wait for us */
      close(d->fd);
      return i;
    }
  return t->ndirs++;
}

int txn_dirfd(const txn *t, int dir) { return dir >= 0 && dir < t->ndirs ? t->dirs[dir].fd : -1; }

/* ---------------------------------------------------------------- journals */

static void esc(char *dst, size_t n, const char *s) {
  size_t k = 0;
  for (; *s && k + 4 < n; s++) {
    unsigned char c = (unsigned char)*s;
    if (c <= ' ' || c == '%' || c >= 0x7f) k += (size_t)snprintf(dst + k, n - k, "%%%02X", c);
    else dst[k++] = (char)c;
  }
  dst[k] = 0;
}

static int unesc(char *dst, size_t n, const char *s) {
  size_t k = 0;
  for (; *s; s++) {
    unsigned v;
    if (k + 1 >= n) return -1;
    if (*s == '%') {
      if (sscanf(s + 1, "%2x", &v) != 1 || !s[1] || !s[2] || v == 0) return -1;
      dst[k++] = (char)v, s += 2;
    } else {
      dst[k++] = *s;
    }
  }
  dst[k] = 0;
  return 0;
}

/* A plain file name: not empty, no '/', not "." or "..". */
static int plain_name(const char *s) {
  return *s && !strchr(s, '/') && strcmp(s, ".") != 0 && strcmp(s, "..") != 0 && strlen(s) < NAME_BYTES;
}

static int write_line(FILE *f, const char *a, int n, const char *b) {
  char e[3 * PATH_BYTES];
  esc(e, sizeof e, b);
  return fprintf(f, "%s %d %s\n", a, n, e) < 0 ? -1 : 0;
}

/* Writes the journal of directory d (primary or secondary; done: the
   primary's replacement at the commit point) and syncs it. */
static int write_journal(txn *t, int d, const char *id, int done, char *err, size_t errlen) {
  tdir *D = &t->dirs[d];
  int primary = d == t->files[0].dir, map[MAX_DIRS], n = 1, fd;
  char tmp[64], e[3 * NAME_BYTES];
  snprintf(tmp, sizeof tmp, TMP_PREFIX "%ld.j", (long)getpid());
  for (int i = 0; i < MAX_DIRS; i++) map[i] = -1;
  map[d] = 0;
  fd = openat(D->fd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
  if (!f) {
    if (fd >= 0) close(fd);
    return fail(err, errlen, "cannot write a journal in %s: %s", D->path, strerror(errno));
  }
  int bad = fprintf(f, "kforge-journal 1 %s %s\ndir 0 .\n", id, done ? "done" : primary ? "primary" : "secondary") < 0;
  if (primary) {
    for (int i = 0; i < t->nfiles; i++)
      if (map[t->files[i].dir] < 0) {
        map[t->files[i].dir] = n;
        bad |= write_line(f, "dir", n++, t->dirs[t->files[i].dir].abs);
      }
    for (int i = 0; i < t->nfiles; i++) {
      const tfile *x = &t->files[i];
      esc(e, sizeof e, x->name);
      bad |= fprintf(f, "file %d %s %s %s\n", map[x->dir], e, x->tmp, x->bak[0] ? x->bak : "-") < 0;
    }
  } else {
    bad |= write_line(f, "dir", 1, t->dirs[t->files[0].dir].abs);
  }
  for (int i = 0; i < t->nfiles; i++) /* so that a recovery removes them, wherever it stops */
    if (t->files[i].dir == d) bad |= fprintf(f, "temp 0 %s\n", t->files[i].tmp) < 0;
  bad |= fprintf(f, "end\n") < 0 || fflush(f) != 0 || fsync(fileno(f)) != 0;
  int e2 = errno;
  bad |= fclose(f) != 0;
  if (bad || renameat(D->fd, tmp, D->fd, JOURNAL) != 0 || sync_dir(D->fd) != 0) {
    if (!bad) e2 = errno;
    unlinkat(D->fd, tmp, 0);
    return fail(err, errlen, "cannot write a journal in %s: %s", D->path, strerror(e2));
  }
  D->staged = 0; /* the staging journal is replaced */
  return 0;
}

/* Names the temporary tmp in directory dir's staging journal before it is
   created (the journal is started at the first, naming the commit's own
   journal temporary too), appending a line at a time: a run killed before
   its commit leaves only temporaries its journal names, which the next run
   removes; files it does not name are never removed. */
static int stage_name(txn *t, int dir, const char *tmp, char *err, size_t errlen) {
  tdir *d = &t->dirs[dir];
  char buf[256];
  int n = 0, fd = openat(d->fd, JOURNAL, O_WRONLY | O_APPEND | O_CREAT | (d->staged ? 0 : O_TRUNC) | O_CLOEXEC, 0600);
  if (fd < 0) return fail(err, errlen, "cannot write a journal in %s: %s", d->path, strerror(errno));
  if (!d->staged)
    n = snprintf(buf, sizeof buf, "kforge-journal 1 %ld staging\ndir 0 .\ntemp 0 " TMP_PREFIX "%ld.j\n",
                 (long)getpid(), (long)getpid());
  n += snprintf(buf + n, sizeof buf - (size_t)n, "temp 0 %s\n", tmp);
  d->staged = 1;
  if (write(fd, buf, (size_t)n) != n) {
    int e = errno;
    close(fd);
    return fail(err, errlen, "cannot write a journal in %s: %s", d->path, strerror(e));
  }
  close(fd);
  return 0;
}

/* Parses journal text (modified in place) into j: 1, or -1. */
static int parse_journal(char *buf, journal *j) {
  char b[3 * PATH_BYTES], *line, *save;
  int ended = 0;
  /* A staging journal grows a line at a time: a run killed while writing
     leaves a partial last line (or nothing), which named no file yet. The
     others are renamed into place whole. */
  char *nl = strrchr(buf, '\n');
  if (nl) nl[1] = 0;
  else buf[0] = 0;
  if (!buf[0]) return j->staging = 1, 1;
  for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    char a[16], c[64], d[64];
    int n, k;
    if (ended) return -1;
    if (strncmp(line, "kforge-journal ", 15) == 0 && !j->id[0]) {
      if (sscanf(line, "kforge-journal 1 %63s %15s", j->id, a) != 2) return -1;
      if (strcmp(a, "primary") != 0 && strcmp(a, "secondary") != 0 && strcmp(a, "staging") != 0 &&
          strcmp(a, "done") != 0)
        return -1;
      j->primary = a[0] == 'p' || a[0] == 'd';
      j->done = a[0] == 'd';
      j->staging = a[1] == 't';
    } else if (!j->id[0]) {
      return -1;
    } else if (sscanf(line, "dir %d %12287s", &n, b) == 2) {
      if (n != j->ndirs || n >= MAX_DIRS || unesc(j->dirs[n], PATH_BYTES, b) != 0) return -1;
      if ((n == 0) != (strcmp(j->dirs[n], ".") == 0) || (n > 0 && j->dirs[n][0] != '/')) return -1;
      j->ndirs++;
    } else if (sscanf(line, "file %d %767s %63s %63s", &n, b, c, d) == 4) {
      tfile *x = &j->files[j->nfiles];
      if (j->nfiles == MAX_FILES || n < 0 || n >= j->ndirs || unesc(x->name, NAME_BYTES, b) != 0) return -1;
      k = strcmp(d, "-") != 0;
      if (!plain_name(x->name) || strncmp(c, TMP_PREFIX, strlen(TMP_PREFIX)) != 0 || !plain_name(c) ||
          (k && (strncmp(d, BAK_PREFIX, strlen(BAK_PREFIX)) != 0 || !plain_name(d))))
        return -1;
      x->dir = n;
      snprintf(x->tmp, sizeof x->tmp, "%s", c);
      snprintf(x->bak, sizeof x->bak, "%s", k ? d : "");
      j->nfiles++;
    } else if (sscanf(line, "temp 0 %63s", c) == 1) {
      if (j->ntemps == MAX_FILES + 1 || strncmp(c, TMP_PREFIX, strlen(TMP_PREFIX)) != 0 || !plain_name(c)) return -1;
      snprintf(j->temps[j->ntemps++], sizeof j->temps[0], "%s", c);
    } else if (strcmp(line, "end") == 0) {
      ended = 1;
    } else {
      return -1;
    }
  }
  if (j->staging) return j->ndirs == 1 && !j->nfiles ? 1 : -1;
  return ended && j->ndirs >= 1 && (j->primary || j->ndirs == 2) ? 1 : -1;
}

/* Reads dirfd's journal into j: 1, 0 when there is none, -1 (errno set;
   EINVAL: not a journal). */
static int read_journal(int dirfd, journal *j) {
  size_t cap = MAX_FILES * 3 * (NAME_BYTES + 64) + MAX_DIRS * 3 * PATH_BYTES + 256, len = 0;
  char *buf;
  ssize_t got = 0;
  int fd = openat(dirfd, JOURNAL, O_RDONLY | O_CLOEXEC), r = -1;
  if (fd < 0) return errno == ENOENT ? 0 : -1;
  if (!(buf = malloc(cap))) {
    close(fd);
    return -1;
  }
  while (len + 1 < cap && (got = read(fd, buf + len, cap - 1 - len)) > 0) len += (size_t)got;
  int e = got < 0 ? errno : EINVAL;
  close(fd);
  buf[len] = 0;
  memset(j, 0, sizeof *j);
  if (got >= 0 && len + 1 < cap) r = parse_journal(buf, j);
  free(buf);
  errno = e;
  return r;
}

/* Puts one file back as it was before its transaction (see the top). */
static int restore(int fd, const tfile *x) {
  struct stat st;
  if (x->bak[0]) {
    if (fstatat(fd, x->bak, &st, AT_SYMLINK_NOFOLLOW) != 0) return errno == ENOENT ? 0 : -1;
    if (renameat(fd, x->bak, fd, x->name) != 0) return -1;
    unlinkat(fd, x->bak, 0); /* still there when both were links to one file */
    return 0;
  }
  if (fstatat(fd, x->tmp, &st, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT) return 0;
  return unlinkat(fd, x->name, 0) == 0 || errno == ENOENT ? 0 : -1;
}

/* Rolls back the transaction of primary journal pj, found in directory p.
   Returns 0 (with *relock when a directory had to be added), or -1. */
static int rollback(txn *t, int p, const journal *pj, int *relock, char *err, size_t errlen) {
  int fds[MAX_DIRS], added = 0;
  fds[0] = t->dirs[p].fd;
  for (int k = 1; k < pj->ndirs; k++) {
    int i = find_or_add(t, pj->dirs[k], &added, err, errlen);
    if (i == -1) return -1;
    if (added) return *relock = 1, 0;
    fds[k] = i < 0 ? -1 : t->dirs[i].fd;
    /* that directory's part only while its secondary journal is there */
    journal *s = &t->jr[2];
    if (fds[k] >= 0 && (read_journal(fds[k], s) != 1 || s->primary || strcmp(s->id, pj->id) != 0)) fds[k] = -1;
  }
  for (int i = 0; i < pj->nfiles; i++) {
    const tfile *x = &pj->files[i];
    if (pj->done) { /* committed: only its backups are left to remove */
      if (fds[x->dir] >= 0 && x->bak[0]) unlinkat(fds[x->dir], x->bak, 0);
      continue;
    }
    if (fds[x->dir] >= 0 && restore(fds[x->dir], x) != 0)
      return fail(err, errlen, "cannot roll back an interrupted kforge run in %s: %s: %s", t->dirs[p].path, x->name,
                  strerror(errno));
  }
  for (int i = 0; i < pj->nfiles; i++) /* after every restore: restore reads whether they exist */
    if (fds[pj->files[i].dir] >= 0) unlinkat(fds[pj->files[i].dir], pj->files[i].tmp, 0);
  for (int k = 0; k < pj->ndirs; k++)
    if (fds[k] >= 0 && sync_dir(fds[k]) != 0)
      return fail(err, errlen, "cannot roll back an interrupted kforge run in %s: %s", t->dirs[p].path, strerror(errno));
  if (unlinkat(fds[0], JOURNAL, 0) != 0)
    return fail(err, errlen, "cannot remove %s/" JOURNAL ": %s", t->dirs[p].path, strerror(errno));
  sync_dir(fds[0]);
  for (int k = 1; k < pj->ndirs; k++)
    if (fds[k] >= 0) unlinkat(fds[k], JOURNAL, 0);
  if (!pj->done) fprintf(stderr, "kforge: note: rolled back an interrupted kforge run in %s\n", t->dirs[p].path);
  return 0;
}

static void remove_temps(int fd, const journal *j) {
  for (int i = 0; i < j->ntemps; i++) unlinkat(fd, j->temps[i], 0);
}

/* Resolves every journal in the locked directories. Returns 0, 1 (a
   directory was added: lock again), or -1. */
static int recover(txn *t, char *err, size_t errlen) {
  for (int d = 0; d < t->ndirs; d++) {
    journal *j = &t->jr[0], *pj = &t->jr[1];
    int fd = t->dirs[d].fd, r, relock = 0, added = 0;
    if (fd < 0 || (r = read_journal(fd, j)) == 0) continue;
    if (r < 0)
      return fail(err, errlen, "%s/" JOURNAL ": %s (left by an interrupted kforge run; not touched)", t->dirs[d].path,
                  errno == EINVAL ? "not a journal this kforge can read" : strerror(errno));
    if (j->staging) { /* a run that died before its commit: its temporaries, nothing else */
      remove_temps(fd, j);
      r = unlinkat(fd, JOURNAL, 0) == 0 ? 0 : fail(err, errlen, "cannot remove %s/" JOURNAL ": %s", t->dirs[d].path,
                                                   strerror(errno));
    } else if (j->primary) {
      r = rollback(t, d, j, &relock, err, errlen);
    } else {
      int p = find_or_add(t, j->dirs[1], &added, err, errlen);
      if (p == -1) return -1;
      if (added) return 1;
      if (p >= 0 && read_journal(t->dirs[p].fd, pj) == 1 && pj->primary && strcmp(pj->id, j->id) == 0)
        r = rollback(t, p, pj, &relock, err, errlen);
      else if ((remove_temps(fd, j), unlinkat(fd, JOURNAL, 0)) != 0) /* its commit finished (or never began) */
        r = fail(err, errlen, "cannot remove %s/" JOURNAL ": %s", t->dirs[d].path, strerror(errno));
      else
        r = 0;
    }
    if (r != 0 || relock) return r ? -1 : 1;
  }
  return 0;
}

/* ---------------------------------------------------------------- locking */

static void unlock_all(txn *t) {
  for (int i = 0; i < t->ndirs; i++)
    if (t->dirs[i].fd >= 0) flock(t->dirs[i].fd, LOCK_UN);
}

static int lock_all(txn *t, char *err, size_t errlen) {
  int order[MAX_DIRS], n = 0;
  for (int i = 0; i < t->ndirs; i++) { /* by (st_dev, st_ino): two runs never wait for each other in a cycle */
    const tdir *d = &t->dirs[i];
    int k;
    if (d->fd < 0) continue;
    for (k = n++; k > 0; k--) {
      const tdir *o = &t->dirs[order[k - 1]];
      if (o->dev < d->dev || (o->dev == d->dev && o->ino < d->ino)) break;
      order[k] = order[k - 1];
    }
    order[k] = i;
  }
  for (int k = 0; k < n; k++) {
    tdir *d = &t->dirs[order[k]];
    if (flock(d->fd, LOCK_EX | LOCK_NB) == 0) continue;
    if (errno == EWOULDBLOCK && !d->waited) {
      fflush(stdout);
      fprintf(stderr, "kforge: waiting for another kforge run writing to %s\n", d->path);
      d->waited = 1;
    }
    while (flock(d->fd, LOCK_EX) != 0)
      if (errno != EINTR) return fail(err, errlen, "cannot lock directory %s: %s", d->path, strerror(errno));
  }
  return 0;
}

/* After locking: is each directory still the one at its path (a failed run
   that created it may have removed it while we waited)? Reopens those that
   changed (all unlocked) and returns 1; 0 if none did; -1. */
static int reopen_changed(txn *t, char *err, size_t errlen) {
  int changed = 0;
  for (int i = 0; i < t->ndirs; i++) {
    tdir *d = &t->dirs[i];
    struct stat st;
    if (d->fd < 0 || (stat(d->path, &st) == 0 && st.st_dev == d->dev && st.st_ino == d->ino)) continue;
    if (!changed) unlock_all(t);
    changed = 1;
    close(d->fd);
    if (open_dir(d, err, errlen) != 0) {
      if (d->extra) continue; /* gone: nothing of it to roll back */
      return -1;
    }
    for (int k = 0; k < t->ndirs; k++)
      if (k != i && same_dir(&t->dirs[k], d))
        return fail(err, errlen, "directories changed while kforge waited: %s", d->path);
  }
  return changed;
}

int txn_lock(txn *t, char *err, size_t errlen) {
  if (t->locked) return fail(err, errlen, "internal: txn_lock twice");
  for (int tries = 0;; tries++) {
    int r;
    sigset_t old;
    if (tries == 100) return fail(err, errlen, "directories keep changing while kforge waits for them");
    if (lock_all(t, err, errlen) != 0) return -1;
    if ((r = reopen_changed(t, err, errlen)) != 0) {
      if (r < 0) return -1;
      continue;
    }
    block_signals(&old);
    r = recover(t, err, errlen);
    restore_signals(&old);
    if (r < 0) return -1;
    if (r == 0) break;
    unlock_all(t);
  }
  /* from here on a signal waits: staging is cut short by txn_commit, a
     commit finishes (or is undone), and txn_free cleans up before it acts */
  block_signals(&t->old_mask);
  t->locked = 1;
  return 0;
}

/* ---------------------------------------------------------------- staging and commit */

txn *txn_new(void) {
  txn *t = calloc(1, sizeof *t);
  struct sigaction ign;
  if (!t) return NULL;
  memset(&ign, 0, sizeof ign);
  ign.sa_handler = SIG_IGN;
  sigemptyset(&ign.sa_mask);
  sigaction(SIGXFSZ, &ign, &t->old_xfsz);
  return t;
}

int txn_file(txn *t, int dir, const char *name, txn_writer w, void *ctx, char *err, size_t errlen) {
  struct stat st;
  if (!t->locked || t->committed || dir < 0 || dir >= t->ndirs || t->dirs[dir].fd < 0)
    return fail(err, errlen, "internal: txn_file outside a locked transaction");
  tdir *d = &t->dirs[dir];
  if (!plain_name(name)) return fail(err, errlen, "%s/%s: not a file name", d->path, name);
  if (t->nfiles == MAX_FILES) return fail(err, errlen, "too many files in one transaction");
  for (int i = 0; i < t->nfiles; i++)
    if (t->files[i].dir == dir && strcmp(t->files[i].name, name) == 0)
      return fail(err, errlen, "%s/%s would be written twice", d->path, name);
  tfile *x = &t->files[t->nfiles];
  memset(x, 0, sizeof *x);
  x->dir = dir;
  snprintf(x->name, sizeof x->name, "%s", name);
  snprintf(x->tmp, sizeof x->tmp, TMP_PREFIX "%ld.%d", (long)getpid(), t->nfiles);
  /* The new file replaces the old one by rename: it must be able to take
     the old one's place whole (mode and owner kept), or the run refuses. */
  mode_t mode;
  int old = fstatat(d->fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
  if (old) {
    if (S_ISDIR(st.st_mode)) return fail(err, errlen, "%s/%s is a directory", d->path, name);
    if (S_ISLNK(st.st_mode))
      return fail(err, errlen, "%s/%s is a symbolic link: kforge replaces files by renaming a new one into place, "
                  "which would replace the link, not its target; name the target instead", d->path, name);
    if (!S_ISREG(st.st_mode)) return fail(err, errlen, "%s/%s is not a regular file", d->path, name);
    if (st.st_nlink > 1)
      return fail(err, errlen, "%s/%s has %ld hard links: replacing it by rename would split them; "
                  "remove the other links or write elsewhere", d->path, name, (long)st.st_nlink);
    if ((st.st_mode & 0222) == 0) /* by its mode: root could write it, but its owner said no */
      return fail(err, errlen, "%s/%s is read-only (mode %04o): kforge does not replace it", d->path, name,
                  (unsigned)(st.st_mode & 07777));
    mode = st.st_mode & 07777;
    snprintf(x->bak, sizeof x->bak, BAK_PREFIX "%ld.%d", (long)getpid(), t->nfiles);
  } else if (errno != ENOENT) {
    return fail(err, errlen, "%s/%s: %s", d->path, name, strerror(errno));
  } else {
    mode_t um = umask(0);
    umask(um);
    mode = 0666 & ~um;
  }
  if (stage_name(t, dir, x->tmp, err, errlen) != 0) return -1;
  /* created 0600, then given the old file's mode (a new file's: 0666 & ~umask) */
  int fd = openat(d->fd, x->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return fail(err, errlen, "cannot create a file in %s: %s", d->path, strerror(errno));
  t->nfiles++; /* from here on its temporary is ours to remove */
  /* its owner too where this process may give it (root; a user for a group it is in) */
  if (old && (st.st_uid != geteuid() || st.st_gid != getegid()) && fchown(fd, st.st_uid, st.st_gid) != 0 &&
      fchown(fd, (uid_t)-1, st.st_gid) != 0) {
    /* not permitted: the new file is this process's, with the old one's mode */
  }
  if (fchmod(fd, mode) != 0) {
    close(fd);
    return fail(err, errlen, "%s/%s: cannot set mode %04o: %s", d->path, name, (unsigned)mode, strerror(errno));
  }
  FILE *f = fdopen(fd, "wb");
  if (!f) {
    close(fd);
    return fail(err, errlen, "%s/%s: %s", d->path, name, strerror(errno));
  }
  int rc = w(f, ctx, err, errlen);
  if (rc == 0 && (fflush(f) != 0 || fsync(fileno(f)) != 0))
    rc = fail(err, errlen, "%s/%s: write error: %s", d->path, name, strerror(errno));
  if (fclose(f) != 0 && rc == 0) rc = fail(err, errlen, "%s/%s: write error: %s", d->path, name, strerror(errno));
  return rc;
}

/* Puts every staged file back and removes the journals (kept, for the next
   run, when something could not be put back). */
static int undo(txn *t, int used[MAX_DIRS]) {
  int ok = 1, p = t->files[0].dir;
  for (int i = 0; i < t->nfiles; i++) ok &= restore(t->dirs[t->files[i].dir].fd, &t->files[i]) == 0;
  for (int d = 0; d < t->ndirs; d++) ok &= !used[d] || sync_dir(t->dirs[d].fd) == 0;
  if (!ok) return -1;
  unlinkat(t->dirs[p].fd, JOURNAL, 0);
  sync_dir(t->dirs[p].fd);
  for (int d = 0; d < t->ndirs; d++)
    if (used[d] && d != p) unlinkat(t->dirs[d].fd, JOURNAL, 0);
  return 0;
}

int txn_commit(txn *t, char *err, size_t errlen) {
  int used[MAX_DIRS] = { 0 }, p, renamed = 0, sig;
  char id[64];
  struct timespec ts;
  if (!t->locked || t->committed) return fail(err, errlen, "internal: txn_commit outside a locked transaction");
  fault_after_rename(0);
  if ((sig = interrupted()) != 0)
    return fail(err, errlen, "interrupted by signal %d before the commit: nothing was changed", sig);
  if (t->nfiles == 0) return t->committed = 1, 0;
  p = t->files[0].dir;
  for (int i = 0; i < t->nfiles; i++) used[t->files[i].dir] = 1;
  clock_gettime(CLOCK_REALTIME, &ts);
  snprintf(id, sizeof id, "%ld.%lld.%09ld", (long)getpid(), (long long)ts.tv_sec, (long)ts.tv_nsec);

  for (int d = 0; d < t->ndirs; d++)
    if (used[d] && d != p && write_journal(t, d, id, 0, err, errlen) != 0) goto undo;
  if (write_journal(t, p, id, 0, err, errlen) != 0) goto undo;
  for (int i = 0; i < t->nfiles; i++) {
    tfile *x = &t->files[i];
    int fd = t->dirs[x->dir].fd;
    if (!x->bak[0]) continue;
    unlinkat(fd, x->bak, 0);
    if (linkat(fd, x->name, fd, x->bak, 0) == 0) continue;
    if (errno == EPERM || errno == EMLINK || errno == EXDEV || errno == ENOTSUP || errno == ENOSYS) {
      x->moved = 1; /* no hard links here: the old file is renamed aside just before its replacement */
      continue;
    }
    fail(err, errlen, "cannot keep %s/%s while replacing it: %s", t->dirs[x->dir].path, x->name, strerror(errno));
    goto undo;
  }
  for (int i = 0; i < t->nfiles; i++) {
    tfile *x = &t->files[i];
    int fd = t->dirs[x->dir].fd;
    if ((x->moved && renameat(fd, x->name, fd, x->bak) != 0) || renameat(fd, x->tmp, fd, x->name) != 0) {
      fail(err, errlen, "cannot rename a new file to %s/%s: %s", t->dirs[x->dir].path, x->name, strerror(errno));
      goto undo;
    }
    fault_after_rename(++renamed);
  }
  for (int d = 0; d < t->ndirs; d++)
    if (used[d] && sync_dir(t->dirs[d].fd) != 0) {
      fail(err, errlen, "cannot sync directory %s: %s", t->dirs[d].path, strerror(errno));
      goto undo;
    }
  /* The commit point: the primary journal becomes "done" (renamed over),
     so that a run killed while removing the backups leaves them named. */
  if (write_journal(t, p, id, 1, err, errlen) != 0) goto undo;
  t->committed = 1;
  for (int i = 0; i < t->nfiles; i++)
    if (t->files[i].bak[0]) unlinkat(t->dirs[t->files[i].dir].fd, t->files[i].bak, 0);
  for (int d = 0; d < t->ndirs; d++)
    if (used[d] && d != p) unlinkat(t->dirs[d].fd, JOURNAL, 0);
  unlinkat(t->dirs[p].fd, JOURNAL, 0);
  return 0;
undo:
  if (undo(t, used) != 0) {
    size_t n = strlen(err);
    snprintf(err + n, errlen - n, "; not every old file could be put back: the next kforge run into %s does it",
             t->dirs[p].path);
  }
  return -1;
}

void txn_free(txn *t) {
  if (!t) return;
  for (int i = 0; i < t->nfiles; i++) unlinkat(t->dirs[t->files[i].dir].fd, t->files[i].tmp, 0);
  for (int i = 0; i < t->ndirs; i++) {
    tdir *d = &t->dirs[i];
    struct stat st;
    if (d->fd < 0) continue;
    if (d->staged) unlinkat(d->fd, JOURNAL, 0); /* its temporaries are gone */
    if (d->created && !t->committed && stat(d->path, &st) == 0 && st.st_dev == d->dev && st.st_ino == d->ino)
      rmdir(d->path); /* only if empty */
    close(d->fd);     /* and unlocked */
  }
  sigaction(SIGXFSZ, &t->old_xfsz, NULL);
  if (t->locked) restore_signals(&t->old_mask); /* a pending signal acts now */
  free(t);
}
