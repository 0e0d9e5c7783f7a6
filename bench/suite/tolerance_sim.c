/* Estimates the fp32 rounding spread of the suite's reductions, to set the atol of
 * tasks whose outputs are sums (docs/suite.md, "Tolerances"). For each case it draws
 * the task's input distribution, sums the same terms in the orders a seed and its
 * optimized versions use (sequential with and without FMA, 8 interleaved partial
 * sums, 32 strided lanes + tree, 4-way split), and reports the standard deviation and
 * maximum of the difference between any order and the sequential-FMA seed order,
 * and of the sequential order against a double-precision sum.
 * Build and run: cc -O2 -ffp-contract=off -o /tmp/tolsim tolerance_sim.c -lm && /tmp/tolsim */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t g_state = 0x9e3779b97f4a7c15ull;

static double uniform01(void)
{
    g_state ^= g_state << 13;
    g_state ^= g_state >> 7;
    g_state ^= g_state << 17;
    return ((g_state >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static float normal01(void)
{
    return (float)(sqrt(-2.0 * log(uniform01())) * cos(6.283185307179586 * uniform01()));
}

/* Terms of one output: products a*b (dot = 1), plain N(0,1) values (dot = 0), or
 * cross-entropy row losses divided by the row count (dot = 2: log(1024 e^0.5) - N(0,1),
 * over 32768 rows, as the seed's atomicAdd(loss, row_loss / rows) adds them),
 * exp(N(0,1)) (dot = 3: the softmax denominator; the output's error is this sum's
 * relative error, so it is checked against rtol alone), or squares of N(0,1)
 * (dot = 4: the variance of layernorm / rmsnorm, which enters as 1/sqrt: half its
 * relative error). */
static void draw(float *a, float *b, int k, int dot)
{
    for (int i = 0; i < k; i++) {
        if (dot == 2) {
            a[i] = (float)((log(1024.0) + 0.5 - normal01()) / k);
            b[i] = 1.0f;
            continue;
        }
        if (dot == 3) {
            a[i] = expf(normal01());
            b[i] = 1.0f;
            continue;
        }
        a[i] = normal01();
        b[i] = dot == 4 ? a[i] : dot ? normal01() : 1.0f;
    }
}

static float seq_fma(const float *a, const float *b, int k)
{
    float s = 0.0f;
    for (int i = 0; i < k; i++)
        s = fmaf(a[i], b[i], s);
    return s;
}

static float seq_nofma(const float *a, const float *b, int k)
{
    float s = 0.0f;
    for (int i = 0; i < k; i++) {
        float p = a[i] * b[i];
        s = s + p;
    }
    return s;
}

static float interleaved8(const float *a, const float *b, int k)
{
    float p[8] = {0};
    for (int i = 0; i < k; i++)
        p[i % 8] = fmaf(a[i], b[i], p[i % 8]);
    return ((p[0] + p[1]) + (p[2] + p[3])) + ((p[4] + p[5]) + (p[6] + p[7]));
}

static float lanes32(const float *a, const float *b, int k)
{
    float p[32] = {0};
    for (int i = 0; i < k; i++)
        p[i % 32] = fmaf(a[i], b[i], p[i % 32]);
    for (int w = 16; w > 0; w /= 2)
        for (int l = 0; l < w; l++)
            p[l] += p[l + w];
    return p[0];
}

static float split4(const float *a, const float *b, int k)
{
    float s = 0.0f;
    int c = (k + 3) / 4;
    for (int j = 0; j < 4; j++) {
        float t = 0.0f;
        for (int i = j * c; i < k && i < (j + 1) * c; i++)
            t = fmaf(a[i], b[i], t);
        s += t;
    }
    return s;
}

static void run_case(const char *name, int k, int dot, int samples, long long outputs,
                     double atol, double rtol)
{
    float *a = malloc(sizeof(float) * k), *b = malloc(sizeof(float) * k);
    float (*orders[])(const float *, const float *, int) = {seq_nofma, interleaved8, lanes32, split4};
    double sum2 = 0, maxd = 0, sum2x = 0, maxx = 0, sumv = 0;
    long long nd = 0, nfail = 0;
    for (int s = 0; s < samples; s++) {
        draw(a, b, k, dot);
        float ref = seq_fma(a, b, k);
        double exact = 0;
        for (int i = 0; i < k; i++)
            exact += (double)a[i] * b[i];
        sumv += exact * exact;
        double dx = ref - exact;
        sum2x += dx * dx;
        if (fabs(dx) > maxx)
            maxx = fabs(dx);
        for (unsigned o = 0; o < sizeof orders / sizeof orders[0]; o++) {
            double d = orders[o](a, b, k) - ref;
            sum2 += d * d;
            nd++;
            if (fabs(d) > maxd)
                maxd = fabs(d);
            /* Would fail half the task's tolerance: the margin we want to keep. */
            if (fabs(d) > 0.5 * (atol + rtol * fabs(ref)))
                nfail++;
        }
    }
    double sd = sqrt(sum2 / nd);
    /* Expected maximum of |N(0, sd)| over the task's outputs. */
    double tail = sd * sqrt(2.0 * log((double)outputs));
    printf("%-16s K=%-5d rms(value)=%8.3g  diff-vs-seed: sd=%.2e max=%.2e  "
           "seed-vs-exact: sd=%.2e max=%.2e  gaussian max over %lld outputs=%.2e  "
           "atol=%g rtol=%g: %lld of %lld diffs over half of it\n",
           name, k, sqrt(sumv / samples), sd, maxd, sqrt(sum2x / samples), maxx, outputs, tail,
           atol, rtol, nfail, nd);
    free(a);
    free(b);
}

int main(void)
{
    /* name, K, terms, samples, outputs of the task, the task's atol and rtol */
    run_case("sgemm", 4096, 1, 40000, 4096LL * 4096, 4e-3, 1e-4);
    run_case("matvec", 4096, 1, 40000, 16384, 4e-3, 1e-4);
    run_case("gemm_bias_relu", 1024, 1, 100000, 8192LL * 4096, 1e-3, 1e-4);
    run_case("conv2d_3x3", 576, 1, 200000, 16LL * 64 * 128 * 128, 1e-3, 1e-4);
    run_case("sum_dim", 512, 0, 200000, 32LL * 4096, 5e-4, 1e-4);
    run_case("cross_entropy", 32768, 2, 2000, 1, 1e-5, 1e-4);
    run_case("softmax_sum", 4096, 3, 20000, 16384, 0, 1e-4);
    run_case("norm_sumsq", 4096, 4, 20000, 16384, 0, 1e-4);
    return 0;
}
