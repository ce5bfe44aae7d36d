// The kernels for x86-64 CPUs with AVX2, FMA and F16C (Intel Haswell, AMD Zen and later).
#if defined(__x86_64__)
#pragma STDC FP_CONTRACT OFF
#include <immintrin.h>
#include "CKernels.h"

#define CK_ATTR __attribute__((target("avx2,fma,f16c")))
#define CK_TABLE ck_kernels_avx2
#define CK_LEVEL CK_LEVEL_AVX2
#define CK_MADD(s, a, b) ((ck_v8)_mm256_fmadd_ps((a), (b), (s)))
#define CK_LOAD_F16(p) ((ck_v8)_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(p))))
#define CK_F16(h) _cvtsh_ss(h)
#define CK_STORE_F16(p, v) _mm_storeu_si128((__m128i *)(void *)(p), _mm256_cvtps_ph((__m256)(v), _MM_FROUND_TO_NEAREST_INT))
#define CK_TO_F16(x) _cvtss_sh((x), _MM_FROUND_TO_NEAREST_INT)
#define CK_X86_INT8 1

#include "kernels_body.h"
#endif
