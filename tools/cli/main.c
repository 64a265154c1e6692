/*
** main.c -- the kforge command line: runs one TF op on .npy files.
**
**   kforge run <OpName> [--attr NAME=VALUE]... [--verbose] --out DIR INPUT_NAME=FILE.npy ...
**   kforge plan <OpName> [--attr NAME=VALUE]... --input NAME=DTYPE:D0,D1,... [--values NAME=V0,V1,...]
**   kforge plan --batch   (the same arguments, one call per line of stdin)
**   kforge tune --batch | --manifest FILE [--threads N] [--out FILE] [--compare]
**   kforge list | ops | help
**
** Errors print exactly one line "kforge: error: <message>" and exit 2
** (usage) or 1 (anything else). The file system is touched only after the op
** ran, through one transaction (commit.h): DIR (created if missing) and the
** record's directory are locked, every output and the new record are staged,
** then all of them replace the old files together, or none does and DIR and
** the record are left exactly as they were (a DIR we created is removed).
*/
#include "call.h"
#include "commit.h"
#include "kforge.h"
#include "npy.h"
#include "record.h"
#include "profile.h"
#include "tune.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define KF_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define KF_PRINTF(f, a)
#endif

#define EXIT_USAGE 2
#define MAX_IO 8      /* inputs or outputs of any op */
#define MAX_ATTRS 32  /* --attr options per run */
#define PATH_BYTES 4096

static const char USAGE[] =
    "usage:\n"
    "  kforge run <OpName> [--attr NAME=VALUE]... [--verbose] --out DIR INPUT_NAME=FILE.npy ...\n"
    "      run a TensorFlow op on .npy inputs (named by TF input names) and write\n"
    "      DIR/<output_name>.npy for each output. T is inferred from the inputs;\n"
    "      bfloat16 travels as <u2 bit patterns and needs --attr T=bfloat16.\n"
    "      List attrs are comma separated: --attr strides=1,2,2,1\n"
    "      --record FILE [--record-name NAME]: also append this call to FILE as an\n"
    "      instance of a model manifest (specs/models format)\n"
    "      The outputs (and the record) are replaced all together or not at all;\n"
    "      runs writing to the same DIR (or record) wait for each other.\n"
    "  kforge plan <OpName> [--attr NAME=VALUE]... --input NAME=DTYPE:D0,D1,...\n"
    "              [--values NAME=V0,V1,...]\n"
    "      plan a call without data (TF's rules) and print its kernel key, the\n"
    "      family's axis values the call needs, as a Lua table on one line:\n"
    "        { op = \"...\", family = \"...\", axes = { \"T\", ... }, key = { T = \"f32\", ... },\n"
    "          kernel = \"...\", generic = false }\n"
    "      (kernel: what this build selects). Every input needs --input (DTYPE\n"
    "      as TF names it, no dims for a scalar); inputs read while planning\n"
    "      (input_sizes) also need --values.\n"
    "  kforge plan --batch\n"
    "      the same for each line of standard input (the arguments above,\n"
    "      blank-separated; --name LABEL may name a call); a line that fails\n"
    "      prints { error = \"...\", rule = \"...\" } and the exit status is 1\n"
    "  kforge tune --batch [--threads N] [--out FILE] [--compare] [--cold]\n"
    "      plan each call of standard input (plan --batch's lines) in measured\n"
    "      mode and write their wisdom to FILE (default: $KFORGE_WISDOM, else\n"
    "      kforge.wisdom); --compare also times each call's rule plan beside its\n"
    "      measured plan; --cold measures (and compares) with the call's buffers\n"
    "      evicted from the caches before each run, as in a model; docs/tuning.md\n"
    "  kforge tune --manifest FILE [--batch-size N] [--threads N] [--out FILE]\n"
    "              [--compare] [--cold]\n"
    "      the same for every call of a model manifest (specs/models/*.lua),\n"
    "      read by lua5.4 tools/tune_calls.lua (the source tree; $KFORGE_LUA,\n"
    "      $KFORGE_ROOT), at batch N if given; default FILE: <manifest name>.wisdom\n"
    "  kforge profile --manifest FILE [--batch-size N] [--top K] [--fresh] | --batch [--top K] [--fresh]\n"
    "      time every call (planned by the rule or KFORGE_WISDOM) on 1 thread,\n"
    "      warm, cold, and in model order (all calls in turn, each on buffers\n"
    "      of its own, as a step runs them), against its DRAM floor (bytes over\n"
    "      a measured copy bandwidth); sums by op and kernel, the calls holding\n"
    "      the gap; --fresh plans as TF's ops do (fresh outputs)\n"
    "  kforge list      the kernels compiled in, with their configuration\n"
    "  kforge ops       the ops with their TF input and output names\n"
    "  kforge show [--bfloat16] FILE.npy\n"
    "                   print an array (first 256 values; --bfloat16 reads <u2 as bfloat16)\n"
    "  kforge help      this text\n";

/* Prints the one error line (newlines in the message flattened) and
   returns code. */
KF_PRINTF(2, 3)
static int error_line(int code, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  for (char *p = msg; *p; p++)
    if (*p == '\n' || *p == '\r') *p = ' ';
  fflush(stdout);
  fprintf(stderr, "kforge: error: %s\n", msg);
  return code;
}

/* "[2,3,4]" */
static const char *shape_str(const kf_tensor_desc *d, char *buf, size_t n) {
  size_t k = (size_t)snprintf(buf, n, "[");
  for (int i = 0; i < d->rank && k < n; i++)
    k += (size_t)snprintf(buf + k, n - k, i ? ",%lld" : "%lld", (long long)d->dims[i]);
  if (k < n) snprintf(buf + k, n - k, "]");
  return buf;
}

static npy_dtype npy_of(kf_dtype t) {
  switch (t) {
  case KF_HALF: return NPY_F2;
  case KF_BFLOAT16: return NPY_U2; /* bit patterns */
  case KF_FLOAT: return NPY_F4;
  case KF_DOUBLE: return NPY_F8;
  case KF_INT32: return NPY_I4;
  default: return NPY_INVALID;
  }
}

/* Flushes stdout and reports a failed write (e.g. a closed pipe). */
static int finish_stdout(void) {
  if (fflush(stdout) != 0 || ferror(stdout))
    return error_line(1, "cannot write to standard output: %s", strerror(errno));
  return 0;
}

static int cmd_list(void) {
  for (int i = 0; i < kf_kernel_count(); i++)
    printf("%s %s\n", kf_kernel_name(i), kf_kernel_config(i));
  return finish_stdout();
}

static int cmd_ops(void) {
  for (int op = KF_OP_INVALID + 1; op < KF_OP_COUNT; op++) {
    printf("%s(", kf_op_name((kf_op)op));
    for (int i = 0; i < kf_op_num_inputs((kf_op)op); i++)
      printf(i ? ", %s" : "%s", kf_op_input_name((kf_op)op, i));
    printf(") -> (");
    for (int i = 0; i < kf_op_num_outputs((kf_op)op); i++)
      printf(i ? ", %s" : "%s", kf_op_output_name((kf_op)op, i));
    printf(")\n");
  }
  return finish_stdout();
}

/* Everything one `run` owns, released by run_free. */
typedef struct run {
  kf_op op;
  int nin, nout;
  const char *files[MAX_IO];
  npy_array in[MAX_IO];
  npy_file *open_in[MAX_IO];      /* inputs whose data is not read yet */
  void *out[MAX_IO];
  void *scratch;
  const char *kv[MAX_ATTRS];      /* the --attr NAME=VALUE texts, for --record */
  int nkv;
  const char *record, *record_name;
} run;

static void run_free(run *r) {
  for (int i = 0; i < MAX_IO; i++) {
    npy_free(&r->in[i]);
    npy_close(r->open_in[i]);
    free(r->out[i]);
  }
  free(r->scratch);
}

/* Parses `run` arguments into r/attrs; returns 0 or an exit status. */
static int parse_run_args(int argc, char **argv, run *r, kf_attrs *attrs, const char **out_dir,
                          int *verbose) {
  if (argc < 3 || strncmp(argv[2], "--", 2) == 0)
    return error_line(EXIT_USAGE, "run: missing <OpName> (try 'kforge help')");
  r->op = kf_op_from_name(argv[2]);
  if (r->op == KF_OP_INVALID)
    return error_line(EXIT_USAGE, "unknown op '%s' (see 'kforge ops')", argv[2]);
  r->nin = kf_op_num_inputs(r->op);
  if (r->nin < 0 || r->nin > MAX_IO)
    return error_line(1, "internal: op %s has %d inputs", argv[2], r->nin);
  kf_attrs_init(r->op, attrs);
  const char *attr_names[MAX_ATTRS];
  size_t attr_lens[MAX_ATTRS];
  int nattrs = 0;
  char names[512];
  for (int i = 3; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--verbose") == 0) {
      *verbose = 1;
    } else if (strcmp(a, "--out") == 0 || strncmp(a, "--out=", 6) == 0) {
      const char *v = a[5] == '=' ? a + 6 : (i + 1 < argc ? argv[++i] : NULL);
      if (!v || !*v) return error_line(EXIT_USAGE, "--out needs a directory");
      if (*out_dir) return error_line(EXIT_USAGE, "--out given more than once");
      *out_dir = v;
    } else if (strcmp(a, "--attr") == 0 || strncmp(a, "--attr=", 7) == 0) {
      const char *v = a[6] == '=' ? a + 7 : (i + 1 < argc ? argv[++i] : NULL);
      const char *eq = v ? strchr(v, '=') : NULL;
      if (!eq || eq == v)
        return error_line(EXIT_USAGE, "--attr needs NAME=VALUE, got '%s'", v ? v : "");
      size_t len = (size_t)(eq - v);
      char name[64];
      if (len >= sizeof name) return error_line(EXIT_USAGE, "--attr: name too long: '%s'", v);
      memcpy(name, v, len);
      name[len] = '\0';
      for (int k = 0; k < nattrs; k++)
        if (attr_lens[k] == len && memcmp(attr_names[k], v, len) == 0)
          return error_line(EXIT_USAGE, "attribute '%s' given more than once", name);
      if (nattrs == MAX_ATTRS) return error_line(EXIT_USAGE, "too many --attr options");
      attr_names[nattrs] = v, attr_lens[nattrs++] = len;
      r->kv[r->nkv++] = v;
      kf_error err;
      memset(&err, 0, sizeof err);
      kf_status st = kf_attrs_set(r->op, attrs, name, eq + 1, &err);
      if (st != KF_OK) return error_line(1, "%s", kfc_message(st, &err));
    } else if (strcmp(a, "--record") == 0 || strcmp(a, "--record-name") == 0) {
      const char *v = i + 1 < argc ? argv[++i] : NULL;
      if (!v || !*v) return error_line(EXIT_USAGE, "%s needs a value", a);
      if (a[8] == '-') {
        char err[160];
        if (record_check_name(v, err, sizeof err) != 0) return error_line(EXIT_USAGE, "%s", err);
        r->record_name = v;
      } else {
        r->record = v;
      }
    } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(USAGE, stdout);
      return finish_stdout() ? 1 : -1; /* -1: done, exit 0 */
    } else if (a[0] == '-' && a[1] == '-') {
      return error_line(EXIT_USAGE, "unknown option '%s' (try 'kforge help')", a);
    } else {
      const char *eq = strchr(a, '=');
      if (!eq || eq == a || !eq[1])
        return error_line(EXIT_USAGE, "expected INPUT_NAME=FILE.npy, got '%s'", a);
      int k;
      for (k = 0; k < r->nin; k++) {
        const char *nm = kf_op_input_name(r->op, k);
        if (strlen(nm) == (size_t)(eq - a) && memcmp(nm, a, (size_t)(eq - a)) == 0) break;
      }
      if (k == r->nin)
        return error_line(EXIT_USAGE, "%s has no input '%.*s' (its inputs: %s)",
                          kf_op_name(r->op), (int)(eq - a), a,
                          kfc_input_list(r->op, names, sizeof names));
      if (r->files[k])
        return error_line(EXIT_USAGE, "input '%s' given more than once",
                          kf_op_input_name(r->op, k));
      r->files[k] = eq + 1;
    }
  }
  if (!*out_dir) return error_line(EXIT_USAGE, "missing --out DIR");
  for (int k = 0; k < r->nin; k++)
    if (!r->files[k])
      return error_line(EXIT_USAGE, "missing input '%s' (%s needs: %s)",
                        kf_op_input_name(r->op, k), kf_op_name(r->op),
                        kfc_input_list(r->op, names, sizeof names));
  return 0;
}

/* Reads the inputs' headers (TF order) and builds their descriptors; reads
   the data of the int32 inputs only (read at plan time, such as
   input_sizes): the rest is read by read_inputs once the plan has checked
   every shape, so that a header declaring a shape the op refuses (say 2^31
   elements of the wrong rank, from a pipe) is refused before its data. */
static int load_inputs(run *r, const kf_attrs *attrs, kf_tensor_desc *desc) {
  char err[1024];
  for (int k = 0; k < r->nin; k++) {
    const char *name = kf_op_input_name(r->op, k);
    if (npy_open(r->files[k], &r->in[k], &r->open_in[k], err, sizeof err) != 0)
      return error_line(1, "input '%s': %s", name, err);
    const npy_array *a = &r->in[k];
    kf_tensor_desc *d = &desc[k];
    memset(d, 0, sizeof *d);
    switch (a->dtype) {
    case NPY_F2: d->dtype = KF_HALF; break;
    case NPY_F4: d->dtype = KF_FLOAT; break;
    case NPY_F8: d->dtype = KF_DOUBLE; break;
    case NPY_I4: d->dtype = KF_INT32; break;
    case NPY_U2:
      if (attrs->T != KF_BFLOAT16)
        return error_line(1, "input '%s': %s is uint16 (<u2); bfloat16 data travels as <u2 "
                             "bit patterns and needs --attr T=bfloat16", name, r->files[k]);
      d->dtype = KF_BFLOAT16;
      break;
    default:
      return error_line(1, "input '%s': %s has dtype %s, which kforge does not take", name,
                        r->files[k], npy_dtype_descr(a->dtype));
    }
    d->rank = a->rank;
    for (int i = 0; i < a->rank; i++) d->dims[i] = a->dims[i];
    /* int32 inputs (input_sizes) are read while planning: hand over their values. */
    if (d->dtype == KF_INT32) {
      npy_file *nf = r->open_in[k];
      r->open_in[k] = NULL;
      if (npy_read_data(nf, &r->in[k], err, sizeof err) != 0) return error_line(1, "input '%s': %s", name, err);
      d->host_data = r->in[k].data;
    }
  }
  return 0;
}

/* Reads the data load_inputs left for after planning. */
static int read_inputs(run *r) {
  char err[1024];
  for (int k = 0; k < r->nin; k++) {
    npy_file *nf = r->open_in[k];
    if (!nf) continue;
    r->open_in[k] = NULL;
    if (npy_read_data(nf, &r->in[k], err, sizeof err) != 0)
      return error_line(1, "input '%s': %s", kf_op_input_name(r->op, k), err);
  }
  return 0;
}

typedef struct npy_out {
  char path[PATH_BYTES]; /* DIR/<name>.npy, for messages */
  const kf_tensor_desc *d;
  const void *data;
} npy_out;

static int write_npy(FILE *f, void *ctx, char *err, size_t errlen) {
  const npy_out *o = ctx;
  return npy_write_fp(f, o->path, npy_of(o->d->dtype), o->d->rank, o->d->dims, o->data, err, errlen);
}

/* Splits a --record path into its directory and file name. */
static int split_record_path(const char *path, char *dir, size_t n, const char **base) {
  const char *slash = strrchr(path, '/');
  *base = slash ? slash + 1 : path;
  if (!**base || strcmp(*base, ".") == 0 || strcmp(*base, "..") == 0)
    return error_line(1, "--record: %s is a directory", path);
  if (!slash) snprintf(dir, n, ".");
  else if (slash == path) snprintf(dir, n, "/");
  else if ((size_t)(slash - path) >= n) return error_line(1, "--record: path too long");
  else snprintf(dir, n, "%.*s", (int)(slash - path), path);
  return 0;
}

/* Writes the outputs (and the record) in one transaction: all of them, or
   nothing changes. */
static int write_files(run *r, const kf_plan *plan, const kf_attrs *attrs, const kf_tensor_desc *desc,
                       const char *out_dir) {
  char err[1024], rdir[PATH_BYTES], inst[64];
  const char *rbase = NULL;
  int od, rd = -1, rc = 1;
  npy_out o;
  if (r->record && split_record_path(r->record, rdir, sizeof rdir, &rbase) != 0) return 1;
  txn *t = txn_new();
  if (!t) return error_line(1, "out of memory");
  /* DIR first (the record may go into it); txn_free removes it on failure */
  if ((od = txn_dir(t, out_dir, 1, err, sizeof err)) < 0) {
    error_line(1, "--out: %s", err);
    goto done;
  }
  if (r->record && (rd = txn_dir(t, rdir, 0, err, sizeof err)) < 0) {
    error_line(1, "--record: %s", err);
    goto done;
  }
  if (txn_lock(t, err, sizeof err) != 0) {
    error_line(1, "%s", err);
    goto done;
  }
  for (int i = 0; i < r->nout; i++) {
    const char *name = kf_op_output_name(r->op, i);
    char file[256];
    int n1 = snprintf(o.path, sizeof o.path, "%s/%s.npy", out_dir, name);
    snprintf(file, sizeof file, "%s.npy", name);
    if (n1 < 0 || n1 >= (int)sizeof o.path) {
      error_line(1, "output path too long in '%s'", out_dir);
      goto done;
    }
    o.d = kf_plan_output_desc(plan, i);
    o.data = r->out[i];
    if (txn_file(t, od, file, write_npy, &o, err, sizeof err) != 0) {
      error_line(1, "output '%s': %s", name, err);
      goto done;
    }
  }
  if (r->record) {
    const kf_tensor_desc *o0 = kf_plan_output_desc(plan, 0);
    snprintf(inst, sizeof inst, "%s", kf_op_name(r->op));
    if (record_stage(t, rd, rbase, r->record, r->record_name ? r->record_name : inst, r->op, r->kv, r->nkv,
                     o0 ? o0->dtype : attrs->T, desc, r->in, r->nin, err, sizeof err) != 0) {
      error_line(1, "--record: %s", err);
      goto done;
    }
  }
  if (txn_commit(t, err, sizeof err) != 0) {
    error_line(1, "%s", err);
    goto done;
  }
  rc = 0;
done:
  txn_free(t);
  return rc;
}

static int cmd_run(int argc, char **argv) {
  run *r = calloc(1, sizeof *r); /* ~64 KiB of paths: keep it off the stack */
  if (!r) return error_line(1, "out of memory");
  kf_attrs attrs;
  kf_tensor_desc desc[MAX_IO];
  const char *out_dir = NULL;
  int verbose = 0, rc;
  char shp[32 * KF_MAX_RANK];
  kf_error err;
  memset(&err, 0, sizeof err);
  kf_plan plan;

  rc = parse_run_args(argc, argv, r, &attrs, &out_dir, &verbose);
  if (rc == 0) rc = load_inputs(r, &attrs, desc);
  if (rc != 0) goto done;

  kf_status st = kf_plan_op(&plan, r->op, &attrs, desc, r->nin, NULL, &err);
  if (st != KF_OK) {
    rc = error_line(1, "%s", kfc_message(st, &err));
    goto done;
  }
  if ((rc = read_inputs(r)) != 0) goto done;
  r->nout = kf_plan_num_outputs(&plan);
  if (r->nout != kf_op_num_outputs(r->op) || r->nout > MAX_IO) {
    rc = error_line(1, "internal: plan has %d outputs, %s has %d", r->nout, kf_op_name(r->op),
                    kf_op_num_outputs(r->op));
    goto done;
  }
  size_t scratch_bytes = kf_plan_scratch_bytes(&plan);
  if (verbose) {
    kf_kernel_info ki;
    if (kf_kernel_info_of(kf_plan_kernel_index(&plan), &ki) == KF_OK)
      fprintf(stderr, "kforge: kernel %s (family %s, isa %s%s)\n", ki.name, ki.family, kf_isa_name(ki.isa),
              ki.generic ? ", generic" : "");
    else
      fprintf(stderr, "kforge: kernel (none)\n");
    {
      static const char *const by[] = { "rule", "wisdom", "measure" };
      char choices[400];
      int src = kf_plan_source(&plan);
      fprintf(stderr, "kforge: plan by %s: %s\n", src >= 0 && src <= 2 ? by[src] : "?",
              kf_plan_choices(&plan, choices, sizeof choices));
    }
    for (int k = 0; k < r->nin; k++)
      fprintf(stderr, "kforge:   input  %-16s %-8s %s\n", kf_op_input_name(r->op, k),
              kf_dtype_name(desc[k].dtype), shape_str(&desc[k], shp, sizeof shp));
    for (int i = 0; i < r->nout; i++) {
      const kf_tensor_desc *d = kf_plan_output_desc(&plan, i);
      if (d)
        fprintf(stderr, "kforge:   output %-16s %-8s %s\n", kf_op_output_name(r->op, i),
                kf_dtype_name(d->dtype), shape_str(d, shp, sizeof shp));
    }
    fprintf(stderr, "kforge:   scratch %zu bytes\n", scratch_bytes);
  }

  /* outputs: dense buffers of the planned shapes (NULL for 0 elements) */
  for (int i = 0; i < r->nout; i++) {
    const kf_tensor_desc *d = kf_plan_output_desc(&plan, i);
    size_t es = d ? kf_dtype_size(d->dtype) : 0, count = 1;
    if (!d || es == 0 || npy_of(d->dtype) == NPY_INVALID || d->rank < 0 || d->rank > KF_MAX_RANK) {
      rc = error_line(1, "internal: bad planned descriptor for output %d", i);
      goto done;
    }
    for (int k = 0; k < d->rank; k++) {
      if (d->dims[k] < 0 || (d->dims[k] && count > SIZE_MAX / es / (size_t)d->dims[k])) {
        rc = error_line(1, "output '%s' is too large", kf_op_output_name(r->op, i));
        goto done;
      }
      count *= (size_t)d->dims[k];
    }
    if (count && !(r->out[i] = malloc(count * es))) {
      rc = error_line(1, "out of memory for output '%s'", kf_op_output_name(r->op, i));
      goto done;
    }
  }
  if (scratch_bytes && !(r->scratch = malloc(scratch_bytes))) {
    rc = error_line(1, "out of memory for %zu bytes of scratch", scratch_bytes);
    goto done;
  }

  const void *inp[MAX_IO];
  for (int k = 0; k < r->nin; k++) inp[k] = r->in[k].data;
  st = kf_execute(&plan, inp, r->out, r->scratch, scratch_bytes, &err);
  if (st != KF_OK) {
    rc = error_line(1, "%s", kfc_message(st, &err));
    goto done;
  }

  /* only now touch the file system */
  rc = write_files(r, &plan, &attrs, desc, out_dir);

done:
  run_free(r);
  free(r);
  return rc < 0 ? 0 : rc;
}

/* Prints a .npy file: a header line, then the values, 8 per line. */
static int cmd_show(int argc, char **argv) {
  npy_array a;
  char err[512];
  int bf16 = 0, i = 2;
  int64_t k, n;
  if (i < argc && strcmp(argv[i], "--bfloat16") == 0) { bf16 = 1; i++; }
  if (i + 1 != argc) return error_line(EXIT_USAGE, "usage: kforge show [--bfloat16] FILE.npy");
  if (npy_read(argv[i], &a, err, sizeof err) != 0) return error_line(1, "%s", err);
  printf("%s dtype=%s shape=(", argv[i], bf16 && a.dtype == NPY_U2 ? "bfloat16" : npy_dtype_descr(a.dtype));
  for (k = 0; k < a.rank; k++) printf(k ? ", %lld" : "%lld", (long long)a.dims[k]);
  printf(a.rank == 1 ? ",)\n" : ")\n");
  n = a.count < 256 ? a.count : 256;
  for (k = 0; k < n; k++) {
    double v = 0;
    switch (a.dtype) {
      case NPY_F2: v = kf_half_to_float(((const uint16_t *)a.data)[k]); break;
      case NPY_F4: v = ((const float *)a.data)[k]; break;
      case NPY_F8: v = ((const double *)a.data)[k]; break;
      case NPY_I4: v = ((const int32_t *)a.data)[k]; break;
      case NPY_U2: v = bf16 ? kf_bfloat16_to_float(((const uint16_t *)a.data)[k]) : ((const uint16_t *)a.data)[k]; break;
      case NPY_U1: v = ((const uint8_t *)a.data)[k]; break;
      default: break;
    }
    printf("%s%.8g", k % 8 ? " " : (k ? "\n  " : "  "), v);
  }
  if (n) printf("\n");
  if (a.count > n) printf("  ... (%lld values)\n", (long long)a.count);
  npy_free(&a);
  return finish_stdout();
}

/* ---- kforge plan: a call's kernel key, without data -------------------- */

/* Prints s as a Lua string literal. */
static void lua_str(const char *s) {
  putchar('"');
  for (; s && *s; s++) {
    if (*s == '"' || *s == '\\') printf("\\%c", *s);
    else if ((unsigned char)*s < 32) printf("\\%03d", (unsigned char)*s);
    else putchar(*s);
  }
  putchar('"');
}

/* Plans one call from argv[first..argc) and prints its line; returns 0, or
   1 with msg and *rule set (the caller prints them). */
static int plan_one(int argc, char **argv, int first, char *msg, size_t msglen, const char **rule) {
  static kfc_call c; /* large; plan_one does not recurse */
  kf_plan plan;
  kf_error err;
  kf_kernel_info key;
  int i;
  if (kfc_call_parse(argc, argv, first, &c, msg, msglen, rule) != 0) return 1;
  kf_op op = c.op;
  memset(&err, 0, sizeof err);
  err.rule = "";
  kf_status st = kf_plan_op(&plan, op, &c.attrs, c.in, c.num_inputs, NULL, &err);
  if (st != KF_OK) {
    snprintf(msg, msglen, "%s", kfc_message(st, &err));
    *rule = err.rule ? err.rule : "";
    return 1;
  }
  if (kf_plan_key(&plan, &key) != KF_OK) {
    snprintf(msg, msglen, "%s: the call computes nothing (an empty output): no kernel key", kf_op_name(op));
    *rule = "plan.empty";
    return 1;
  }
  int ki = kf_plan_kernel_index(&plan);
  kf_kernel_info kernel;
  memset(&kernel, 0, sizeof kernel);
  if (ki >= 0) kf_kernel_info_of(ki, &kernel);
  printf("{ op = ");
  lua_str(kf_op_name(op));
  printf(", family = ");
  lua_str(key.family);
  printf(", axes = {");
  for (i = 0; i < key.num_keys; i++) {
    printf(i ? ", " : " ");
    lua_str(key.key_name[i]);
  }
  printf(" }, key = {");
  for (i = 0; i < key.num_keys; i++) {
    printf(i ? ", [" : " [");
    lua_str(key.key_name[i]);
    printf("] = ");
    lua_str(key.key_value[i]);
  }
  printf(" }, kernel = ");
  lua_str(kernel.name ? kernel.name : "");
  printf(", generic = %s }\n", kernel.generic ? "true" : "false");
  return 0;
}

static void plan_error_line(const char *msg, const char *rule) {
  printf("{ error = ");
  lua_str(msg);
  printf(", rule = ");
  lua_str(rule);
  printf(" }\n");
}

static int cmd_plan(int argc, char **argv) {
  char msg[1024];
  const char *rule;
  if (argc == 3 && strcmp(argv[2], "--batch") == 0) {
    char line[8192];
    int bad = 0;
    while (fgets(line, sizeof line, stdin)) {
      char *args[256];
      int n;
      if (!strchr(line, '\n') && !feof(stdin)) return error_line(1, "plan --batch: a line longer than %zu bytes", sizeof line - 1);
      args[0] = "plan";
      n = 1 + kfc_split(line, args + 1, 255);
      if (n == 1) continue; /* blank line */
      if (plan_one(n, args, 1, msg, sizeof msg, &rule) != 0) {
        plan_error_line(msg, rule);
        bad = 1;
      }
    }
    if (ferror(stdin)) return error_line(1, "plan --batch: cannot read standard input: %s", strerror(errno));
    return finish_stdout() ? 1 : bad;
  }
  if (plan_one(argc, argv, 2, msg, sizeof msg, &rule) != 0)
    return error_line(strcmp(rule, "usage") == 0 ? EXIT_USAGE : 1, "%s", msg);
  return finish_stdout();
}

int main(int argc, char **argv) {
  if (argc < 2) return error_line(EXIT_USAGE, "no command (try 'kforge help')");
  const char *cmd = argv[1];
  if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
    fputs(USAGE, stdout);
    return finish_stdout();
  }
  if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
    printf("kforge %s\n", KF_VERSION);
    return finish_stdout();
  }
  if (strcmp(cmd, "run") == 0) return cmd_run(argc, argv);
  if (strcmp(cmd, "show") == 0) return cmd_show(argc, argv);
  if (strcmp(cmd, "plan") == 0) return cmd_plan(argc, argv);
  if (strcmp(cmd, "tune") == 0) {
    char msg[1024];
    int rc = kf_cli_tune(argc, argv, msg, sizeof msg);
    if (rc) return error_line(rc, "%s", msg);
    return finish_stdout();
  }
  if (strcmp(cmd, "profile") == 0) {
    char msg[1024];
    int rc = kf_cli_profile(argc, argv, msg, sizeof msg);
    if (rc) return error_line(rc, "%s", msg);
    return finish_stdout();
  }
  if (argc > 2) return error_line(EXIT_USAGE, "'%s' takes no arguments", cmd);
  if (strcmp(cmd, "list") == 0) return cmd_list();
  if (strcmp(cmd, "ops") == 0) return cmd_ops();
  return error_line(EXIT_USAGE, "unknown command '%s' (try 'kforge help')", cmd);
}
