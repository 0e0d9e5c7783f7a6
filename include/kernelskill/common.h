/* kernelskill/common.h — error codes, the last-error message, growable buffers,
 * file and path helpers shared by every module of libkernelskill.
 *
 * Conventions (all modules):
 *   - functions are named ks_<module>_<verb>; they return KS_OK (0) or a
 *     negative KS_E* code, and set a message retrievable by ks_error_msg();
 *   - variable prefixes tell their kind: z = NUL-terminated string,
 *     n = count or size, p = pointer to an object, a = array, i/j = index,
 *     b = boolean flag, r = double, e = enum value, x = function pointer,
 *     rc = return code;
 *   - option structs begin with an `unsigned version` field and have an
 *     *_INIT macro, so fields can be added without breaking callers. */
#ifndef KERNELSKILL_COMMON_H
#define KERNELSKILL_COMMON_H

#include <stdarg.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KS_VERSION_STRING "0.1.0"

/* Error codes. Negative so that `if (rc < 0)` reads naturally. */
enum {
  KS_OK = 0,
  KS_ERROR = -1,     /* internal error: a bug of ours */
  KS_ENOMEM = -2,    /* out of memory */
  KS_EIO = -3,       /* reading or writing a file failed */
  KS_EINVAL = -4,    /* the input is wrong (bad file contents, bad value) */
  KS_ENOTFOUND = -5, /* a named thing does not exist (file, kernel, skill) */
  KS_EPARSE = -6,    /* the input does not parse (C/CUDA, JSON, a condition) */
  KS_EPRECOND = -7,  /* a rewrite rule's preconditions do not hold */
  KS_ENOCHANGE = -8, /* nothing to do: e.g. a rule already applied */
  KS_EUNAVAIL = -9,  /* the environment lacks something (GPU, tool, library) */
  KS_EUSAGE = -10    /* the command line is wrong */
};

/* Process exit codes of the CLI tools. */
enum { KS_EXIT_OK = 0, KS_EXIT_INPUT = 1, KS_EXIT_ENV = 2 };

/* Set the thread's last error message (printf-style) and return rc. */
int ks_error_set(int rc, const char *zFmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The last error message set on this thread ("" if none). */
const char *ks_error_msg(void);
/* A short name for an error code ("invalid input", ...). */
const char *ks_error_name(int rc);
/* Map a KS_E* code to the CLI exit code convention. */
int ks_error_exit_code(int rc);
void ks_error_clear(void);

/* Growable, always NUL-terminated byte buffer. A zeroed ks_buf is empty.
 * The error is sticky: after a failed allocation the buffer holds nothing,
 * every later append returns that error and does nothing, ks_buf_error()
 * says so and ks_buf_detach() returns NULL. So a run of appends may go
 * unchecked as long as the caller checks once at the end: a truncated text
 * is never handed out. */
typedef struct ks_buf {
  char *z;    /* contents, NUL-terminated once anything was added */
  size_t n;   /* bytes used, not counting the NUL */
  size_t nAlloc;
  int rcErr;  /* the sticky error (KS_ENOMEM...), 0 while all went well */
} ks_buf;

#define KS_BUF_INIT {.z = 0, .n = 0, .nAlloc = 0, .rcErr = 0}

/* 0, or the error that emptied the buffer. */
int ks_buf_error(const ks_buf *p);
/* Test hook: after nOk more buffer allocations, every one fails (this
 * thread); a negative nOk turns the injection off. */
void ks_buf_fault_after(long nOk);

int ks_buf_grow(ks_buf *p, size_t nExtra);
int ks_buf_append(ks_buf *p, const char *z, size_t n);
int ks_buf_puts(ks_buf *p, const char *z);
int ks_buf_printf(ks_buf *p, const char *zFmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
int ks_buf_vprintf(ks_buf *p, const char *zFmt, va_list ap);
/* Append z as a JSON string literal (with quotes, escaped). */
int ks_buf_json_string(ks_buf *p, const char *z);
/* Append a JSON document, pretty-printed, and a newline (the CLI's --json
 * output); the document stays the caller's. */
struct cJSON;
int ks_buf_json(ks_buf *p, const struct cJSON *pDoc);
/* The contents ("" when empty or errored); never NULL. */
const char *ks_buf_cstr(const ks_buf *p);
/* Empty it (the sticky error stays). */
void ks_buf_clear(ks_buf *p);
/* Release it; a freed buffer is a fresh one (no error). */
void ks_buf_free(ks_buf *p);
/* Hand the contents to the caller (who frees them) and reset the buffer;
 * NULL (with the error set) when the buffer is errored. */
char *ks_buf_detach(ks_buf *p);

/* Read a whole file. On success *pzOut is malloc'd and NUL-terminated. Only a
 * regular file of at most 256 MiB is read: a FIFO, a device (/dev/zero) or a
 * folder is KS_EINVAL at once (opened non-blocking, never waited on). */
int ks_file_read(const char *zPath, char **pzOut, size_t *pnOut);
/* The same with the caller's bound: for data files this tool wrote itself
 * (tensor outputs, captured snapshots), whose size the caller knows can be
 * larger than any source or JSON file. */
int ks_file_read_limit(const char *zPath, size_t nMax, char **pzOut, size_t *pnOut);
/* The bound for such data files: large, still never unbounded. */
#define KS_FILE_DATA_MAX ((size_t)64 << 30)
/* KS_OK when zPath is missing or a regular file (or a link to one), so a new
 * file may replace it; KS_EINVAL for a device, FIFO, folder, dangling link. */
int ks_file_check_replaceable(const char *zPath);
/* Write a file atomically: temp file in the same folder, fsync, rename. Only a
 * missing or regular file is replaced (ks_file_check_replaceable). */
int ks_file_write_atomic(const char *zPath, const char *z, size_t n);
int ks_file_exists(const char *zPath);
int ks_dir_exists(const char *zPath);
/* mkdir -p */
int ks_dir_make(const char *zPath);
/* rm -rf (no symlinks followed); a missing folder is not an error. */
int ks_dir_remove_tree(const char *zPath);

/* Do two paths name the same file (device and inode)? 0 when either is missing. */
int ks_file_same(const char *zA, const char *zB);
/* A regular file we may execute? */
int ks_file_is_exec(const char *zPath);
/* A program name resolved on $PATH (a name with '/' is taken as is), skipping
 * any candidate that is the same file as zSkip (a drop-in finding the real
 * tool behind itself); malloc'd, or NULL when there is none. */
char *ks_path_search(const char *zName, const char *zSkip);

/* Folder part of a path ("." if none); malloc'd. */
char *ks_path_dirname(const char *zPath);
/* Join two path parts with one '/'; an absolute zRel is returned as is. */
char *ks_path_join(const char *zDir, const char *zRel);
/* The folder holding the running executable; malloc'd, or NULL. */
char *ks_path_exe_dir(void);
/* The data folder (share/kernelskill): $KS_DATADIR, else next to the
 * executable (../share/kernelskill), else next to the library holding this
 * code (../share/kernelskill: the clang plugin's case), else the configured
 * install prefix. */
int ks_path_datadir(char **pzOut);

/* Move a line:column position (1-based) over the first nOff bytes of z,
 * stopping early at its NUL: a newline starts the next line. Start from 1:1
 * for a position in a whole file. */
void ks_text_advance(const char *z, size_t nOff, int *piLine, int *piCol);
/* Blank C/C++ comments and the contents of string and character literals in
 * place (spaces; newlines, quotes and offsets kept), so that a scan of the
 * rest sees only code. */
void ks_text_blank_code(char *z);

/* A 64-bit FNV-1a hash of n bytes as 16 hex digits: names, not security
 * (store entries, cached headers). */
void ks_text_hash16(const char *z, size_t n, char azOut[17]);

/* strdup that reports KS_ENOMEM through the error channel when it fails. */
char *ks_strdup(const char *z);
/* printf into a new string (malloc'd; NULL when out of memory). */
char *ks_mprintf(const char *zFmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* The same from a va_list (for a function that takes printf arguments). */
char *ks_vmprintf(const char *zFmt, va_list ap);

#ifdef __cplusplus
}
#endif
#endif
