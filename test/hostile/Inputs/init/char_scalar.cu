// u8 scalar: drafted as a dim of 1024 it failed task check (does not fit a u8).
extern "C" void f(float *y, char c, int n) {}
