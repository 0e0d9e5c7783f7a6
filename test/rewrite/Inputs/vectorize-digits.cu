// Rule vectorize on flat indices split into digits and recombined: b = i / (T * V),
// t = (i / V) % T, v = i % V, then P + b * T * V + t * V (a local pointer) at
// [v], or P[b * T * V + t * V + v]: the element i itself. The ones that are
// not (a shifted or transposed recombination, unsigned digits) and local
// pointers that are re-seated or escape stay as they are.

// In the style of a well-known LLM-training codebase (crossentropy backward).
__global__ void xent_backward(float* dlogits, const float* dlosses, const float* probs, const int* targets, int B,
                              int T, int V) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < B * T * V) {
    int b = i / (T * V);
    int t = (i / V) % T;
    int v = i % V;
    float* dlogits_bt = dlogits + b * T * V + t * V;
    const float* probs_bt = probs + b * T * V + t * V;
    float dloss = dlosses[b * T + t];
    int ix = targets[b * T + t];
    float p = probs_bt[v];
    float indicator = v == ix ? 1.0f : 0.0f;
    dlogits_bt[v] += (p - indicator) * dloss;
  }
}

// The recombination written into the subscript, the digits by nested
// division, a pointer derived from a derived pointer, and a row broadcast
// read through one (row[0]).
__global__ void digits_direct(float* out, const float* in, const float* scale, int B, int T, int V) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= B * T * V) return;
  int v = i % V;
  int t = i / V % T;
  int b = i / V / T;
  const float* row = in + (b * T + t) * V;
  const float* cell = row + v;
  out[b * T * V + t * V + v] = cell[0] * scale[b * T + t] + row[0];
}

// The digits peeled off one temporary reassigned in turn (the model follows
// its values in program order), the row stride a local.
__global__ void digits_peeled(float* out, const float* in, int B, int T, int V) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < B * T * V) {
    int rest = i;
    int v = rest % V;
    rest = rest / V;
    int t = rest % T;
    rest = rest / T;
    int b = rest;
    const int TV = T * V;
    float* o = out + b * TV + t * V;
    o[v] = in[i] * 0.5f + (float)t;
  }
}

// Refused: a store one element over (v + 1 recombines to i + 1).
__global__ void digits_shifted(float* out, const float* in, int B, int T, int V) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < B * T * V) {
    int b = i / (T * V);
    int t = (i / V) % T;
    int v = i % V;
    float* out_bt = out + b * T * V + t * V;
    out_bt[v + 1] = in[i];
  }
}

// Refused: the digits recombined in another order (b and t swapped).
__global__ void digits_transposed(float* out, const float* in, int B, int T, int V) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < B * T * V) {
    int b = i / (T * V);
    int t = (i / V) % T;
    int v = i % V;
    const float* in_tb = in + t * B * V + b * V;
    out[i] = in_tb[v] * 2.0f;
  }
}

// Refused: the derived pointer is re-seated.
__global__ void digits_reseated(float* out, const float* in, int B, int T, int V) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < B * T * V) {
    int b = i / (T * V);
    int t = (i / V) % T;
    int v = i % V;
    const float* in_bt = in + b * T * V;
    in_bt += t * V;
    out[i] = in_bt[v];
  }
}

__device__ void bump(float* p) { p[0] += 1.0f; }

// Refused: the derived pointer escapes into a helper (which writes through it).
__global__ void digits_escaped(float* out, const float* in, int B, int T, int V) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < B * T * V) {
    int b = i / (T * V);
    int t = (i / V) % T;
    int v = i % V;
    float* out_bt = out + b * T * V + t * V;
    out_bt[v] = in[i];
    bump(out_bt);
  }
}

// Refused: unsigned digits (T * V may wrap, with a defined result).
__global__ void digits_unsigned(float* out, const float* in, unsigned B, unsigned T, unsigned V) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < B * T * V) {
    unsigned b = i / (T * V);
    unsigned t = (i / V) % T;
    unsigned v = i % V;
    float* out_bt = out + b * T * V + t * V;
    out_bt[v] = in[i];
  }
}

// Refused: a read through a derived pointer at i itself (not a digit).
__global__ void digits_row_at_i(float* out, const float* in, int B, int T, int V) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < B * T * V) {
    int b = i / (T * V);
    const float* in_b = in + b * T * V;
    out[i] = in_b[i];
  }
}

// Refused: the elements read through a pointer cast to another type.
__global__ void digits_retyped(float* out, const float* in, int B, int T, int V) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < B * T * V) {
    int b = i / (T * V);
    int t = (i / V) % T;
    int v = i % V;
    const int* bits = (const int*)(in + b * T * V + t * V);
    out[i] = (float)bits[v];
  }
}

void run(float* dlogits, const float* dlosses, const float* probs, const int* targets, float* out, const float* in,
         const float* scale, int B, int T, int V) {
  xent_backward<<<(B * T * V + 255) / 256, 256>>>(dlogits, dlosses, probs, targets, B, T, V);
  digits_direct<<<(B * T * V + 255) / 256, 256>>>(out, in, scale, B, T, V);
  digits_peeled<<<(B * T * V + 255) / 256, 256>>>(out, in, B, T, V);
  digits_shifted<<<(B * T * V + 255) / 256, 256>>>(out, in, B, T, V);
  digits_transposed<<<(B * T * V + 255) / 256, 256>>>(out, in, B, T, V);
  digits_reseated<<<(B * T * V + 255) / 256, 256>>>(out, in, B, T, V);
  digits_escaped<<<(B * T * V + 255) / 256, 256>>>(out, in, B, T, V);
  digits_unsigned<<<(B * T * V + 255) / 256, 256>>>(out, in, (unsigned)B, (unsigned)T, (unsigned)V);
  digits_row_at_i<<<(B * T * V + 255) / 256, 256>>>(out, in, B, T, V);
  digits_retyped<<<(B * T * V + 255) / 256, 256>>>(out, in, B, T, V);
}
