// The host build of emu_selftest.cu: the same text as plain C++, run on the
// CPU through gpu/cuda_emu.h (a .cu suffix would make compilers ask for CUDA).
#include "tests/gpu/emu_selftest.cu"
