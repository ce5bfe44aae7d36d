#include "CKernels.h"

extern const ck_kernels ck_kernels_baseline;
#if defined(__x86_64__)
extern const ck_kernels ck_kernels_avx2;
extern const ck_kernels ck_kernels_avx512;
#endif

const ck_kernels *ck_select(int level) {
#if defined(__x86_64__)
    if (level >= CK_LEVEL_AVX512) return &ck_kernels_avx512;
    if (level >= CK_LEVEL_AVX2) return &ck_kernels_avx2;
#else
    (void)level;
#endif
    return &ck_kernels_baseline;
}

int ck_supported_level(void) {
#if defined(__x86_64__)
    __builtin_cpu_init();
    int avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
    int avx512 = avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                 __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
    return avx512 ? CK_LEVEL_AVX512 : avx2 ? CK_LEVEL_AVX2 : CK_LEVEL_BASELINE;
#else
    return CK_LEVEL_BASELINE;
#endif
}
