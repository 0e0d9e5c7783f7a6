// A column walk that accumulates in memory, in the style of a polyhedral suite's CUDA port:
// one thread per column j, y[j] += A[i][j] * x[i] down the rows. No scalar accumulator, so
// the older `reduction` flag is false; the kernel-shape model still calls it a column walk.
#define NY 4096
__global__ void colsum_mem(int nx, float *A, float *y, float *x) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < NY) {
    y[j] = 0;
    int i;
    for (i = 0; i < nx; i++) {
      y[j] += A[i * NY + j] * x[i];
    }
  }
}
void run(int nx, float *A, float *y, float *x) { colsum_mem<<<NY / 256, 256>>>(nx, A, y, x); }
