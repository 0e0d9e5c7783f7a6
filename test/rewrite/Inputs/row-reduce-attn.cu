// Kernels for the row-reduce rule's attention-softmax tests: a thread per
// (b, t, h) row, the row count a product of parameters (B * T * NH) through a
// local or written in the guard, the row's coordinates as digits of the index,
// causal (triangular) rows whose loop bounds depend on the row (`t2 <= t`,
// `t2 < t + 1`), and a last pass that stores element t2 on both sides of an
// if/else. Each kernel has a host launcher (launch_<kernel>) that the CPU
// emulation runs with the rewritten grid. bad_* must be refused.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <math.h>

#define CEIL_DIV(M, N) (((M) + (N) - 1) / (N))

// llm.c's attention_softmax_kernel1 as written there.
__global__ void attn_local(float* att, const float* preatt, int B, int T, int NH) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int total_threads = B * T * NH;
    if (idx < total_threads) {
        int h = idx % NH;
        int t = (idx / NH) % T;
        int b = idx / (NH * T);
        const float* preatt_bth = preatt + b * NH * T * T + h * T * T + t * T;
        float* att_bth = att + b * NH * T * T + h * T * T + t * T;
        float maxval = -10000.0f;
        for (int t2 = 0; t2 <= t; t2++) {
            if (preatt_bth[t2] > maxval) {
                maxval = preatt_bth[t2];
            }
        }
        float expsum = 0.0f;
        for (int t2 = 0; t2 <= t; t2++) {
            float expv = expf(preatt_bth[t2] - maxval);
            expsum += expv;
            att_bth[t2] = expv;
        }
        float expsum_inv = expsum == 0.0f ? 0.0f : 1.0f / expsum;
        for (int t2 = 0; t2 < T; t2++) {
            if (t2 <= t) {
                att_bth[t2] *= expsum_inv;
            } else {
                att_bth[t2] = 0.0f;
            }
        }
    }
}

// The row count written in the guard, bounds `t2 < t + 1`, an early return.
__global__ void attn_inline(float* att, const float* preatt, int B, int T, int NH) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= B * T * NH) return;
    int h = idx % NH;
    int t = (idx / NH) % T;
    int b = idx / (NH * T);
    const float* pr = preatt + (size_t)((b * NH + h) * T + t) * T;
    float* ar = att + (size_t)((b * NH + h) * T + t) * T;
    float m = -INFINITY;
    for (int t2 = 0; t2 < t + 1; t2++) m = fmaxf(m, pr[t2]);
    float s = 0.0f;
    for (int t2 = 0; t2 < t + 1; t2++) {
        ar[t2] = expf(pr[t2] - m);
        s += ar[t2];
    }
    for (int t2 = 0; t2 < T; t2++) {
        if (t2 < t + 1) ar[t2] = ar[t2] / s;
        else ar[t2] = 0.0f;
    }
}

// The row count through two const locals; the launcher passes B as a sum
// (its text must be parenthesized where the grid repeats it).
__global__ void attn_const(float* att, const float* preatt, int B, int T, int NH) {
    int idx = threadIdx.x + blockDim.x * blockIdx.x;
    const int bt = B * T;
    const int rows = bt * NH;
    if (idx < rows) {
        int t = (idx / NH) % T;
        float* ar = att + (size_t)idx * T;
        const float* pr = preatt + (size_t)idx * T;
        float m = pr[0];
        for (int t2 = 1; t2 <= t; t2++) m = pr[t2] > m ? pr[t2] : m;
        double s = 0.0;
        for (int t2 = 0; t2 <= t; t2++) s += exp((double)(pr[t2] - m));
        for (int t2 = 0; t2 < T; t2++) {
            if (t2 > t) {
                ar[t2] = 0.0f;
            } else {
                ar[t2] = (float)(exp((double)(pr[t2] - m)) / s);
            }
        }
    }
}

// A parameter of the row count is written in the kernel.
__global__ void bad_written(float* att, const float* preatt, int B, int T, int NH) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < B * T * NH) {
        int t = (idx / NH) % T;
        T = t + 1;
        float s = 0.0f;
        for (int t2 = 0; t2 < T; t2++) s += preatt[(size_t)idx * T + t2];
        att[idx] = s;
    }
}

// A loop bound that depends on the thread besides its row.
__global__ void bad_thread_bound(float* att, const float* preatt, int B, int T, int NH) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int total = B * T * NH;
    if (idx < total) {
        int t = (idx / NH) % T;
        float s = 0.0f;
        for (int t2 = 0; t2 <= t + (int)(threadIdx.x & 1u); t2++) s += preatt[(size_t)idx * T + t2];
        att[idx] = s;
    }
}

// Launched with an argument of the row count that has a side effect.
__global__ void bad_side_effect(float* att, const float* preatt, int B, int T, int NH) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int total = B * T * NH;
    if (idx < total) {
        int t = (idx / NH) % T;
        float s = 0.0f;
        for (int t2 = 0; t2 <= t; t2++) s += preatt[(size_t)idx * T + t2];
        att[idx] = s;
    }
}

// A `<=` bound of unsigned type: refused (the strided loops compare with bound + 1
// in a signed 64-bit type, exact for signed bounds only).
__global__ void bad_unsigned_le(float* att, const float* preatt, int B, int T, int NH) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int total = B * T * NH;
    if (idx < total) {
        unsigned t = (unsigned)((idx / NH) % T);
        float s = 0.0f;
        for (unsigned t2 = 0; t2 <= t; t2++) s += preatt[(size_t)idx * T + t2];
        att[idx] = s;
    }
}

// Rows of __half whose last pass stores only the causal part (an if without
// else): a pack stores all its 8 registers, the elements the if leaves too, so
// this kernel keeps the element-strided loops (no packs).
__global__ void attn_half_masked(__half* att, const __half* preatt, int B, int T, int NH) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < B * T * NH) {
        int t = (idx / NH) % T;
        const __half* pr = preatt + (size_t)idx * T;
        __half* ar = att + (size_t)idx * T;
        float m = -INFINITY;
        for (int t2 = 0; t2 <= t; t2++) m = fmaxf(m, __half2float(pr[t2]));
        float s = 0.0f;
        for (int t2 = 0; t2 <= t; t2++) s += expf(__half2float(pr[t2]) - m);
        for (int t2 = 0; t2 < T; t2++) {
            if (t2 <= t) ar[t2] = __float2half(expf(__half2float(pr[t2]) - m) / s);
        }
    }
}

void launch_attn_local(float* att, const float* preatt, int B, int T, int NH) {
    attn_local<<<CEIL_DIV(B * T * NH, 256), 256>>>(att, preatt, B, T, NH);
}

void launch_attn_inline(float* att, const float* preatt, int B, int T, int NH) {
    int threads = 128;
    attn_inline<<<CEIL_DIV(B * T * NH, threads), threads>>>(att, preatt, B, T, NH);
}

void launch_attn_const(float* att, const float* preatt, int B, int T, int NH) {
    int b0 = B / 2;
    attn_const<<<CEIL_DIV(B * T * NH, 64), 64>>>(att, preatt, b0 + (B - b0), T, NH);
}

void launch_bad(float* att, const float* preatt, int B, int T, int NH) {
    bad_written<<<CEIL_DIV(B * T * NH, 256), 256>>>(att, preatt, B, T, NH);
    bad_thread_bound<<<CEIL_DIV(B * T * NH, 256), 256>>>(att, preatt, B, T, NH);
    int nh = NH;
    bad_side_effect<<<CEIL_DIV(B * T * nh, 256), 256>>>(att, preatt, B, T, nh++);
    bad_unsigned_le<<<CEIL_DIV(B * T * NH, 256), 256>>>(att, preatt, B, T, NH);
}

void launch_attn_half_masked(__half* att, const __half* preatt, int B, int T, int NH) {
    attn_half_masked<<<CEIL_DIV(B * T * NH, 256), 256>>>(att, preatt, B, T, NH);
}

// The last pass reads the input again over the whole row (t2 < T), past the
// causal passes' t2 <= t: with resident=K those elements are loaded where the
// original reads them (lazily), the others come from the registers.
__global__ void attn_reread(float* att, const float* preatt, int B, int T, int NH) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= B * T * NH) return;
    int h = idx % NH, t = (idx / NH) % T, b = idx / (NH * T);
    const float* pr = preatt + ((size_t)(b * NH + h) * T + t) * T;
    float* ar = att + ((size_t)(b * NH + h) * T + t) * T;
    float m = -1e30f;
    for (int t2 = 0; t2 <= t; t2++) m = fmaxf(m, pr[t2]);
    float s = 0.0f;
    for (int t2 = 0; t2 <= t; t2++) s += expf(pr[t2] - m);
    for (int t2 = 0; t2 < T; t2++) {
        float v = pr[t2];
        ar[t2] = t2 <= t ? expf(v - m) / s : v * 0.5f;
    }
}

void launch_attn_reread(float* att, const float* preatt, int B, int T, int NH) {
    attn_reread<<<CEIL_DIV(B * T * NH, 32), 32>>>(att, preatt, B, T, NH);
}

// The last pass rescales only the causal prefix (t2 <= t) of what the exp pass
// stored over the whole row (t2 < T): with resident=K the exp pass's store must
// still reach memory past the prefix.
__global__ void attn_prefix(float* att, const float* preatt, int B, int T, int NH) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= B * T * NH) return;
    int h = idx % NH, t = (idx / NH) % T, b = idx / (NH * T);
    const float* pr = preatt + ((size_t)(b * NH + h) * T + t) * T;
    float* ar = att + ((size_t)(b * NH + h) * T + t) * T;
    float m = -1e30f;
    for (int t2 = 0; t2 < T; t2++) m = fmaxf(m, pr[t2]);
    float s = 0.0f;
    for (int t2 = 0; t2 < T; t2++) {
        float e = expf(pr[t2] - m);
        ar[t2] = e;
        s += e;
    }
    for (int t2 = 0; t2 <= t; t2++) ar[t2] = ar[t2] / s;
}

void launch_attn_prefix(float* att, const float* preatt, int B, int T, int NH) {
    attn_prefix<<<CEIL_DIV(B * T * NH, 32), 32>>>(att, preatt, B, T, NH);
}
