// Kernel templates that rules reading concrete kernels refuse, taken through
// the engine's copy of the instantiation the file launches (lib/rewrite/
// instcopy.c). Input of test/rewrite/instcopy.test.
#include <cuda_runtime.h>

// a row per thread, in the style of framework code: the float launch comes
// first, so the copy is softmax_t<float>; the double launch stays on the template
template <typename scalar_t>
__global__ void softmax_t(const scalar_t *in, scalar_t *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const scalar_t *x = in + (size_t)r * cols;
  scalar_t mx = x[0];
  for (int c = 1; c < cols; c++) mx = x[c] > mx ? x[c] : mx;
  scalar_t s = scalar_t(0);
  for (int c = 0; c < cols; c++) s += exp(x[c] - mx);
  for (int c = 0; c < cols; c++) out[(size_t)r * cols + c] = exp(x[c] - mx) / s;
}

// a type and a value (T deduced from the arguments, SCALE written)
template <typename T, int SCALE>
__global__ void rowsum_t(const T *in, T *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    T s = 0;
    for (int c = 0; c < cols; c++) s += in[r * cols + c];
    out[r] = s * SCALE;
  }
}

// a type of two words: the copy names it through a typedef
template <typename T>
__global__ void transpose_t(const T *in, T *out, int rows, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols && y < rows) out[x * rows + y] = in[y * cols + x];
}

// refused: launched only from a host template (no one instantiation here)
template <typename T>
__global__ void colsum_h(const T *in, T *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    T s = 0;
    for (int c = 0; c < cols; c++) s += in[r * cols + c];
    out[r] = s;
  }
}
template <typename T>
void launch_colsum_h(const T *in, T *out, int rows, int cols) {
  colsum_h<T><<<(rows + 127) / 128, 128>>>(in, out, rows, cols);
}

// refused: its argument's type is declared after it
template <typename T>
__global__ void rowsum_late(const T *in, T *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    T s = 0;
    for (int c = 0; c < cols; c++) s += in[r * cols + c];
    out[r] = s;
  }
}
struct late {
  float v;
  __device__ late &operator+=(const late &o) { v += o.v; return *this; }
  __device__ late(int z = 0) : v((float)z) {}
};

// refused: the copy's name is the user's own kernel's
template <typename T>
__global__ void rowsum_taken(const T *in, T *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    T s = 0;
    for (int c = 0; c < cols; c++) s += in[r * cols + c];
    out[r] = s;
  }
}
__global__ void rowsum_taken_float(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

// in namespaces (an anonymous one inside a named one), launched by its
// qualified name: the copy stays beside the template, the qualifier at the launch
namespace ops {
namespace {
template <typename T>
__global__ void rowmax_ns(const T *x, T *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    T m = x[(size_t)r * cols];
    for (int c = 1; c < cols; ++c) m = max(m, x[(size_t)r * cols + c]);
    out[r] = m;
  }
}
}  // namespace
}  // namespace ops

void run_all(const float *fi, float *fo, const double *di, double *dout, const unsigned int *ui, unsigned int *uo,
             const late *li, late *lo, int rows, int cols) {
  softmax_t<float><<<(rows + 127) / 128, 128>>>(fi, fo, rows, cols);
  softmax_t<double><<<(rows + 127) / 128, 128>>>(di, dout, rows, cols);
  rowsum_t<float, -2><<<(rows + 255) / 256, 256>>>(fi, fo, rows, cols);
  transpose_t<unsigned int><<<dim3((cols + 31) / 32, (rows + 31) / 32), dim3(32, 32)>>>(ui, uo, rows, cols);
  launch_colsum_h<float>(fi, fo, rows, cols);
  rowsum_late<late><<<(rows + 127) / 128, 128>>>(li, lo, rows, cols);
  ops::rowmax_ns<float><<<(rows + 127) / 128, 128>>>(fi, fo, rows, cols);
  rowsum_taken<float><<<(rows + 127) / 128, 128>>>(fi, fo, rows, cols);
  rowsum_taken_float<<<(rows + 127) / 128, 128>>>(fi, fo, rows);
}
