/* KernelSkill: empty stand-in for a header that CUDA 13 removed.
 * clang 19's __clang_cuda_runtime_wrapper.h still includes it; CUDA 13 has no
 * texture fetch functions to declare, so an empty file is the faithful answer. */
