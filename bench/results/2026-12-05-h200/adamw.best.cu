// Seed for the adamw task: one AdamW step on a flat fp32 parameter, in place, as
// torch.optim.AdamW (decoupled weight decay, bias-corrected moments, eps added after
// the square root). `step` is the step number after increment (1 for the first step).
// One thread per element; the bias corrections are computed once on the host.
#include <cuda_runtime.h>
#include <math.h>

__global__ void adamw_kernel(float *param, const float *grad, float *exp_avg,
                             float *exp_avg_sq, float lr, float beta1, float beta2,
                             float eps, float weight_decay, float step_size,
                             float bias_correction2_sqrt, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float g = grad[i];
    float p = param[i] * (1.0f - lr * weight_decay);
    float m = beta1 * exp_avg[i] + (1.0f - beta1) * g;
    float v = beta2 * exp_avg_sq[i] + (1.0f - beta2) * g * g;
    float denom = sqrtf(v) / bias_correction2_sqrt + eps;
    param[i] = p - step_size * m / denom;
    exp_avg[i] = m;
    exp_avg_sq[i] = v;
}

extern "C" void adamw_step(float *param, const float *grad, float *exp_avg, float *exp_avg_sq,
                           float lr, float beta1, float beta2, float eps, float weight_decay,
                           int step, long long n)
{
    double bias_correction1 = 1.0 - pow((double)beta1, step);
    double bias_correction2 = 1.0 - pow((double)beta2, step);
    float step_size = (float)(lr / bias_correction1);
    float bias_correction2_sqrt = (float)sqrt(bias_correction2);
    int threads = 256;
    long long blocks = (n + threads - 1) / threads;
    adamw_kernel<<<(unsigned)blocks, threads>>>(param, grad, exp_avg, exp_avg_sq, lr, beta1,
                                                beta2, eps, weight_decay, step_size,
                                                bias_correction2_sqrt, n);
}
