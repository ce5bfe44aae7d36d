// The kernels for x86-64 CPUs with AVX-512 (F, BW, VL, DQ), FMA and F16C (Intel Skylake-SP, AMD Zen 4 and later).
// The same eight-lane arithmetic as the AVX2 build, so results are identical; the gain is the 32 vector
// registers, which keep the five-row products free of spills and let the cross-attention kernels take 32 columns
// a block (CK_ATTENTION_VECTORS), and sixteen-lane softmax rows and GELU with the same arithmetic per lane
// (CK_SIXTEEN_LANES).
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
#define CK_STORE_F16(p, v) _mm_storeu_si128((__m128i *)(void *)(p), _mm256_cvtps_ph((__m256)(v), _MM_FROUND_TO_NEAREST_INT))
#define CK_TO_F16(x) _cvtss_sh((x), _MM_FROUND_TO_NEAREST_INT)
#define CK_X86_INT8 1
#define CK_ATTENTION_VECTORS 4
#define CK_SIXTEEN_LANES 1

#include "kernels_body.h"
#endif

#if defined(__x86_64__)
// MARK: - int8 products with AVX-512 VNNI (Intel Cascade Lake, Ice Lake, Sapphire Rapids; AMD Zen 4)

#define CK_VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni")))

/// acc plus Σᵢ x[i]·w[i] over 64 bytes, x unsigned (the activations offset by 128), w signed.
static inline __attribute__((always_inline)) CK_VNNI __m512i ck_vnni_step(__m512i acc, const uint8_t *x, const int8_t *w) {
    return _mm512_dpbusd_epi32(acc, _mm512_loadu_si512((const void *)x), _mm512_loadu_si512((const void *)w));
}

CK_VNNI static int32_t ck_vnni_tail(const uint8_t *x, const int8_t *w, ptrdiff_t from, ptrdiff_t k) {
    int32_t total = 0;
    for (ptrdiff_t i = from; i < k; i++) total += (int32_t)x[i] * w[i];
    return total;
}

CK_VNNI static void ck_vnni_store(float *c, ptrdiff_t ldc, int row, ptrdiff_t o, int32_t sum, const float *a_steps,
                                  const float *b_steps, const int32_t *b_sums, float alpha, float beta) {
    float value = (float)(sum - 128 * b_sums[o]) * (a_steps[row] * b_steps[o]);
    float *target = c + row * ldc + o;
    *target = beta == 0 ? alpha * value : alpha * value + beta * *target;
}

/// The four sums of a, b, c and d's lanes, in that order: three rounds of adds over interleaved lanes instead of four
/// separate reductions (integer sums, so the result is the same whatever the order).
static inline __attribute__((always_inline)) CK_VNNI __m128i ck_vnni_reduce4(__m512i a, __m512i b, __m512i c, __m512i d) {
    __m512i ab = _mm512_add_epi32(_mm512_unpacklo_epi32(a, b), _mm512_unpackhi_epi32(a, b));
    __m512i cd = _mm512_add_epi32(_mm512_unpacklo_epi32(c, d), _mm512_unpackhi_epi32(c, d));
    __m512i abcd = _mm512_add_epi32(_mm512_unpacklo_epi64(ab, cd), _mm512_unpackhi_epi64(ab, cd));
    __m256i half = _mm256_add_epi32(_mm512_castsi512_si256(abcd), _mm512_extracti64x4_epi64(abcd, 1));
    return _mm_add_epi32(_mm256_castsi256_si128(half), _mm256_extracti128_si256(half, 1));
}

/// All m (1…6) activation rows against four weight rows a pass: 4·m sums in registers (of AVX-512's 32), each weight
/// vector loaded once per pass and each activation vector once per four weight rows. m is a constant at each call,
/// so the loops over rows unroll.
static inline __attribute__((always_inline)) CK_VNNI void ck_vnni_rows4(
    int m, ptrdiff_t first, ptrdiff_t last, ptrdiff_t k, const uint8_t *a, ptrdiff_t lda, const float *a_steps,
    const int8_t *b, ptrdiff_t ldb, const float *b_steps, const int32_t *b_sums, float *c, ptrdiff_t ldc, float alpha,
    float beta) {
    ptrdiff_t k64 = k / 64 * 64;
    for (ptrdiff_t o = first; o < last; o += 4) {
        int count = last - o < 4 ? (int)(last - o) : 4;
        const int8_t *w[4];
        for (int j = 0; j < 4; j++) w[j] = b + (o + (j < count ? j : count - 1)) * ldb;
        __m512i s[6][4];
        for (int r = 0; r < m; r++)
            for (int j = 0; j < 4; j++) s[r][j] = _mm512_setzero_si512();
        for (ptrdiff_t i = 0; i < k64; i += 64) {
            __m512i u[4];
            for (int j = 0; j < 4; j++) u[j] = _mm512_loadu_si512((const void *)(w[j] + i));
            for (int r = 0; r < m; r++) {
                __m512i y = _mm512_loadu_si512((const void *)(a + r * lda + i));
                for (int j = 0; j < 4; j++) s[r][j] = _mm512_dpbusd_epi32(s[r][j], y, u[j]);
            }
        }
        for (int r = 0; r < m; r++) {
            const uint8_t *x = a + r * lda;
            int32_t sums[4];
            _mm_storeu_si128((__m128i *)(void *)sums, ck_vnni_reduce4(s[r][0], s[r][1], s[r][2], s[r][3]));
            for (int j = 0; j < count; j++)
                ck_vnni_store(c, ldc, r, o + j, sums[j] + ck_vnni_tail(x, w[j], k64, k), a_steps, b_steps, b_sums,
                              alpha, beta);
        }
    }
}

/// All m (7 or 8) activation rows against two weight rows a pass: 2·m sums in registers, each weight vector loaded
/// once per pass. m is a constant at each call, so the loops over rows unroll.
static inline __attribute__((always_inline)) CK_VNNI void ck_vnni_rows(
    int m, ptrdiff_t first, ptrdiff_t last, ptrdiff_t k, const uint8_t *a, ptrdiff_t lda, const float *a_steps,
    const int8_t *b, ptrdiff_t ldb, const float *b_steps, const int32_t *b_sums, float *c, ptrdiff_t ldc, float alpha,
    float beta) {
    ptrdiff_t k64 = k / 64 * 64;
    for (ptrdiff_t o = first; o < last; o += 2) {
        int pair = o + 1 < last;
        const int8_t *w0 = b + o * ldb;
        const int8_t *w1 = pair ? w0 + ldb : w0;
        __m512i s[8], t[8];
        for (int r = 0; r < m; r++) s[r] = t[r] = _mm512_setzero_si512();
        for (ptrdiff_t i = 0; i < k64; i += 64) {
            __m512i u = _mm512_loadu_si512((const void *)(w0 + i)), v = _mm512_loadu_si512((const void *)(w1 + i));
            for (int r = 0; r < m; r++) {
                __m512i y = _mm512_loadu_si512((const void *)(a + r * lda + i));
                s[r] = _mm512_dpbusd_epi32(s[r], y, u);
                t[r] = _mm512_dpbusd_epi32(t[r], y, v);
            }
        }
        for (int r = 0; r < m; r++) {
            const uint8_t *x = a + r * lda;
            ck_vnni_store(c, ldc, r, o, _mm512_reduce_add_epi32(s[r]) + ck_vnni_tail(x, w0, k64, k), a_steps, b_steps,
                          b_sums, alpha, beta);
            if (pair)
                ck_vnni_store(c, ldc, r, o + 1, _mm512_reduce_add_epi32(t[r]) + ck_vnni_tail(x, w1, k64, k), a_steps,
                              b_steps, b_sums, alpha, beta);
        }
    }
}

CK_VNNI void ck_skinny_i8_vnni(ptrdiff_t first, ptrdiff_t last, int m, ptrdiff_t k, const uint8_t *a, ptrdiff_t lda,
                               const float *a_steps, const int8_t *b, ptrdiff_t ldb, const float *b_steps,
                               const int32_t *b_sums, float *c, ptrdiff_t ldc, float alpha, float beta) {
    switch (m) {
    case 1: ck_vnni_rows4(1, first, last, k, a, lda, a_steps, b, ldb, b_steps, b_sums, c, ldc, alpha, beta); break;
    case 2: ck_vnni_rows4(2, first, last, k, a, lda, a_steps, b, ldb, b_steps, b_sums, c, ldc, alpha, beta); break;
    case 3: ck_vnni_rows4(3, first, last, k, a, lda, a_steps, b, ldb, b_steps, b_sums, c, ldc, alpha, beta); break;
    case 4: ck_vnni_rows4(4, first, last, k, a, lda, a_steps, b, ldb, b_steps, b_sums, c, ldc, alpha, beta); break;
    case 5: ck_vnni_rows4(5, first, last, k, a, lda, a_steps, b, ldb, b_steps, b_sums, c, ldc, alpha, beta); break;
    case 6: ck_vnni_rows4(6, first, last, k, a, lda, a_steps, b, ldb, b_steps, b_sums, c, ldc, alpha, beta); break;
    case 7: ck_vnni_rows(7, first, last, k, a, lda, a_steps, b, ldb, b_steps, b_sums, c, ldc, alpha, beta); break;
    default: ck_vnni_rows(8, first, last, k, a, lda, a_steps, b, ldb, b_steps, b_sums, c, ldc, alpha, beta); break;
    }
}
#endif

#if defined(__x86_64__)
// MARK: - The encoder's self-attention in int8 (CPUs with AVX-512 VNNI, beside oneDNN's u8·s8 products)

CK_ATTR void ck_softmax_to_u8(const int32_t *sums, ptrdiff_t rows, ptrdiff_t cols, ptrdiff_t lds, const float *row_steps,
                              const float *col_steps, float scale, float *scratch, uint8_t *weights, ptrdiff_t ldw,
                              float *weight_steps) {
    for (ptrdiff_t r = 0; r < rows; r++) {
        const int32_t *in = sums + r * lds;
        uint8_t *out = weights + r * ldw;
        // The scores without the row's step, which is positive and so keeps their order: x[j] = sums[j] · col_steps[j].
        __m512 largest = _mm512_set1_ps(-INFINITY);
        ptrdiff_t j = 0;
        for (; j + 16 <= cols; j += 16) {
            __m512 x = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_loadu_si512((const void *)(in + j))),
                                     _mm512_loadu_ps(col_steps + j));
            _mm512_storeu_ps(scratch + j, x);
            largest = _mm512_max_ps(largest, x);
        }
        float top = _mm512_reduce_max_ps(largest);
        for (; j < cols; j++) {
            scratch[j] = (float)in[j] * col_steps[j];
            top = scratch[j] > top ? scratch[j] : top;
        }
        // e[j] = exp((x[j] − max) · step · scale) ≤ 1, stored as round(255 · e[j]); the row's step is 1 / (255 · Σ e).
        const float factor = row_steps[r] * scale;
        const __m512 shift = _mm512_set1_ps(top), times = _mm512_set1_ps(factor), levels = _mm512_set1_ps(255.0f);
        __m512 total = _mm512_setzero_ps();
        for (j = 0; j + 16 <= cols; j += 16) {
            __m512 x = _mm512_mul_ps(_mm512_sub_ps(_mm512_loadu_ps(scratch + j), shift), times);
            ck_v16 e16 = ck_exp16((ck_v16)x);
            __m512 e = (__m512)e16;
            total = _mm512_add_ps(total, e);
            __m512i q = _mm512_cvtps_epi32(_mm512_mul_ps(e, levels));
            _mm_storeu_si128((__m128i *)(void *)(out + j), _mm512_cvtusepi32_epi8(q));
        }
        float sum = _mm512_reduce_add_ps(total);
        for (; j < cols; j++) {
            float e = expf((scratch[j] - top) * factor);
            sum += e;
            out[j] = (uint8_t)lrintf(e * 255.0f);
        }
        weight_steps[r] = 1.0f / (255.0f * sum);
    }
}

CK_ATTR void ck_quantize_columns(const float *x, ptrdiff_t rows, ptrdiff_t cols, ptrdiff_t ldx, int8_t *q,
                                 ptrdiff_t ldq, float *steps) {
    for (ptrdiff_t c = 0; c < cols; c++) steps[c] = 0;
    for (ptrdiff_t r = 0; r < rows; r++)
        for (ptrdiff_t c = 0; c < cols; c++) {
            float a = __builtin_fabsf(x[r * ldx + c]);
            steps[c] = a > steps[c] ? a : steps[c];
        }
    // steps[c] holds the column's largest magnitude until here; factor = 127 / it (1 for a zero column).
    float factors[cols];
    for (ptrdiff_t c = 0; c < cols; c++) {
        factors[c] = steps[c] > 0 ? 127.0f / steps[c] : 1.0f;
        steps[c] = 1.0f / factors[c];
    }
    for (ptrdiff_t r = 0; r < rows; r++)
        for (ptrdiff_t c = 0; c < cols; c++) {
            float v = rintf(x[r * ldx + c] * factors[c]);
            v = v > 127.0f ? 127.0f : (v < -127.0f ? -127.0f : v);
            q[r * ldq + c] = (int8_t)v;
        }
}
#endif
