/* pch.h — the CUDA prefix as a precompiled header, cached on disk.
 *
 * Every CUDA parse begins with the header clang's driver forces in
 * (__clang_cuda_runtime_wrapper.h: the CUDA runtime and most of the C++
 * library), which is most of a parse's time. ks_pch_find builds that prefix
 * once per set of compile options with libclang, saves it as a PCH in a
 * private cache folder, and later parses load it (`-include-pch`) instead of
 * parsing the headers again. The wrapper is guarded, so the driver's own
 * `-include` of it then adds nothing: the parse sees the same declarations
 * in the same order. Internal to the features module. */
#ifndef KS_FEATURES_PCH_H
#define KS_FEATURES_PCH_H

#include <clang-c/Index.h>

/* The PCH for a parse with these arguments (the arguments a main-file parse
 * will get, without any -include-pch): *pzPch is malloc'd, a private link to
 * the entry that stays valid until ks_pch_release (re-parses read it again,
 * whatever other processes do to the cache meanwhile), and *pnSysError is
 * the count of system-header errors clang reported while building it (the
 * PCH does not report them again). *pzPch is NULL, with KS_OK, when there is
 * no usable cache: KS_PCH_CACHE=off, no cache folder, a folder not private
 * to this user, arguments it does not handle (-include, -imacros, an
 * -include-pch of the caller's), or a prefix clang could not save. A stale
 * entry (a header it was built from changed, another clang) is rebuilt. */
int ks_pch_find(CXIndex pIndex, char *const *azArgs, int nArgs, char **pzPch, int *pnSysError);

/* Remove the private link ks_pch_find returned: the parse is gone. */
void ks_pch_release(const char *zPch);

/* Drop an entry that clang refused to load (and the link), so the next
 * parse rebuilds it. */
void ks_pch_forget(const char *zPch);

#endif
