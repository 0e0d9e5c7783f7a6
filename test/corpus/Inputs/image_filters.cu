// Corpus (issue 14): image filters in the style of image-processing libraries
// and course material: row pointers at rows clamped to the edge, zero padding
// that skips a tap with ||, a centre read before the clamped neighbours are
// computed. Written for this project.
#include <cuda_runtime.h>

// Vertical + horizontal 3-tap smoothing; rows replicated at the top and bottom.
__global__ void smooth_rows_replicate(const float* __restrict__ src, float* __restrict__ dst, int cols, int rows,
                                      size_t stride)
{
	const int c = blockIdx.x * blockDim.x + threadIdx.x;
	const int r = blockIdx.y * blockDim.y + threadIdx.y;
	if (c >= cols || r >= rows)
		return;
	const float* prev = &src[max(r - 1, 0) * (int)stride];
	const float* curr = &src[r * (int)stride];
	const float* next = &src[min(r + 1, rows - 1) * (int)stride];
	const int cl = max(c - 1, 0);
	const int cr = min(c + 1, cols - 1);
	dst[r * (int)stride + c] = 0.25f * curr[c] + 0.125f * (curr[cl] + curr[cr] + prev[c] + next[c]) +
	                           0.0625f * (prev[cl] + prev[cr] + next[cl] + next[cr]);
}

#define TAPS 5
#define HALF (TAPS / 2)

// A 5x5 mean over the pixels inside the image (zero padding, taps outside skipped).
__global__ void mean5x5_skip(const float* img, float* res, int width, int height)
{
	int px = blockIdx.x * blockDim.x + threadIdx.x;
	int py = blockIdx.y * blockDim.y + threadIdx.y;
	if (px >= width || py >= height)
		return;
	float total = 0.f;
	for (int ky = 0; ky < TAPS; ++ky) {
		for (int kx = 0; kx < TAPS; ++kx) {
			int sx = px + kx - HALF;
			int sy = py + ky - HALF;
			if (sx < 0 || sy < 0 || sx >= width || sy >= height)
				continue;
			total += img[sy * width + sx];
		}
	}
	res[py * width + px] = total * (1.f / (TAPS * TAPS));
}

// Unsharp mask on one row: the centre first, then the clamped neighbours.
__global__ void unsharp_row(const float* in, float* out, int width, int height, float amount)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x >= width || y >= height)
		return;
	float centre = in[y * width + x];
	int left = max(x - 1, 0);
	int right = min(x + 1, width - 1);
	float blur = (in[y * width + left] + centre + in[y * width + right]) * (1.f / 3.f);
	out[y * width + x] = centre + amount * (centre - blur);
}

void run_image_filters(const float* img, float* out, int w, int h)
{
	dim3 block(32, 8), grid((w + 31) / 32, (h + 7) / 8);
	smooth_rows_replicate<<<grid, block>>>(img, out, w, h, (size_t)w);
	mean5x5_skip<<<grid, block>>>(img, out, w, h);
	unsharp_row<<<grid, block>>>(img, out, w, h, 0.5f);
}

// The corpus tasks' entries (smooth_rows.task.json, mean5x5.task.json).
extern "C" void corpus_smooth_rows(const float* img, float* out, int n)
{
	dim3 block(32, 8), grid((n + 31) / 32, (n + 7) / 8);
	smooth_rows_replicate<<<grid, block>>>(img, out, n, n, (size_t)n);
}

extern "C" void corpus_mean5x5(const float* img, float* out, int n)
{
	dim3 block(32, 8), grid((n + 31) / 32, (n + 7) / 8);
	mean5x5_skip<<<grid, block>>>(img, out, n, n);
}
