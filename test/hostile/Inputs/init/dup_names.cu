// the same parameter name twice, and an unnamed parameter whose argN is taken.
extern "C" void f(float *y, int n, int n, int arg3, int) {}
