// shared_tu.h — this compile's AST as a libclang translation unit, in the
// same process and without a copy (shared_tu.cpp says how and why it is safe
// to do only under the checks it makes).
#ifndef KS_PLUGIN_SHARED_TU_H
#define KS_PLUGIN_SHARED_TU_H

#include <memory>
#include <string>

namespace clang {
class CompilerInstance;
}

namespace kernelskill {

class SharedTU {
public:
  // A libclang CXTranslationUnit (as void *) whose AST is CI's, or nullptr
  // with *Why saying why it cannot be shared (the caller then writes an AST
  // file). Call after clang built the AST (HandleTranslationUnit).
  static std::unique_ptr<SharedTU> make(clang::CompilerInstance &CI, std::string *Why);
  ~SharedTU();
  void *tu() const { return TU; }

private:
  SharedTU() = default;
  void *Index = nullptr; // CXIndex
  void *TU = nullptr;    // CXTranslationUnit, its own ASTUnit swapped for ours
  void *Own = nullptr;   // the ASTUnit libclang made for it, put back before disposal
};

// Whether sharing can work in this process at all (libclang is the same
// clang as the compiler): checked once, before the compile, so that the AST
// file writer is set up only when it will be needed. *Why when not.
bool sharedTUPossible(std::string *Why);

} // namespace kernelskill

#endif
