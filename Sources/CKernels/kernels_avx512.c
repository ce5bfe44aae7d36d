// The kernels for x86-64 CPUs with AVX-512 (F, BW, VL, DQ), FMA and F16C (Intel Skylake-SP, AMD Zen 4 and later).
// The same eight-lane arithmetic as the AVX2 build, so results are identical; the gain is the 32 vector
// registers, which keep the five-row products free of spills.
#if defined(__x86_64__)
#pragma STDC FP_CONTRACT OFF
#include <immintrin.h>
#include "CKernels.h"

#define CK_ATTR __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,f16c,fma")))
#define CK_TABLE ck_kernels_avx512
#define CK_LEVEL CK_LEVEL_AVX512
#define CK_MADD(s, a, b) ((ck_v8)_mm256_fmadd_ps((a), (b), (s)))
#define CK_LOAD_F16(p) ((ck_v8)_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(p))))
#define CK_F16(h) _cvtsh_ss(h)

#include "kernels_body.h"
#endif
