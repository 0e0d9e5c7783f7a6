// Corpus (issue 14): more naive first versions in the style of a training
// framework's development kernels: backward passes, the optimizer step,
// attention pieces (permutes, a causal softmax), CEIL_DIV grids, flat B*T*C
// indexing with reassigned temporaries. The extern "C" entries are the corpus
// tasks' entries (test/corpus/Inputs/*.task.json). Written for this project.
#include <cuda_runtime.h>
#include <math.h>

#define CEIL_DIV(M, N) (((M) + (N) - 1) / (N))
#define GELU_SCALING_FACTOR sqrtf(2.0f / M_PI)

__global__ void gelu_backward_kernel(float* dinp, const float* inp, const float* dout, const int N) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) {
        float x = inp[i];
        float cube = 0.044715f * x * x * x;
        float tanh_arg = GELU_SCALING_FACTOR * (x + cube);
        float tanh_out = tanhf(tanh_arg);
        float coshf_out = coshf(tanh_arg);
        float sech_out = 1.0f / (coshf_out * coshf_out);
        float local_grad = 0.5f * (1.0f + tanh_out) + x * 0.5f * sech_out * GELU_SCALING_FACTOR * (1.0f + 3.0f * 0.044715f * x * x);
        dinp[i] = local_grad * dout[i];
    }
}

// one AdamW step per parameter, moments updated in place
__global__ void adamw_kernel1(float* params_memory, const float* grads_memory, float* m_memory, float* v_memory,
                              long num_parameters, float learning_rate, float beta1, float beta2,
                              float beta1_correction, float beta2_correction, float eps, float weight_decay) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= num_parameters) return;
    m_memory[i] = beta1 * m_memory[i] + (1.0f - beta1) * grads_memory[i];
    v_memory[i] = beta2 * v_memory[i] + (1.0f - beta2) * grads_memory[i] * grads_memory[i];
    float m_hat = m_memory[i] / beta1_correction;
    float v_hat = v_memory[i] / beta2_correction;
    params_memory[i] -= learning_rate * (m_hat / (sqrtf(v_hat) + eps) + weight_decay * params_memory[i]);
}

// scatter the output gradient into the embedding tables
__global__ void encoder_backward_kernel(float* dwte, float* dwpe, const float* dout, const int* inp,
                                        int B, int T, int C) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int N = B * T * C;
    if (idx < N) {
        int bt = idx / C;
        int b = bt / T;
        int t = bt % T;
        int c = idx % C;
        int ix = inp[b * T + t];
        const float* dout_btc = dout + b * T * C + t * C + c;
        float* dwte_ix = dwte + ix * C + c;
        float* dwpe_tc = dwpe + t * C + c;
        atomicAdd(dwte_ix, *dout_btc);
        atomicAdd(dwpe_tc, *dout_btc);
    }
}

// qkv (B, N, 3, NH, d) -> q, k, v (B, NH, N, d)
__global__ void permute_kernel(float* q, float* k, float* v, const float* inp, int B, int N, int NH, int d) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < B * NH * N * d) {
        int b = idx / (NH * N * d);
        int rest = idx % (NH * N * d);
        int nh_ = rest / (N * d);
        rest = rest % (N * d);
        int n = rest / d;
        int d_ = rest % d;
        int inp_idx = (b * N * 3 * NH * d) + (n * 3 * NH * d) + (0 * NH * d) + (nh_ * d) + d_;
        q[idx] = inp[inp_idx];
        k[idx] = inp[inp_idx + NH * d];
        v[idx] = inp[inp_idx + 2 * (NH * d)];
    }
}

// (B, NH, N, d) -> (B, N, NH, d)
__global__ void unpermute_kernel(const float* inp, float* out, int B, int N, int NH, int d) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < B * NH * N * d) {
        int b = idx / (NH * N * d);
        int rest = idx % (NH * N * d);
        int nh_ = rest / (N * d);
        rest = rest % (N * d);
        int n = rest / d;
        int d_ = rest % d;
        int other_idx = (b * NH * N * d) + (n * NH * d) + (nh_ * d) + d_;
        out[other_idx] = inp[idx];
    }
}

// preatt (B, NH, T, T) -> att; causal: row t only sees t2 <= t
__global__ void attention_softmax_kernel1(float* att, const float* preatt, int B, int T, int NH) {
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

// dbias[oc] += sum over (b, t) of dout[b, t, oc]: a thread per output channel
__global__ void matmul_backward_bias_kernel1(float* dbias, const float* dout, int B, int T, int OC) {
    int o = blockIdx.x * blockDim.x + threadIdx.x;
    if (o < OC) {
        double sum = 0.0;
        for (int b = 0; b < B; b++) {
            for (int t = 0; t < T; t++) {
                sum += dout[b * T * OC + t * OC + o];
            }
        }
        dbias[o] += sum;
    }
}

__global__ void crossentropy_softmax_backward_kernel1(float* dlogits, const float* dlosses, const float* probs,
                                                      const int* targets, int B, int T, int V) {
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

// dinp[bt, c] += sum_oc dout[bt, oc] * weight[oc, c]   (NN)
__global__ void matmul_backward_inp_kernel1(float* dinp, const float* dout, const float* weight, int BT, int C, int OC) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int bt = blockIdx.y * blockDim.y + threadIdx.y;
    if (bt < BT && c < C) {
        float sum = 0.0f;
        for (int o = 0; o < OC; o++) {
            sum += dout[bt * OC + o] * weight[o * C + c];
        }
        dinp[bt * C + c] += sum;
    }
}

// dweight[oc, c] += sum_bt dout[bt, oc] * inp[bt, c]   (TN)
__global__ void matmul_backward_weight_kernel1(float* dweight, const float* dout, const float* inp, int BT, int C, int OC) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int oc = blockIdx.y * blockDim.y + threadIdx.y;
    if (oc < OC && c < C) {
        float sum = 0.0f;
        for (int bt = 0; bt < BT; bt++) {
            sum += dout[bt * OC + oc] * inp[bt * C + c];
        }
        dweight[oc * C + c] += sum;
    }
}

void backward(float* dinp, float* dwte, float* dwpe, const float* dout, const int* inp, float* dbias,
              float* dweight, const float* weight, int B, int T, int C, int OC) {
    const int block_size = 256;
    int N = B * T * C;
    gelu_backward_kernel<<<CEIL_DIV(N, block_size), block_size>>>(dinp, dout, dout, N);
    encoder_backward_kernel<<<CEIL_DIV(N, block_size), block_size>>>(dwte, dwpe, dout, inp, B, T, C);
    matmul_backward_bias_kernel1<<<CEIL_DIV(OC, block_size), block_size>>>(dbias, dout, B, T, OC);
    dim3 block(32, 8);
    dim3 grid(CEIL_DIV(C, 32), CEIL_DIV(B * T, 8));
    matmul_backward_inp_kernel1<<<grid, block>>>(dinp, dout, weight, B * T, C, OC);
    dim3 grid_w(CEIL_DIV(C, 32), CEIL_DIV(OC, 8));
    matmul_backward_weight_kernel1<<<grid_w, block>>>(dweight, dout, dinp, B * T, C, OC);
}

extern "C" void corpus_gelu_backward(float* dinp, const float* inp, const float* dout, int N) {
    gelu_backward_kernel<<<CEIL_DIV(N, 256), 256>>>(dinp, inp, dout, N);
}

extern "C" void corpus_adamw(float* params, const float* grads, float* m, float* v, long n, float lr,
                             float beta1, float beta2, float c1, float c2, float eps, float wd) {
    adamw_kernel1<<<CEIL_DIV(n, 512), 512>>>(params, grads, m, v, n, lr, beta1, beta2, c1, c2, eps, wd);
}

extern "C" void corpus_permute(float* q, float* k, float* v, const float* inp, int B, int N, int NH, int d) {
    permute_kernel<<<CEIL_DIV(B * NH * N * d, 256), 256>>>(q, k, v, inp, B, N, NH, d);
}

extern "C" void corpus_attention_softmax(float* att, const float* preatt, int B, int T, int NH) {
    attention_softmax_kernel1<<<CEIL_DIV(B * T * NH, 256), 256>>>(att, preatt, B, T, NH);
}

extern "C" void corpus_bias_backward(float* dbias, const float* dout, int B, int T, int OC) {
    matmul_backward_bias_kernel1<<<CEIL_DIV(OC, 128), 128>>>(dbias, dout, B, T, OC);
}

extern "C" void corpus_crossentropy_backward(float* dlogits, const float* dlosses, const float* probs,
                                             const int* targets, int B, int T, int V) {
    crossentropy_softmax_backward_kernel1<<<CEIL_DIV(B * T * V, 256), 256>>>(dlogits, dlosses, probs, targets, B, T, V);
}

extern "C" void corpus_matmul_backward_weight(float* dweight, const float* dout, const float* inp, int BT, int C, int OC) {
    dim3 block(32, 8);
    dim3 grid(CEIL_DIV(C, 32), CEIL_DIV(OC, 8));
    matmul_backward_weight_kernel1<<<grid, block>>>(dweight, dout, inp, BT, C, OC);
}
