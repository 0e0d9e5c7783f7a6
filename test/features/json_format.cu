// The JSON document's top level: format version, file, parse facts, arrays.
// RUN: %kernelskill features %s --json | FileCheck %s
// RUN: %kernelskill features %s --json | %python -c "import json,sys; d=json.load(sys.stdin); assert set(d) == {'ks_features','file','parse','diagnostics','kernels','launches'}, d.keys(); print('keys ok')" | FileCheck --check-prefix=KEYS %s
// RUN: %kernelskill features %s | FileCheck --check-prefix=TEXT %s

__global__ void only(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = 0.f;
}
void go(float *p, int n) { only<<<(n + 255) / 256, 256>>>(p, n); }

// CHECK: "ks_features": 1,
// CHECK: "file": "{{.*}}json_format.cu",
// CHECK: "parse": {
// CHECK: "side": "host",
// CHECK: "seconds":
// CHECK: "errors": 0,
// CHECK: "diagnostics": [],
// CHECK: "kernels": [{
// CHECK: "name": "only",
// CHECK: "summary": {
// CHECK: "launches": [{
// CHECK: "kernel": "only",
// CHECK: "text": "only<<<(n + 255) / 256, 256>>>(p, n)"
// KEYS: keys ok
// TEXT: json_format.cu: 1 kernel, 1 launch site
// TEXT: only {{.*}}json_format.cu:6  streaming, pointwise
// TEXT: params: p (float *), n (int)
// TEXT: memory: 0 loads, 1 stores, 0 atomics; 1 contiguous, 0 strided, 0 uniform, 0 indirect
// TEXT: launches:
// TEXT: json_format.cu:10 in go(): only<<<(n + 255) / 256, 256>>>
