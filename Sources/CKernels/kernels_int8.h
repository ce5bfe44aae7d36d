// The int8 kernels (the engine's int8 compute type), included by kernels_body.h. Levels whose file defines
// CK_X86_INT8 (AVX2, AVX-512) multiply 32 bytes a step with AVX2's byte products; the baseline with plain C.
// Integer sums are exact, so every level gives the same bits; the quantization and the scaling to floats are plain
// C with no contraction, so they do too. Values are at most 127 in magnitude (the quantizers clamp), which keeps the
// paired 16-bit products of `vpmaddubsw` from saturating.

/// 32 int8 values that are one side of several products (`ck_dot32_shared_i8`): loaded, and on x86 their magnitudes
/// made, once for all of them.
#if defined(CK_X86_INT8)
typedef struct { __m256i magnitude, value; } ck_shared32_i8;
CK_INLINE ck_shared32_i8 ck_share32_i8(const int8_t *x) {
    __m256i value = _mm256_loadu_si256((const __m256i *)(const void *)x);
    return (ck_shared32_i8){_mm256_sign_epi8(value, value), value};
}

/// acc plus the products x[i]·w[i] of the 32 shared values x and 32 int8 values w, summed into acc's eight int32
/// lanes: |x| (unsigned) times w with x's sign, in pairs of 16-bit sums of at most 2·127² (no saturation).
CK_INLINE ck_v8i ck_dot32_shared_i8(ck_v8i acc, ck_shared32_i8 x, const int8_t *w) {
    __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)w);
    __m256i pairs = _mm256_maddubs_epi16(x.magnitude, _mm256_sign_epi8(b, x.value));
    return (ck_v8i)_mm256_add_epi32((__m256i)acc, _mm256_madd_epi16(pairs, _mm256_set1_epi16(1)));
}

/// acc plus the products x[i]·w[i] of 32 int8 values, summed into acc's eight int32 lanes.
CK_INLINE ck_v8i ck_dot32_i8(ck_v8i acc, const int8_t *x, const int8_t *w) {
    return ck_dot32_shared_i8(acc, ck_share32_i8(x), w);
}
#else
typedef struct { const int8_t *values; } ck_shared32_i8;
CK_INLINE ck_shared32_i8 ck_share32_i8(const int8_t *x) { return (ck_shared32_i8){x}; }

/// acc plus the products x[i]·w[i] of 32 int8 values, summed into acc's eight int32 lanes.
CK_INLINE ck_v8i ck_dot32_i8(ck_v8i acc, const int8_t *x, const int8_t *w) {
    for (int lane = 0; lane < 8; lane++) {
        int32_t sum = 0;
        for (int i = 4 * lane; i < 4 * lane + 4; i++) sum += (int32_t)x[i] * w[i];
        acc[lane] += sum;
    }
    return acc;
}
CK_INLINE ck_v8i ck_dot32_shared_i8(ck_v8i acc, ck_shared32_i8 x, const int8_t *w) { return ck_dot32_i8(acc, x.values, w); }
#endif

/// The sum of acc's lanes.
CK_INLINE int32_t ck_sum_i32(ck_v8i v) { return v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7]; }

/// x rounded to the nearest integer, ties to even, for |x| < 2²²: adding and subtracting 1.5·2²³ leaves no
/// fraction bits (no contraction or reassociation is allowed here, so every level rounds alike).
CK_INLINE ck_v8 ck_round8(ck_v8 x) { return (x + ck_splat(12582912.0f)) - ck_splat(12582912.0f); }
CK_INLINE float ck_round1(float x) { return (x + 12582912.0f) - 12582912.0f; }

CK_ATTR static void ck_quantize_rows(const float *x, ptrdiff_t rows, ptrdiff_t cols, ptrdiff_t ldx, int8_t *q,
                                     ptrdiff_t ldq, float *steps, int limit, int offset) {
    const ck_v8i magnitude = {0x7fffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff,
                              0x7fffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff};
    for (ptrdiff_t r = 0; r < rows; r++) {
        const float *row = x + r * ldx;
        int8_t *out = q + r * ldq;
        // The largest magnitude (a maximum is exact in any order).
        ck_v8 largest = {0};
        ptrdiff_t i = 0;
        for (; i + 8 <= cols; i += 8) {
            ck_v8 a = (ck_v8)((ck_v8i)ck_load(row + i) & magnitude);
            largest = ck_select_lanes(a > largest, a, largest);
        }
        float amax = 0;
        for (int lane = 0; lane < 8; lane++) amax = largest[lane] > amax ? largest[lane] : amax;
        for (; i < cols; i++) {
            float a = __builtin_fabsf(row[i]);
            amax = a > amax ? a : amax;
        }
        const float top1 = (float)limit;
        float scale = amax > 0 ? top1 / amax : 1.0f;
        steps[r] = 1.0f / scale;
        const ck_v8 top = ck_splat(top1), bottom = ck_splat(-top1), factor = ck_splat(scale);
        const int shift = offset;
        for (i = 0; i + 8 <= cols; i += 8) {
            ck_v8 v = ck_round8(ck_load(row + i) * factor);
            v = ck_select_lanes(v > top, top, v);
            v = ck_select_lanes(v < bottom, bottom, v);
            ck_v8i n = __builtin_convertvector(v, ck_v8i) + shift;
            for (int lane = 0; lane < 8; lane++) out[i + lane] = (int8_t)n[lane];
        }
        for (; i < cols; i++) {
            float v = ck_round1(row[i] * scale);
            v = v > top1 ? top1 : v < -top1 ? -top1 : v;
            out[i] = (int8_t)((int)v + shift);
        }
    }
}

/// Σᵢ x[i]·w[i] for i < k.
CK_INLINE int32_t ck_dot_i8(const int8_t *x, const int8_t *w, ptrdiff_t k) {
    ck_v8i s = {0};
    ptrdiff_t i = 0;
    for (; i + 32 <= k; i += 32) s = ck_dot32_i8(s, x + i, w + i);
    int32_t total = ck_sum_i32(s);
    for (; i < k; i++) total += (int32_t)x[i] * w[i];
    return total;
}

/// One activation row against four weight rows: the row's bytes are loaded (and their magnitudes made) once for four
/// sums.
CK_INLINE void ck_dot1x4_i8(const int8_t *x, const int8_t *w0, const int8_t *w1, const int8_t *w2, const int8_t *w3,
                            ptrdiff_t k, int32_t *out) {
    ck_v8i s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0};
    ptrdiff_t i = 0;
    for (; i + 32 <= k; i += 32) {
        ck_shared32_i8 shared = ck_share32_i8(x + i);
        s0 = ck_dot32_shared_i8(s0, shared, w0 + i);
        s1 = ck_dot32_shared_i8(s1, shared, w1 + i);
        s2 = ck_dot32_shared_i8(s2, shared, w2 + i);
        s3 = ck_dot32_shared_i8(s3, shared, w3 + i);
    }
    int32_t t0 = ck_sum_i32(s0), t1 = ck_sum_i32(s1), t2 = ck_sum_i32(s2), t3 = ck_sum_i32(s3);
    for (; i < k; i++) {
        t0 += (int32_t)x[i] * w0[i]; t1 += (int32_t)x[i] * w1[i];
        t2 += (int32_t)x[i] * w2[i]; t3 += (int32_t)x[i] * w3[i];
    }
    out[0] = t0; out[1] = t1; out[2] = t2; out[3] = t3;
}

/// All m (2…8) activation rows against one weight row: m sums in registers, the weight's bytes loaded (and their
/// magnitudes made: x·w = w·x) once. m is a constant at each call, so the loops over rows unroll.
CK_INLINE void ck_rows_i8(int m, const int8_t *a, ptrdiff_t lda, const int8_t *w, ptrdiff_t k, int32_t *out) {
    ck_v8i s[8];
    for (int r = 0; r < m; r++) s[r] = (ck_v8i){0};
    ptrdiff_t i = 0;
    for (; i + 32 <= k; i += 32) {
        ck_shared32_i8 shared = ck_share32_i8(w + i);
        for (int r = 0; r < m; r++) s[r] = ck_dot32_shared_i8(s[r], shared, a + r * lda + i);
    }
    for (int r = 0; r < m; r++) {
        int32_t total = ck_sum_i32(s[r]);
        for (ptrdiff_t j = i; j < k; j++) total += (int32_t)a[r * lda + j] * w[j];
        out[r] = total;
    }
}

CK_INLINE void ck_store_i8(float *c, ptrdiff_t ldc, int row, ptrdiff_t output, int32_t dot, float a_step, float b_step,
                           float alpha, float beta) {
    ck_store_scaled(c, ldc, row, output, (float)dot * (a_step * b_step), alpha, beta);
}

/// One activation row: four weight rows a pass. Several rows: all of them a pass per weight row.
CK_ATTR static void ck_skinny_i8(ptrdiff_t first, ptrdiff_t last, int m, ptrdiff_t k, const int8_t *a, ptrdiff_t lda,
                                 const float *a_steps, const int8_t *b, ptrdiff_t ldb, const float *b_steps,
                                 const int32_t *b_sums, float *c, ptrdiff_t ldc, float alpha, float beta) {
    (void)b_sums;
    int32_t sums[8];
    if (m == 1) {
        ptrdiff_t o = first;
        for (; o + 4 <= last; o += 4) {
            const int8_t *w = b + o * ldb;
            ck_dot1x4_i8(a, w, w + ldb, w + 2 * ldb, w + 3 * ldb, k, sums);
            for (int j = 0; j < 4; j++) ck_store_i8(c, ldc, 0, o + j, sums[j], a_steps[0], b_steps[o + j], alpha, beta);
        }
        for (; o < last; o++)
            ck_store_i8(c, ldc, 0, o, ck_dot_i8(a, b + o * ldb, k), a_steps[0], b_steps[o], alpha, beta);
        return;
    }
    for (ptrdiff_t o = first; o < last; o++) {
        const int8_t *w = b + o * ldb;
        switch (m) {
        case 2: ck_rows_i8(2, a, lda, w, k, sums); break;
        case 3: ck_rows_i8(3, a, lda, w, k, sums); break;
        case 4: ck_rows_i8(4, a, lda, w, k, sums); break;
        case 5: ck_rows_i8(5, a, lda, w, k, sums); break;
        case 6: ck_rows_i8(6, a, lda, w, k, sums); break;
        case 7: ck_rows_i8(7, a, lda, w, k, sums); break;
        default: ck_rows_i8(8, a, lda, w, k, sums); break;
        }
        for (int r = 0; r < m; r++) ck_store_i8(c, ldc, r, o, sums[r], a_steps[r], b_steps[o], alpha, beta);
    }
}
CK_ATTR static void ck_dequantize_rows(const int32_t *c, ptrdiff_t rows, ptrdiff_t cols, ptrdiff_t ldc,
                                       const float *a_steps, const float *b_steps, const float *bias, float *y,
                                       ptrdiff_t ldy, int accumulate) {
    for (ptrdiff_t r = 0; r < rows; r++) {
        const int32_t *in = c + r * ldc;
        float *out = y + r * ldy;
        float a_step = a_steps[r];
        for (ptrdiff_t o = 0; o < cols; o++) {
            float v = (float)in[o] * (a_step * b_steps[o]);
            if (accumulate) v = out[o] + v;
            if (bias) v = v + bias[o];
            out[o] = v;
        }
    }
}
