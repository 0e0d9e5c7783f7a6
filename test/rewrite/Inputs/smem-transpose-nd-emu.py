"""smem-transpose-nd-emu.py CXX ORIG.cu NEW.cu KERNEL IN OUT SIZES: check on the
CPU that smem-transpose's tiled rewrite of an N-D flat-index permutation
(Inputs/smem-transpose-nd.cu) writes exactly what the original writes, bit
for bit. Both kernels are cut out of their files and compiled as C++ with the
CUDA built-ins emulated (cuda_emu.py, a 3-D grid launcher here). The original
runs one thread per element (blocks of 256 over the flat index). The tiled
kernel runs on the grid and block of the rewritten file's launch (the last
launch of KERNEL in NEW.cu, whose arguments must be the kernel's parameter
names), evaluated for each size; then again with gridDim.y and gridDim.z cut
to 1 and 2 so that its tile-row and batch loops run. IN, OUT: the input and
output pointer parameters' names. SIZES: ';'-separated sets of the integer
parameters, e.g. "N=2,C=5,H=3,W=7;N=1,C=33,H=2,W=40". The element count is
the product of the integer parameters. Exit 0 when every run matches the
original and the original wrote every element (a permutation)."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cuda_emu  # noqa: E402

cxx, orig, new, name, pin, pout, sizes = sys.argv[1:8]

# The rewritten launch: KERNEL<<<GRID, BLOCK>>>(ARGS) (the last one in the file).
text = open(new, encoding="utf-8").read()
launches = list(re.finditer(r"\b" + re.escape(name) + r"<<<(.*?)>>>\s*\(([^;]*)\);", text, re.S))
if not launches:
    raise SystemExit("no launch of %s in %s" % (name, new))
cfg, args = launches[-1].group(1), launches[-1].group(2)
parts, depth, cur = [], 0, ""
for ch in cfg:
    if ch == "," and depth == 0:
        parts.append(cur)
        cur = ""
        continue
    depth += {"(": 1, ")": -1}.get(ch, 0)
    cur += ch
parts.append(cur)
grid, block = parts[0], parts[1]

names = sorted({kv.split("=")[0].strip() for s in sizes.split(";") for kv in s.split(",")})
decl = "".join("static long long %s;\n" % n for n in names)
sets = ""
for s in sizes.split(";"):
    kv = dict((a.strip() for a in x.split("=")) for x in s.split(","))
    sets += "  {" + " ".join("%s = %s;" % (n, kv[n]) for n in names) + " bad |= one(\"%s\"); }\n" % s

MAIN = r"""
%(decl)s
static std::vector<float> gin, gout;
static void call_orig() { float *%(pin)s = gin.data(), *%(pout)s = gout.data(); orig_k(%(args)s); }
static void call_new() { float *%(pin)s = gin.data(), *%(pout)s = gout.data(); new_k(%(args)s); }
static int one(const char *zSizes) {
  size_t n = 1;
  %(prod)s
  gin.resize(n);
  for (size_t i = 0; i < n; i++) gin[i] = (float)(i * 7 + 3);
  gout.assign(n, -1.0f);
  launch({(unsigned)((n + 255) / 256), 1, 1}, {256, 1, 1}, call_orig);
  std::vector<float> ref = gout;
  size_t nUnwritten = 0;
  for (size_t i = 0; i < n; i++) nUnwritten += ref[i] == -1.0f;
  dim3 g = %(grid)s, b = %(block)s;
  int bad = nUnwritten != 0;
  for (int cut = 0; cut < 2; cut++) {
    emu_u3 gg = {g.x, g.y, g.z};
    if (cut) { gg.y = 1; if (gg.z > 2) gg.z = 2; }
    gout.assign(n, -1.0f);
    launch(gg, {b.x, b.y, b.z}, call_new);
    size_t nDiff = 0;
    if (memcmp(ref.data(), gout.data(), n * sizeof(float)) != 0)
      for (size_t i = 0; i < n; i++) nDiff += memcmp(&ref[i], &gout[i], sizeof(float)) != 0;
    printf("%(name)s %%s: grid %%u x %%u x %%u, block %%u x %%u: %%zu of %%zu differ from the original (%%zu unwritten by it)\n",
           zSizes, gg.x, gg.y, gg.z, b.x, b.y, nDiff, n, nUnwritten);
    bad |= nDiff != 0;
  }
  return bad;
}
int main() {
  int bad = 0;
%(sets)s  return bad;
}
"""

main = MAIN % {"decl": decl, "pin": pin, "pout": pout, "args": args, "grid": grid, "block": block, "name": name,
               "sets": sets, "prod": " ".join("n *= (size_t)%s;" % x for x in names)}
sys.exit(cuda_emu.run(cxx, cuda_emu.PRELUDE + cuda_emu.kernel(orig, name, "orig_k") + "\n" +
                      cuda_emu.shipped(open(new, encoding="utf-8").read(), "KS_TRANSPOSE_CUH") +
                      cuda_emu.kernel(new, name, "new_k") + "\n" + cuda_emu.DIM3 + cuda_emu.LAUNCH_3D + main))
