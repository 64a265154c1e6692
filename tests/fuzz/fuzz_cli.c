/*
** fuzz_cli.c -- libFuzzer target over the kforge CLI's argument parsing and
** the whole `run` path behind it.
**
** tools/cli/main.c is compiled with -Dmain=kforge_main (ninja/fuzz.ninja),
** so its main is called in-process with an argv built from the fuzz bytes
** (tokens separated by '\n'). File arguments are confined to a temp dir:
** every INPUT_NAME=FILE value (and show's FILE) names one of a few prepared
** .npy files there (valid inputs for each op, wrong dtypes, garbage, an
** empty file, a directory), and every --out value is redirected to a fresh
** output dir, which is emptied after each run. Properties checked (abort on
** violation):
**   - the exit status is 0, 1 or 2;
**   - no partial output: after a failure the output dir holds nothing (and
**     is gone when the CLI created it); after a successful run it holds
**     exactly the op's outputs and no temporary, backup or journal file;
**   - no file descriptor is leaked.
*/
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kforge.h"
#include "npy.h"

int kforge_main(int argc, char **argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_TOKENS 24
#define TOKEN_BYTES 256

static char root[64], indir[128], outdir[128];

static void die(const char *what) {
  fprintf(stderr, "fuzz_cli: %s\n", what);
  abort();
}

static void put(const char *name, npy_dtype t, int rank, const int64_t *dims, const void *data) {
  char path[256], err[256];
  snprintf(path, sizeof path, "%s/%s", indir, name);
  if (npy_write(path, t, rank, dims, data, err, sizeof err) != 0) die(err);
}

static void put_raw(const char *name, const char *bytes, size_t n) {
  char path[256];
  FILE *f;
  snprintf(path, sizeof path, "%s/%s", indir, name);
  f = fopen(path, "wb");
  if (!f || fwrite(bytes, 1, n, f) != n || fclose(f) != 0) die("cannot write a prepared file");
}

/* The prepared inputs: a valid FusedBatchNormGrad* call (NHWC 1x2x2x3), a
   valid depthwise call (SAME, stride 1, 3x3 filter), and files that must
   be refused. */
static void setup(void) {
  static const int64_t x4[4] = { 1, 2, 2, 3 }, c1[1] = { 3 }, z1[1] = { 0 }, f4[4] = { 3, 3, 2, 1 },
                       g4[4] = { 1, 4, 4, 2 }, s1[1] = { 4 }, e2[2] = { 0, 5 };
  float x[12], c[3] = { 1, 0.5f, 2 }, v[3] = { 1, 2, 3 }, f[18], g[32];
  uint16_t h[12];
  int32_t sizes[4] = { 1, 4, 4, 2 }, bad_sizes[4] = { 1, -4, 4, 2 };
  int i;
  /* `kforge plan --batch` reads standard input: never the fuzzer's own */
  if (!freopen("/dev/null", "r", stdin)) die("freopen /dev/null");
  snprintf(root, sizeof root, "/tmp/fuzz_cli.XXXXXX");
  if (!mkdtemp(root)) die("mkdtemp");
  snprintf(indir, sizeof indir, "%s/in", root);
  snprintf(outdir, sizeof outdir, "%s/out", root);
  if (mkdir(indir, 0777) != 0) die("mkdir");
  for (i = 0; i < 12; i++) x[i] = (float)i * 0.25f - 1, h[i] = kf_float_to_half(x[i]);
  for (i = 0; i < 18; i++) f[i] = (float)(i % 5) - 2;
  for (i = 0; i < 32; i++) g[i] = (float)(i % 7) * 0.5f;
  put("dy.npy", NPY_F4, 4, x4, x);
  put("x.npy", NPY_F4, 4, x4, x);
  put("s.npy", NPY_F4, 1, c1, c);
  put("m.npy", NPY_F4, 1, c1, c);
  put("v.npy", NPY_F4, 1, c1, v);
  put("r.npy", NPY_F4, 1, z1, NULL);
  put("h.npy", NPY_F2, 4, x4, h);
  put("b.npy", NPY_U2, 4, x4, h);
  put("u1.npy", NPY_U1, 1, c1, "abc");
  put("sizes.npy", NPY_I4, 1, s1, sizes);
  put("badsizes.npy", NPY_I4, 1, s1, bad_sizes);
  put("f.npy", NPY_F4, 4, f4, f);
  put("g.npy", NPY_F4, 4, g4, g);
  put("e.npy", NPY_F4, 2, e2, NULL);
  put_raw("empty.npy", "", 0);
  put_raw("junk.npy", "\x93NUMPY\x01\x00\x04\x00{}\n\n", 14);
  {
    char path[256];
    snprintf(path, sizeof path, "%s/dir.npy", indir);
    if (mkdir(path, 0777) != 0) die("mkdir dir.npy");
  }
}

/* Removes everything in dir (flat) and dir itself; returns the number of
   entries it held, -1 if dir did not exist. tmp counts temporary files
   (and the CLI's .kforge-* backups and journals). */
static int clear_dir(const char *dir, int *tmp, int rmself) {
  DIR *d = opendir(dir);
  struct dirent *e;
  int n = 0;
  if (tmp) *tmp = 0;
  if (!d) return -1;
  while ((e = readdir(d)) != NULL) {
    char path[512];
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    n++;
    if (tmp && (strstr(e->d_name, ".tmp.") || strncmp(e->d_name, ".kforge-", 8) == 0)) (*tmp)++;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (unlink(path) != 0) rmdir(path);
  }
  closedir(d);
  if (rmself) rmdir(dir);
  return n;
}

/* A file value: a prepared file named by its letters, digits, '.' and '_'. */
static void file_arg(char *dst, size_t cap, const char *v) {
  char name[64];
  size_t k = 0;
  for (; *v && k + 1 < sizeof name; v++) {
    char c = *v;
    name[k++] = ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_')
                    ? c : '_';
  }
  name[k] = 0;
  if (k == 0 || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) snprintf(dst, cap, "%s", name);
  else snprintf(dst, cap, "%s/%s", indir, name);
}

/* The temp dir goes when the fuzzer exits normally. */
static void remove_root(void) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  if (system(cmd) != 0) fprintf(stderr, "fuzz_cli: cannot remove %s\n", root);
}

static int next_fd(void) {
  int fd = open("/dev/null", O_RDONLY);
  if (fd >= 0) close(fd);
  return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static int ready;
  static char tok[MAX_TOKENS][TOKEN_BYTES];
  char *argv[MAX_TOKENS + 2];
  int argc = 0, ntok = 0, i, rc, pre, tmp, n, fd0;
  size_t k = 0, p;
  const char *cmd;

  if (!ready) {
    setup();
    atexit(remove_root);
    ready = 1;
  }
  if (size == 0) return 0;
  pre = data[0] & 1; /* the output dir exists before the run */
  /* tokens: '\n'-separated */
  for (p = 1; p <= size && ntok < MAX_TOKENS; p++) {
    if (p == size || data[p] == '\n') {
      tok[ntok][k < TOKEN_BYTES ? k : TOKEN_BYTES - 1] = 0;
      ntok++;
      k = 0;
    } else if (k + 1 < TOKEN_BYTES) {
      tok[ntok][k++] = (char)data[p];
    }
  }
  argv[argc++] = (char *)"kforge";
  cmd = ntok > 0 ? tok[0] : "";
  for (i = 0; i < ntok; i++) {
    char *t = tok[i], fixed[TOKEN_BYTES + 160];
    int prev_out = i > 0 && strcmp(tok[i - 1], "--out") == 0;
    int prev_attr = i > 0 && strcmp(tok[i - 1], "--attr") == 0;
    int prev_record = i > 0 && strcmp(tok[i - 1], "--record") == 0;
    if ((prev_record && t[0]) || (strncmp(t, "--record=", 9) == 0 && t[9])) {
      /* --record FILE: a file in the temp dir, or (names starting with 'x')
         in a directory that does not exist, so that recording fails */
      char name[TOKEN_BYTES];
      const char *v = prev_record ? t : t + 9;
      file_arg(name, sizeof name, v);
      snprintf(fixed, sizeof fixed, "%s%s/%s%s", prev_record ? "" : "--record=", root, v[0] == 'x' ? "missing/" : "",
               strrchr(name, '/') ? strrchr(name, '/') + 1 : "rec.lua");
      snprintf(t, TOKEN_BYTES, "%s", fixed);
    } else if (prev_out && t[0]) {
      snprintf(t, TOKEN_BYTES, "%s", outdir);
    } else if (strncmp(t, "--out=", 6) == 0 && t[6]) {
      snprintf(t, TOKEN_BYTES, "--out=%s", outdir);
    } else if (i >= 1 && strcmp(cmd, "show") == 0 && strcmp(t, "--bfloat16") != 0) {
      file_arg(fixed, sizeof fixed, t);
      snprintf(t, TOKEN_BYTES, "%s", fixed);
    } else if (!prev_attr && i >= 2 && t[0] != '-' && strchr(t, '=')) {
      char *eq = strchr(t, '=');
      size_t nl = (size_t)(eq - t) + 1;
      char val[TOKEN_BYTES];
      file_arg(val, sizeof val, eq + 1);
      memcpy(fixed, t, nl);
      snprintf(fixed + nl, sizeof fixed - nl, "%s", val);
      snprintf(t, TOKEN_BYTES, "%s", fixed);
    }
    argv[argc++] = t;
  }
  argv[argc] = NULL;

  if (pre && mkdir(outdir, 0777) != 0) die("mkdir out");
  fd0 = next_fd();
  rc = kforge_main(argc, argv);
  n = clear_dir(outdir, &tmp, 1);
  { /* records are not outputs: remove them (and any temp file of theirs) */
    int keep = clear_dir(root, NULL, 0);
    (void)keep;
  }

  if (rc < 0 || rc > 2) die("exit status outside 0..2");
  if (tmp) die("a temporary output file was left behind");
  if (rc != 0 && n > 0) die("partial output: files written by a failed run");
  if (rc != 0 && !pre && n >= 0) die("partial output: a failed run left the output dir it created");
  if (rc == 0 && strcmp(cmd, "run") == 0 && n > 0) {
    kf_op op = argc > 2 ? kf_op_from_name(argv[2]) : KF_OP_INVALID;
    if (op != KF_OP_INVALID && n != kf_op_num_outputs(op)) die("a successful run wrote the wrong number of files");
  }
  if (next_fd() != fd0) die("file descriptor leak");
  return 0;
}
