// shared_tu.cpp — hands the AST clang just built to libclang in the same
// process, so that the library's libclang-based analysis reads it with no
// second parse and no AST file written and read back (that write was 15-20%
// of a device-only compile: docs/plugin.md, "Cost").
//
// How: libclang's CXTranslationUnit is a small struct whose second field is
// the clang::ASTUnit it reads everything through (the same field in every
// libclang since 3.x; other tools read it the same way). We let libclang make
// a translation unit of an empty in-memory file, then point that field at an
// ASTUnit whose managers are this compile's: its FileManager, SourceManager,
// Preprocessor, TargetInfo and ASTContext. Cursors then name the compiler's
// own declarations. The empty unit's ASTUnit is put back before disposal, and
// ours is never destroyed (it owns nothing; clang frees nothing at exit
// either), so nothing of the compile is freed or changed.
//
// libclang carries its own copy of clang's code, so this is sound only where
// both copies are the same clang: the version strings must be equal (Debian
// builds libclang and libclang-cpp from one source and one configuration),
// and the translation unit cursor libclang then gives must be the compiler's
// own TranslationUnitDecl. Anything else: no sharing, and the plugin falls
// back to writing the AST file (KS_PLUGIN_SHARE=0 forces that, for tests and
// the overhead benchmark).
//
// ASTUnit keeps its managers private and has no setters for them; they are
// reached through explicit instantiation of member pointers (the standard's
// access exemption for explicit instantiations), not through #define hacks.
#include "shared_tu.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Basic/Version.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Frontend/CompilerInstance.h"

#include <clang-c/Index.h>

#include <cstdlib>
#include <cstring>

using namespace clang;

namespace {

// Member pointers to ASTUnit's private members, named by a tag type.
template <typename Tag, typename Tag::type M> struct Expose {
  friend typename Tag::type member(Tag) { return M; }
};
#define KS_EXPOSE(NAME, TYPE, MEMBER)                                                                                  \
  struct NAME {                                                                                                        \
    using type = TYPE ASTUnit::*;                                                                                      \
    friend type member(NAME);                                                                                          \
  };                                                                                                                   \
  template struct Expose<NAME, &ASTUnit::MEMBER>;
KS_EXPOSE(UnitLangOpts, std::shared_ptr<LangOptions>, LangOpts)
KS_EXPOSE(UnitFileMgr, IntrusiveRefCntPtr<FileManager>, FileMgr)
KS_EXPOSE(UnitSourceMgr, IntrusiveRefCntPtr<SourceManager>, SourceMgr)
KS_EXPOSE(UnitTarget, IntrusiveRefCntPtr<TargetInfo>, Target)
KS_EXPOSE(UnitOriginalSourceFile, std::string, OriginalSourceFile)
#undef KS_EXPOSE
struct UnitAddFileLevelDecl {
  using type = void (ASTUnit::*)(Decl *);
  friend type member(UnitAddFileLevelDecl);
};
template struct Expose<UnitAddFileLevelDecl, &ASTUnit::addFileLevelDecl>;

// The leading fields of libclang's CXTranslationUnitImpl
// (clang/tools/libclang/CXTranslationUnit.h): the indexer, then the ASTUnit.
struct TUHead {
  void *CIdx;
  ASTUnit *TheASTUnit;
};

// libclang's file-region lookups (clang_getCursor at an offset) read the
// ASTUnit's per-file declaration lists, which a parse fills as declarations
// reach its consumer: the main file's top-level declarations and, as a parse
// does, the members of its namespaces.
void addFileDecls(ASTUnit &U, DeclContext *DC, SourceManager &SM, FileID Main) {
  auto Add = member(UnitAddFileLevelDecl());
  for (Decl *D : DC->decls()) {
    if (D->getLexicalDeclContext() != DC) continue;
    SourceLocation L = D->getLocation();
    if (L.isInvalid() || SM.getFileID(SM.getFileLoc(L)) != Main) continue;
    (U.*Add)(D);
    if (auto *NS = dyn_cast<NamespaceDecl>(D)) addFileDecls(U, NS, SM, Main);
  }
}

} // namespace

namespace kernelskill {

bool sharedTUPossible(std::string *Why) {
  CXString V = clang_getClangVersion();
  std::string Lib = clang_getCString(V) ? clang_getCString(V) : "";
  clang_disposeString(V);
  std::string Own = getClangFullVersion();
  if (Lib == Own) return true;
  *Why = "libclang is '" + Lib + "', the compiler '" + Own + "'";
  return false;
}

std::unique_ptr<SharedTU> SharedTU::make(CompilerInstance &CI, std::string *Why) {
  if (!sharedTUPossible(Why)) return nullptr;
  std::unique_ptr<SharedTU> S(new SharedTU());
  S->Index = clang_createIndex(0, 0);
  const char *Name = "ks-shared-tu.c";
  const char *Args[] = {"-x", "c", "-nostdinc", "-w"};
  CXUnsavedFile Empty = {Name, "", 0};
  CXTranslationUnit TU = nullptr;
  if (!S->Index ||
      clang_parseTranslationUnit2(S->Index, Name, Args, 4, &Empty, 1, CXTranslationUnit_None, &TU) != CXError_Success ||
      !TU) {
    *Why = "libclang could not make a translation unit";
    return nullptr;
  }
  S->TU = TU;
  auto *Head = reinterpret_cast<TUHead *>(TU);
  CXCursor Before = clang_getTranslationUnitCursor(TU);
  if (!Head->TheASTUnit || Before.data[2] != TU ||
      Before.data[0] != Head->TheASTUnit->getASTContext().getTranslationUnitDecl()) {
    *Why = "libclang's translation unit is not laid out as this plugin expects";
    return nullptr;
  }
  // The ASTUnit of this compile. create() gives it a file and source manager
  // of its own, replaced by the compile's before anything reads them, and
  // points its diagnostics engine at that source manager: so it gets an
  // engine of its own, and the compile's keeps its source manager.
  IntrusiveRefCntPtr<DiagnosticsEngine> Diags(
      new DiagnosticsEngine(new DiagnosticIDs(), new DiagnosticOptions(), new IgnoringDiagConsumer()));
  std::unique_ptr<ASTUnit> U =
      ASTUnit::create(CI.getInvocationPtr(), Diags, CaptureDiagsKind::None, /*UserFilesAreVolatile=*/false);
  if (!U) {
    *Why = "could not make an ASTUnit";
    return nullptr;
  }
  U->setOwnsRemappedFileBuffers(false); // the compile's, if ever destroyed
  (*U).*member(UnitLangOpts()) = std::make_shared<LangOptions>(CI.getLangOpts());
  (*U).*member(UnitFileMgr()) = &CI.getFileManager();
  (*U).*member(UnitSourceMgr()) = &CI.getSourceManager();
  Diags->setSourceManager(&CI.getSourceManager());
  (*U).*member(UnitTarget()) = &CI.getTarget();
  // The translation unit's spelling (libclang names the main file by it):
  // the input as given, as a parse records it.
  const auto &In = CI.getFrontendOpts().Inputs;
  (*U).*member(UnitOriginalSourceFile()) = In.empty() || !In[0].isFile() ? "" : In[0].getFile().str();
  U->setPreprocessor(CI.getPreprocessorPtr());
  U->setASTContext(&CI.getASTContext());
  SourceManager &SM = CI.getSourceManager();
  addFileDecls(*U, CI.getASTContext().getTranslationUnitDecl(), SM, SM.getMainFileID());
  S->Own = Head->TheASTUnit;
  Head->TheASTUnit = U.release(); // never destroyed: see the header comment
  CXCursor After = clang_getTranslationUnitCursor(TU);
  if (After.data[0] != CI.getASTContext().getTranslationUnitDecl()) {
    *Why = "libclang does not read the compile's AST through the shared unit";
    return nullptr; // the destructor puts libclang's own ASTUnit back
  }
  return S;
}

SharedTU::~SharedTU() {
  if (TU && Own) reinterpret_cast<TUHead *>(TU)->TheASTUnit = static_cast<ASTUnit *>(Own);
  if (TU) clang_disposeTranslationUnit(static_cast<CXTranslationUnit>(TU));
  if (Index) clang_disposeIndex(Index);
}

} // namespace kernelskill
