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
