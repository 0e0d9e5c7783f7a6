// kernelskill_plugin.cpp — `clang -fplugin=kernelskill.so`: a thin C++17 shim
// between clang 19's plugin API and libkernelskill (include/kernelskill/plugin.h
// holds the logic). Modes, chosen with -fplugin-arg-kernelskill-mode=M:
//   report    remarks at each kernel: a bottleneck guess and the top skills;
//   features  the Feature Extractor's JSON for this compile, to
//             -fplugin-arg-kernelskill-out=F (default stdout);
//   apply     compile the store's verified version of the main file.
// CUDA runs one cc1 pass per device arch and one for the host; report,
// features and notes come from one pass only (ks_plugin_pass_acts), apply
// substitutes in every pass so that host and device see the same source.
// docs/plugin.md is the user documentation.
#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/LangStandard.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "clang/Lex/HeaderSearchOptions.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "clang/Sema/SemaConsumer.h"
#include "clang/Serialization/ASTWriter.h"
#include "clang/Serialization/PCHContainerOperations.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <memory>
#include <string>
#include <vector>

#include "kernelskill/plugin.h"
#include "shared_tu.h"

using namespace clang;

namespace {

enum class Mode { Report, Features, Apply };

// Owned C results, freed on scope exit.
struct CompileHolder {
  ks_plugin_compile *p = nullptr;
  ~CompileHolder() { ks_plugin_compile_free(p); }
};

// Diagnostics of ours. A warning under -Werror would fail the build, and
// nothing of ours may do that: it is then given as a remark.
struct Diag {
  DiagnosticsEngine &D;
  explicit Diag(DiagnosticsEngine &E) : D(E) {}
  void remark(SourceLocation L, const std::string &Msg) {
    D.Report(L, D.getCustomDiagID(DiagnosticsEngine::Remark, "%0")) << Msg;
  }
  void warn(SourceLocation L, const std::string &Msg) {
    if (D.getWarningsAsErrors()) return remark(L, Msg);
    D.Report(L, D.getCustomDiagID(DiagnosticsEngine::Warning, "%0")) << Msg;
  }
};

// The clang arguments that change what the main file means, read back from
// this compile's invocation. The driver's own include paths (resource dir,
// CUDA, C++ library, /usr/include) are left out: libclang adds its own the
// same way. They follow the user's -isystem paths, starting with the resource
// dir's cuda_wrappers, which is where the user's part ends.
std::vector<std::string> compileArgs(const CompilerInstance &CI) {
  std::vector<std::string> Quote, Angled, System, After, Rest;
  const HeaderSearchOptions &HS = CI.getHeaderSearchOpts();
  bool Internal = false;
  for (const auto &E : HS.UserEntries) {
    bool UnderRes = !HS.ResourceDir.empty() && llvm::StringRef(E.Path).starts_with(HS.ResourceDir);
    switch (E.Group) {
    case frontend::Quoted: Quote.push_back("-iquote"); Quote.push_back(E.Path); break;
    case frontend::Angled: Angled.push_back("-I" + E.Path); break;
    case frontend::After: After.push_back("-idirafter"); After.push_back(E.Path); break;
    case frontend::System:
      if (UnderRes) Internal = true;
      if (!Internal) { System.push_back("-isystem"); System.push_back(E.Path); }
      break;
    default: break; // ExternCSystem and the language-specific groups: the driver's
    }
  }
  const PreprocessorOptions &PO = CI.getPreprocessorOpts();
  for (const auto &M : PO.Macros) Rest.push_back((M.second ? "-U" : "-D") + M.first);
  for (const auto &I : PO.Includes)
    if (I != "__clang_cuda_runtime_wrapper.h") { Rest.push_back("-include"); Rest.push_back(I); }
  const LangOptions &LO = CI.getLangOpts();
  if (LO.LangStd != LangStandard::lang_unspecified)
    Rest.push_back(std::string("-std=") + LangStandard::getLangStandardForKind(LO.LangStd).getName());
  std::vector<std::string> All;
  for (auto *V : {&Quote, &Angled, &System, &After, &Rest}) All.insert(All.end(), V->begin(), V->end());
  return All;
}

// Finds the __global__ functions written in the main file (of a preprocessed
// input, .cui under -save-temps: in the original file its line markers name).
class KernelFinder : public RecursiveASTVisitor<KernelFinder> {
public:
  KernelFinder(SourceManager &S, std::string Orig) : SM(S), OrigBase(std::move(Orig)) {}
  std::vector<const FunctionDecl *> Kernels;
  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (!FD->hasAttr<CUDAGlobalAttr>() || !FD->isThisDeclarationADefinition()) return true;
    // __global__ is a macro: take the expansion location, never the spelling.
    SourceLocation L = SM.getExpansionLoc(FD->getLocation());
    if (!SM.isWrittenInMainFile(L)) return true;
    if (!OrigBase.empty()) {
      PresumedLoc PL = SM.getPresumedLoc(L);
      if (PL.isInvalid()) return true;
      llvm::StringRef F = PL.getFilename();
      if ((F.contains('/') ? F.rsplit('/').second : F) != OrigBase) return true;
    }
    Kernels.push_back(FD);
    return true;
  }

private:
  SourceManager &SM;
  std::string OrigBase; // empty: the main file itself
};

// The AST clang just built, serialized with clang's own writer (the PCH
// machinery) to a temp file that libclang deserializes: the fallback where
// the AST cannot be shared in the process (shared_tu.h), or
// KS_PLUGIN_SHARE=0.
class SharedAST {
public:
  explicit SharedAST(CompilerInstance &CI) : Buf(std::make_shared<PCHBuffer>()) {
    Buf->IsComplete = false;
    Gen = std::make_unique<PCHGenerator>(CI.getPreprocessor(), CI.getModuleCache(), "-", "", Buf,
                                         llvm::ArrayRef<std::shared_ptr<ModuleFileExtension>>(),
                                         /*AllowASTWithErrors=*/false, /*IncludeTimestamps=*/false);
  }
  ~SharedAST() {
    if (!Path.empty()) unlink(Path.c_str());
  }
  SemaConsumer &consumer() { return *Gen; }
  // Write the AST file; "" when there is none (errors in the compile: the
  // writer refuses, and the caller parses instead).
  std::string write(ASTContext &Ctx, Preprocessor &PP) {
    // The analysis reads no comments: the headers' doc comments need not go.
    bool Comments = PP.getPreprocessorOpts().WriteCommentListToPCH;
    PP.getPreprocessorOpts().WriteCommentListToPCH = false;
    Gen->HandleTranslationUnit(Ctx);
    PP.getPreprocessorOpts().WriteCommentListToPCH = Comments;
    if (!Buf->IsComplete || Buf->Data.empty()) return "";
    const char *Tmp = getenv("TMPDIR");
    std::string Tpl = std::string(Tmp && *Tmp ? Tmp : "/tmp") + "/ks-plugin-XXXXXX";
    std::vector<char> T(Tpl.begin(), Tpl.end());
    T.push_back(0);
    int Fd = mkstemp(T.data());
    if (Fd < 0) return "";
    Path = T.data();
    const char *P = Buf->Data.data();
    size_t N = Buf->Data.size();
    while (N > 0) {
      ssize_t W = ::write(Fd, P, N);
      if (W <= 0) { close(Fd); return ""; }
      P += W;
      N -= (size_t)W;
    }
    close(Fd);
    Buf->Data.clear();
    return Path;
  }

private:
  std::shared_ptr<PCHBuffer> Buf;
  std::unique_ptr<PCHGenerator> Gen;
  std::string Path;
};

// report and features: run after clang built the AST, on that AST.
class AnalysisConsumer : public SemaConsumer {
public:
  // Share: hand clang's AST to libclang in the process; else write it to a file.
  AnalysisConsumer(CompilerInstance &C, std::shared_ptr<CompileHolder> H, std::vector<std::string> A, Mode Md,
                   std::string O, int Top, std::string Orig, bool Share)
      : CI(C), Hold(std::move(H)), Args(std::move(A)), M(Md), Out(std::move(O)), NTop(Top),
        OrigBase(std::move(Orig)), AST(Share ? nullptr : std::make_unique<SharedAST>(C)) {}

  void Initialize(ASTContext &Ctx) override {
    if (AST) AST->consumer().Initialize(Ctx);
  }
  void InitializeSema(Sema &S) override {
    if (AST) AST->consumer().InitializeSema(S);
  }
  void ForgetSema() override {
    if (AST) AST->consumer().ForgetSema();
  }

  void HandleTranslationUnit(ASTContext &Ctx) override {
    ks_plugin_profile("clang-to-ast");
    atexit([] { ks_plugin_profile("rest-of-clang"); });
    SourceManager &SM = Ctx.getSourceManager();
    Diag Dg(CI.getDiagnostics());
    FileID Main = SM.getMainFileID();
    OptionalFileEntryRef FE = SM.getFileEntryRefForID(Main);
    if (!FE) return;
    std::string Name = std::string(FE->getName());
    llvm::StringRef Text = SM.getBufferData(Main);
    std::vector<const char *> Argv;
    for (const auto &S : Args) Argv.push_back(S.c_str());
    ks_plugin_pass P = KS_PLUGIN_PASS_INIT;
    fillPass(P, Name, Argv, Text);
    // A compile with errors is parsed again, for libclang's diagnostics (the
    // AST writer refuses such an AST anyway).
    int NErr = (int)CI.getDiagnostics().getNumErrors();
    bool Reparse = getenv("KS_PLUGIN_REPARSE") || NErr > 0;
    std::unique_ptr<kernelskill::SharedTU> Shared;
    std::string File, Why;
    if (!Reparse && !AST) {
      Shared = kernelskill::SharedTU::make(CI, &Why);
      ks_plugin_profile(Shared ? "ast-share" : ("ast-share failed (" + Why + "), parsing instead").c_str());
    } else if (!Reparse) {
      File = AST->write(Ctx, CI.getPreprocessor());
      ks_plugin_profile("ast-write");
    }
    std::vector<unsigned> Top;
    std::vector<unsigned char> Tmpl;
    if (Shared || !File.empty()) {
      if (Shared) P.pSharedTu = Shared->tu();
      else P.zAstFile = File.c_str();
      P.nErrors = NErr;
      if (getenv("KS_PLUGIN_WHOLE_TU")) ks_plugin_profile("whole-TU walks (KS_PLUGIN_WHOLE_TU)");
      else if (!topLevel(Ctx, Top, Tmpl)) ks_plugin_profile("whole-TU walks (a declaration spelled here, expanded elsewhere)");
      else {
        P.aTop = Top.data();
        P.aTopTemplate = Tmpl.data();
        P.nTop = (int)Top.size();
      }
    }
    SourceLocation Start = SM.getLocForStartOfFile(Main);
    if (M == Mode::Features) {
      ks_buf B = KS_BUF_INIT;
      if (ks_plugin_features(Hold->p, &P, &B) < 0 || ks_plugin_write_out(Out.c_str(), ks_buf_cstr(&B), B.n) < 0)
        Dg.warn(Start, std::string("kernelskill: features: ") + ks_error_msg());
      ks_buf_free(&B);
      return;
    }
    ks_plugin_report *R = nullptr;
    if (ks_plugin_report_run(Hold->p, &P, NTop, &R) < 0) {
      Dg.warn(Start, std::string("kernelskill: report failed: ") + ks_error_msg());
      return;
    }
    KernelFinder F(SM, OrigBase);
    F.TraverseDecl(Ctx.getTranslationUnitDecl());
    std::vector<bool> Used(F.Kernels.size(), false);
    for (int i = 0; i < R->n; i++) {
      const ks_plugin_advice &A = R->a[i];
      // The kernel's declaration of that name nearest the reported line.
      SourceLocation Loc;
      int Best = -1;
      unsigned BestDist = ~0u;
      for (size_t k = 0; k < F.Kernels.size(); k++) {
        if (Used[k] || F.Kernels[k]->getNameAsString() != A.zKernel) continue;
        SourceLocation L = SM.getExpansionLoc(F.Kernels[k]->getLocation());
        unsigned Line = SM.getExpansionLineNumber(L);
        unsigned Dist = Line > (unsigned)A.iLine ? Line - A.iLine : A.iLine - Line;
        if (Dist < BestDist) { BestDist = Dist; Best = (int)k; Loc = L; }
      }
      if (Best >= 0) Used[Best] = true;
      else if (!OrigBase.empty()) continue; // preprocessed: a header's kernel
      else if (A.iLine > 0) Loc = SM.translateLineCol(Main, (unsigned)A.iLine, 1);
      else continue; // a kernel of a header: not this file's
      for (int m = 0; m < A.nMsg; m++) Dg.remark(Loc, A.azMsg[m]);
    }
    ks_plugin_report_free(R);
    ks_plugin_profile("remarks");
  }

  // The main file's top-level declarations as libclang's walk of the TU
  // cursor offers them (lexically in the TU, not implicit), by the file
  // offset of their location's expansion, in order: the library then
  // analyses only these (and checks each against its own AST). false: one
  // is spelled here but expanded elsewhere, which no offset can name.
  static bool topLevel(ASTContext &Ctx, std::vector<unsigned> &Top, std::vector<unsigned char> &Tmpl) {
    SourceManager &SM = Ctx.getSourceManager();
    FileID Main = SM.getMainFileID();
    TranslationUnitDecl *TU = Ctx.getTranslationUnitDecl();
    for (Decl *D : TU->decls()) {
      if (D->isImplicit() || D->getLexicalDeclContext() != TU) continue;
      SourceLocation L = D->getLocation();
      if (L.isInvalid()) continue;
      SourceLocation E = SM.getExpansionLoc(L);
      if (SM.getFileID(E) == Main) {
        Top.push_back(SM.getFileOffset(E));
        Tmpl.push_back(isa<FunctionTemplateDecl, ClassTemplateDecl, ClassTemplatePartialSpecializationDecl,
                           TypeAliasTemplateDecl>(D));
      }
      else if (L.isMacroID() && SM.getFileID(SM.getSpellingLoc(L)) == Main) return false;
    }
    return true;
  }

  void fillPass(ks_plugin_pass &P, const std::string &Name, const std::vector<const char *> &Argv,
                llvm::StringRef Text) {
    P.zMainFile = Name.c_str();
    P.bDevice = CI.getLangOpts().CUDAIsDevice;
    P.zArch = P.bDevice ? CI.getTargetOpts().CPU.c_str() : nullptr;
    P.azArgs = Argv.data();
    P.nArgs = (int)Argv.size();
    P.zResourceDir = CI.getHeaderSearchOpts().ResourceDir.c_str();
    P.zContents = Text.data();
    P.nContents = Text.size();
  }

private:
  CompilerInstance &CI;
  std::shared_ptr<CompileHolder> Hold;
  std::vector<std::string> Args;
  Mode M;
  std::string Out;
  int NTop;
  std::string OrigBase;
  std::unique_ptr<SharedAST> AST;
};

class KernelSkillAction : public PluginASTAction {
  Mode M = Mode::Report;
  std::string Out = "-";
  int Top = 3;

protected:
  bool ParseArgs(const CompilerInstance &CI, const std::vector<std::string> &Args) override {
    DiagnosticsEngine &D = CI.getDiagnostics();
    unsigned Bad = D.getCustomDiagID(DiagnosticsEngine::Error, "kernelskill plugin: %0");
    for (const std::string &A : Args) {
      llvm::StringRef K = llvm::StringRef(A).split('=').first, V = llvm::StringRef(A).split('=').second;
      if (K == "mode" && V == "report") M = Mode::Report;
      else if (K == "mode" && V == "features") M = Mode::Features;
      else if (K == "mode" && V == "apply") M = Mode::Apply;
      else if (K == "mode") { D.Report(Bad) << ("unknown mode '" + V.str() + "' (report, features, apply)"); return false; }
      else if (K == "out" && !V.empty()) Out = V.str();
      else if (K == "top" && !V.empty() && !V.getAsInteger(10, Top) && Top >= 0) {}
      else {
        D.Report(Bad) << ("unknown argument '" + A + "' (mode=report|features|apply, out=FILE, top=N)");
        return false;
      }
    }
    return true;
  }

  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI, llvm::StringRef) override {
    auto Empty = std::make_unique<ASTConsumer>();
    if (!CI.getLangOpts().CUDA) return Empty; // not a CUDA compile: nothing to do
    SourceManager &SM = CI.getSourceManager();
    Diag Dg(CI.getDiagnostics());
    FileID Main = SM.getMainFileID();
    OptionalFileEntryRef FE = SM.getFileEntryRefForID(Main);
    if (!FE) return Empty; // stdin or a buffer: no file for the store to know
    std::string Name = std::string(FE->getName());
    // A preprocessed input (-save-temps compiles the .cui its -E job wrote):
    // the driver names the original, which -main-file-name gives.
    bool Pre = !CI.getFrontendOpts().Inputs.empty() && CI.getFrontendOpts().Inputs[0].isPreprocessed();
    std::string Orig = Pre ? CI.getCodeGenOpts().MainFileName : "";
    auto Hold = std::make_shared<CompileHolder>();
    if (ks_plugin_compile_find(Pre && !Orig.empty() ? Orig.c_str() : Name.c_str(), &Hold->p) < 0) {
      Dg.warn(SourceLocation(), std::string("kernelskill: ") + ks_error_msg());
      return Empty;
    }
    std::vector<std::string> Args = compileArgs(CI);
    std::vector<const char *> Argv;
    for (const auto &S : Args) Argv.push_back(S.c_str());
    ks_plugin_pass P = KS_PLUGIN_PASS_INIT;
    P.zMainFile = Name.c_str();
    P.bDevice = CI.getLangOpts().CUDAIsDevice;
    P.zArch = P.bDevice ? CI.getTargetOpts().CPU.c_str() : nullptr;
    P.azArgs = Argv.data();
    P.nArgs = (int)Argv.size();
    P.zResourceDir = CI.getHeaderSearchOpts().ResourceDir.c_str();
    bool Acts = ks_plugin_pass_acts(Hold->p, &P);
    SourceLocation Start = SM.getLocForStartOfFile(Main);

    if (M == Mode::Apply) {
      if (Pre) {
        // The -E job that wrote this input runs no plugin (clang gives plugins
        // only to AST jobs), so the preprocessed text is the original's. Say so
        // when there is a verified version, and compile what was preprocessed.
        const char *Path = Hold->p ? Hold->p->zMainPath : nullptr;
        if (!Acts || !Path) return Empty;
        ks_plugin_pass Q = P;
        Q.zMainFile = Path;
        ks_plugin_apply A = {};
        ks_plugin_apply_lookup(Hold->p, &Q, &A);
        if (A.zOptimized)
          Dg.warn(Start, std::string("kernelskill: ") + Path +
                             ": mode=apply cannot substitute under -save-temps (clang preprocesses in a job that runs "
                             "no plugin); compiling the original (drop -save-temps to compile the verified version, "
                             "entry " + A.zEntry + ")");
        ks_plugin_apply_clear(&A);
        return Empty;
      }
      ks_plugin_apply A = {};
      ks_plugin_apply_lookup(Hold->p, &P, &A);
      if (A.zOptimized) {
        // Give the file's entry the verified text and make a fresh main
        // FileID from it (the old one reserved the original's size), before
        // anything is lexed: diagnostics, __FILE__, quoted includes and
        // dependency files still name the original file.
        SM.overrideFileContents(*FE, llvm::MemoryBuffer::getMemBufferCopy(
                                         llvm::StringRef(A.zOptimized, A.nOptimized), Name));
        SM.setMainFileID(SM.createFileID(*FE, SourceLocation(), SrcMgr::C_User));
        if (Acts)
          Dg.remark(SM.getLocForStartOfFile(SM.getMainFileID()),
                    std::string("kernelskill: compiling the verified version from the store (entry ") + A.zEntry + ")");
      }
      if (A.zNote && Acts) {
        std::string Msg = std::string("kernelskill: ") + A.zNote;
        if (A.bWarn) Dg.warn(Start, Msg);
        else Dg.remark(Start, Msg);
      }
      ks_plugin_apply_clear(&A);
      return Empty;
    }
    if (!Acts) return Empty;
    // Share clang's AST with libclang in the process unless it cannot work
    // here (then the AST is written to a file) or KS_PLUGIN_SHARE=0 asks for
    // the file.
    const char *Sh = getenv("KS_PLUGIN_SHARE");
    std::string Why;
    bool Share = !(Sh && !strcmp(Sh, "0")) && kernelskill::sharedTUPossible(&Why);
    if (!Why.empty()) ks_plugin_profile(("ast-share not possible (" + Why + ")").c_str());
    return std::make_unique<AnalysisConsumer>(CI, Hold, std::move(Args), M, Out, Top, Orig, Share);
  }

  // Before the main action, so that apply's buffer is in place before parsing.
  ActionType getActionType() override { return AddBeforeMainAction; }
};

// -E runs no AST job, so no plugin action at all: clang gives plugins only to
// AST jobs. The plugin is still loaded (dlopen) by that cc1 job, so this runs
// then: with mode=apply on an -E compile, for each input the store has a
// verified version of, say once that the preprocessed output is the
// original's. In-process cc1 (clang's default): this process is the driver;
// a spawned cc1 (-fno-integrated-cc1): the pass that acts says it.
std::vector<std::string> readCmdline(const char *Path) {
  std::vector<std::string> V;
  FILE *F = fopen(Path, "rb");
  if (!F) return V;
  std::string Cur;
  int C;
  while ((C = fgetc(F)) != EOF) {
    if (C == 0) { V.push_back(Cur); Cur.clear(); }
    else Cur.push_back((char)C);
  }
  fclose(F);
  return V;
}

struct PreprocessOnlyNote {
  PreprocessOnlyNote() {
    std::vector<std::string> Self = readCmdline("/proc/self/cmdline"), Drv = Self;
    bool Cc1 = Self.size() > 1 && Self[1] == "-cc1";
    if (Cc1) {
      if (std::find(Self.begin(), Self.end(), "-E") == Self.end()) return;
      Drv = readCmdline(("/proc/" + std::to_string((long)getppid()) + "/cmdline").c_str());
    }
    if (std::find(Drv.begin(), Drv.end(), "-E") == Drv.end()) return;
    if (std::find(Drv.begin(), Drv.end(), "-fplugin-arg-kernelskill-mode=apply") == Drv.end()) return;
    std::vector<const char *> Argv;
    for (const auto &S : Drv) Argv.push_back(S.c_str());
    for (const auto &In : Drv) {
      llvm::StringRef R(In);
      if (In.empty() || In[0] == '-' || !(R.ends_with(".cu") || R.ends_with(".cuh"))) continue;
      if (access(In.c_str(), R_OK) != 0) continue;
      ks_plugin_compile *C = nullptr;
      if (ks_plugin_compile_from_argv(Argv.data(), (int)Argv.size(), In.c_str(), &C) < 0 || !C) continue;
      ks_plugin_pass P = KS_PLUGIN_PASS_INIT;
      P.zMainFile = In.c_str();
      std::string Arch;
      if (Cc1) {
        P.bDevice = std::find(Self.begin(), Self.end(), "-fcuda-is-device") != Self.end();
        auto T = std::find(Self.begin(), Self.end(), "-target-cpu");
        if (T != Self.end() && T + 1 != Self.end()) Arch = *(T + 1);
        P.zArch = P.bDevice && !Arch.empty() ? Arch.c_str() : nullptr;
        auto M = std::find(Self.begin(), Self.end(), "-main-file-name");
        bool Mine = M != Self.end() && M + 1 != Self.end() && llvm::StringRef(In).ends_with(*(M + 1));
        if (!Mine || !ks_plugin_pass_acts(C, &P)) { ks_plugin_compile_free(C); continue; }
      }
      ks_plugin_apply A = {};
      ks_plugin_apply_lookup(C, &P, &A);
      if (A.zOptimized)
        fprintf(stderr, "%s: warning: kernelskill: mode=apply cannot substitute under -E (clang gives plugins only to "
                        "compile jobs, not to preprocessing): the preprocessed output is the original's; compile "
                        "without -E to compile the verified version (entry %s)\n", In.c_str(), A.zEntry);
      ks_plugin_apply_clear(&A);
      ks_plugin_compile_free(C);
    }
  }
};
PreprocessOnlyNote TheNote;

} // namespace

static FrontendPluginRegistry::Add<KernelSkillAction> X("kernelskill",
                                                        "KernelSkill: report, features, apply (docs/plugin.md)");
