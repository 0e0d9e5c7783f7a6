/* features.c — placeholder while the extractor is written (replaced below). */
#include "features/ast.h"
int ks_features_json(ks_tu *pTu, const ks_features_opts *pOpts, ks_buf *pOut) { (void)pTu; (void)pOpts; return ks_buf_puts(pOut, "{}\n"); }
int ks_features_text(ks_tu *pTu, const ks_features_opts *pOpts, ks_buf *pOut) { (void)pTu; (void)pOpts; return ks_buf_puts(pOut, "\n"); }
