#!/usr/bin/env python3
"""vectorize-template-emu.py ORIG REWRITTEN -- CPU emulation check of rule
vectorize on the template kernels of Inputs/vectorize-template.cu. Unlike
vectorize-emu.py, the host code runs too: each `K<...><<<G, B, ...>>>(args)`
of both files becomes a call of the emulated launcher with the grid and block
as written, so the rewritten launches' own grids (ks_lanes<T>() of each
instantiation, a host template's T) are what is checked. The run_* entries of
both files run on the same inputs (__half, float, double instantiations), at
an aligned and a misaligned start, with lengths that leave a tail for every
lane count; every buffer, past its end too, must be bit-identical. __half is
emulated with _Float16: both files see the same emulation."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cuda_emu  # noqa: E402

TYPES = r"""
#define __host__
typedef void *cudaStream_t;
struct float4 { float x, y, z, w; } __attribute__((aligned(16)));
struct float2 { float x, y; } __attribute__((aligned(8)));
struct double2 { double x, y; } __attribute__((aligned(16)));
struct __half {
  _Float16 v;
  __half() = default;
  __half(float f) : v((_Float16)f) {}
  operator float() const { return (float)v; }
};
static __half __float2half(float f) { return __half(f); }
static std::function<void()> emu_body;
static void emu_tramp() { emu_body(); }
static void emu_launch(long long g, long long b, std::function<void()> f) {
  emu_body = f;
  launch({(unsigned)g, 1, 1}, {(unsigned)b, 1, 1}, emu_tramp);
}
"""


def matching(s, i, op, cl):
    """Index of the bracket closing the one at s[i]."""
    d = 0
    for k in range(i, len(s)):
        d += (s[k] == op) - (s[k] == cl)
        if d == 0:
            return k
    raise SystemExit("unbalanced %s in %s" % (op, s[i:i + 60]))


def split_top(s):
    out, d, cur = [], 0, ""
    for ch in s:
        d += (ch in "(<") - (ch in ")>")
        if ch == "," and d == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    return out + [cur]


def host_launches(s):
    """Every `CALLEE<<<G, B, ...>>>(ARGS)` as emu_launch(G, B, [&] { CALLEE(ARGS); })."""
    while "<<<" in s:
        i = s.index("<<<")
        j = s.index(">>>", i)
        cfg = split_top(s[i + 3:j])
        a = j + 3
        while s[a].isspace():
            a += 1
        e = matching(s, a, "(", ")")
        k = i  # the callee: an identifier, perhaps with <template arguments>
        while s[k - 1].isspace():
            k -= 1
        if s[k - 1] == ">":
            d, k = 0, k - 1
            while True:
                d += (s[k] == ">") - (s[k] == "<")
                if d == 0:
                    break
                k -= 1
        while s[k - 1].isalnum() or s[k - 1] == "_":
            k -= 1
        callee = s[k:i].strip()
        s = s[:k] + "emu_launch(%s, %s, [&]() { %s%s; })" % (cfg[0], cfg[1], callee, s[a:e + 1]) + s[e + 1:]
    return s


def program(path, ns):
    s = open(path, encoding="utf-8").read()
    s = "\n".join(l for l in s.splitlines() if not l.startswith("#include"))
    return "namespace %s {\n%s\n}\n" % (ns, host_launches(s))


MAIN = r"""
template <typename T> static void fill(T *p, int m, int seed) {
  for (int i = 0; i < m; i++) p[i] = (T)((float)((i * 37 + seed * 11) % 101) / 17.0f - 2.5f);
}
template <typename T> static int same(const std::vector<T> &a, const std::vector<T> &b, const char *zWhat, int off, int n) {
  if (memcmp(a.data(), b.data(), sizeof(T) * a.size()) == 0) return 1;
  printf("%s differs (off %d, n %d)\n", zWhat, off, n);
  return 0;
}
#define BUFS(T, p) std::vector<T> p##a(M + 16), p##b(M + 16), p##c(M + 16), p##c2(M + 16)
#define FILL(p) fill(p##a.data(), M + 16, 1); fill(p##b.data(), M + 16, 2); fill(p##c.data(), M + 16, 3); fill(p##c2.data(), M + 16, 3)
int main() {
  const int M = 3000;
  int bad = 0;
  for (int off = 0; off < 2; off++)
    for (int n : {M - 7, M - 3, M + 1, M}) {
      BUFS(__half, h); BUFS(float, f); BUFS(double, d);
      FILL(h); FILL(f); FILL(d);
      orig::run_vec_add(ha.data() + off, hb.data() + off, hc.data() + off, fa.data() + off, fb.data() + off, fc.data() + off, n);
      neu::run_vec_add(ha.data() + off, hb.data() + off, hc2.data() + off, fa.data() + off, fb.data() + off, fc2.data() + off, n);
      bad += !same(hc, hc2, "vec_add<__half>", off, n) + !same(fc, fc2, "vec_add<float>", off, n);
      FILL(h); FILL(f); FILL(d);
      orig::run_scale(hc.data() + off, ha.data() + off, fc.data() + off, fa.data() + off, dc.data() + off, da.data() + off, n);
      neu::run_scale(hc2.data() + off, ha.data() + off, fc2.data() + off, fa.data() + off, dc2.data() + off, da.data() + off, n);
      bad += !same(hc, hc2, "scale_t<__half>", off, n) + !same(fc, fc2, "scale_t<float>", off, n) +
             !same(dc, dc2, "scale_t<double>", off, n);
      FILL(h); FILL(d);
      orig::run_axpy_gs(hc.data() + off, ha.data() + off, dc.data() + off, da.data() + off, n);
      neu::run_axpy_gs(hc2.data() + off, ha.data() + off, dc2.data() + off, da.data() + off, n);
      bad += !same(hc, hc2, "axpy_gs<__half>", off, n) + !same(dc, dc2, "axpy_gs<double>", off, n);
      FILL(f);
      orig::run_scale_k(fc.data() + off, fa.data() + off, n);
      neu::run_scale_k(fc2.data() + off, fa.data() + off, n);
      bad += !same(fc, fc2, "scale_k<3>", off, n);
      FILL(f); FILL(d);
      orig::run_mixed(da.data() + off, fc.data() + off, n);
      neu::run_mixed(da.data() + off, fc2.data() + off, n);
      bad += !same(fc, fc2, "mixed_t<double>, cast_tu<double, float>", off, n);
      FILL(f); FILL(d);
      orig::run_relu(fa.data() + off, fc.data() + off, da.data() + off, dc.data() + off, n);
      neu::run_relu(fa.data() + off, fc2.data() + off, da.data() + off, dc2.data() + off, n);
      bad += !same(fc, fc2, "relu_t<float>", off, n) + !same(dc, dc2, "relu_t<double>", off, n);
      FILL(f); FILL(d);
      orig::run_clip(fa.data() + off, fc.data() + off, da.data() + off, dc.data() + off, n);
      neu::run_clip(fa.data() + off, fc2.data() + off, da.data() + off, dc2.data() + off, n);
      bad += !same(fc, fc2, "clip_t<float>", off, n) + !same(dc, dc2, "clip_t<double>", off, n);
    }
  if (bad) return 1;
  printf("vectorize-template: equivalent\n");
  return 0;
}
"""


def main():
    orig, new = sys.argv[1], sys.argv[2]
    src = cuda_emu.PRELUDE + "#include <functional>\n" + cuda_emu.LAUNCH_2D + TYPES
    src += program(orig, "orig") + program(new, "neu") + MAIN
    sys.exit(cuda_emu.run(os.environ.get("CXX", "c++"), src))


if __name__ == "__main__":
    main()
