// The kernels, written once and built once per CPU level: a level's file defines
//   CK_ATTR              attributes of every function here (the level's `target`),
//   CK_TABLE             the name of the level's table, CK_LEVEL its CK_LEVEL_… value,
//   CK_MADD(s, a, b)     s + a·b on eight lanes, fused where the level has FMA,
//   CK_LOAD_F16(p)       eight float16 values (bits) from p as floats, CK_F16(h) one,
//   CK_STORE_F16(p, v)   eight floats to p as float16 bits (nearest, ties to even), CK_TO_F16(x) one,
// and then includes this file. The arithmetic follows the Swift SIMD8 kernels these replaced, in the same order:
// eight-lane partial sums added lane 0 to 7, fused multiply-adds exactly where those used `addProduct`, and no
// other contraction (the including files turn FP_CONTRACT off).

#include <math.h>
#include <string.h>

typedef float ck_v8 __attribute__((vector_size(32)));
typedef int32_t ck_v8i __attribute__((vector_size(32)));

#define CK_INLINE static inline __attribute__((always_inline)) CK_ATTR

CK_INLINE ck_v8 ck_load(const float *p) {
    ck_v8 v;
    memcpy(&v, p, sizeof v);
    return v;
}

CK_INLINE void ck_store(float *p, ck_v8 v) { memcpy(p, &v, sizeof v); }

CK_INLINE ck_v8 ck_splat(float x) { return (ck_v8){x, x, x, x, x, x, x, x}; }

/// Lane 0 + lane 1 + … + lane 7, left to right (Swift's SIMD `sum()`).
CK_INLINE float ck_sum(ck_v8 v) { return v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7]; }

/// Lanes of `yes` where mask is set (all ones), else of `no`.
CK_INLINE ck_v8 ck_select_lanes(ck_v8i mask, ck_v8 yes, ck_v8 no) {
    return (ck_v8)((mask & (ck_v8i)yes) | (~mask & (ck_v8i)no));
}

// MARK: - Products of a few rows against weights stored [out, in]

CK_INLINE ck_v8 ck_load8_f32(const float *p) { return ck_load(p); }
CK_INLINE float ck_f32(const float *p, ptrdiff_t i) { return p[i]; }
CK_INLINE ck_v8 ck_load8_f16(const uint16_t *p) { return CK_LOAD_F16(p); }
CK_INLINE float ck_f16(const uint16_t *p, ptrdiff_t i) { return CK_F16(p[i]); }

CK_INLINE void ck_store_scaled(float *c, ptrdiff_t ldc, int row, ptrdiff_t output, float value, float alpha, float beta) {
    float *target = c + row * ldc + output;
    *target = beta == 0 ? alpha * value : alpha * value + beta * *target;
}

// One weight type's dot kernels and block loop; W is the element type, LOAD8/ONE read it as floats.
#define CK_SKINNY(NAME, W, LOAD8, ONE)                                                                                 \
    /* Five rows against two weight rows: ten sums, two weight vectors and one row vector in registers. */           \
    CK_INLINE void NAME##_dot5x2(const W *w0, const W *w1, const float *x, ptrdiff_t lda, ptrdiff_t k, float *first,  \
                                 float *second) {                                                                      \
        const float *x0 = x, *x1 = x + lda, *x2 = x + 2 * lda, *x3 = x + 3 * lda, *x4 = x + 4 * lda;                  \
        ck_v8 a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0}, a4 = {0}, b0 = {0}, b1 = {0}, b2 = {0}, b3 = {0}, b4 = {0};     \
        ptrdiff_t i = 0;                                                                                               \
        for (; i + 8 <= k; i += 8) {                                                                                   \
            ck_v8 u = LOAD8(w0 + i), v = LOAD8(w1 + i);                                                                \
            ck_v8 y = ck_load(x0 + i);                                                                                 \
            a0 = CK_MADD(a0, u, y); b0 = CK_MADD(b0, v, y);                                                            \
            y = ck_load(x1 + i);                                                                                       \
            a1 = CK_MADD(a1, u, y); b1 = CK_MADD(b1, v, y);                                                            \
            y = ck_load(x2 + i);                                                                                       \
            a2 = CK_MADD(a2, u, y); b2 = CK_MADD(b2, v, y);                                                            \
            y = ck_load(x3 + i);                                                                                       \
            a3 = CK_MADD(a3, u, y); b3 = CK_MADD(b3, v, y);                                                            \
            y = ck_load(x4 + i);                                                                                       \
            a4 = CK_MADD(a4, u, y); b4 = CK_MADD(b4, v, y);                                                            \
        }                                                                                                              \
        float f[5] = {ck_sum(a0), ck_sum(a1), ck_sum(a2), ck_sum(a3), ck_sum(a4)};                                     \
        float s[5] = {ck_sum(b0), ck_sum(b1), ck_sum(b2), ck_sum(b3), ck_sum(b4)};                                     \
        for (; i < k; i++) {                                                                                           \
            float u = ONE(w0, i), v = ONE(w1, i);                                                                      \
            f[0] += u * x0[i]; f[1] += u * x1[i]; f[2] += u * x2[i]; f[3] += u * x3[i]; f[4] += u * x4[i];             \
            s[0] += v * x0[i]; s[1] += v * x1[i]; s[2] += v * x2[i]; s[3] += v * x3[i]; s[4] += v * x4[i];             \
        }                                                                                                              \
        memcpy(first, f, sizeof f);                                                                                    \
        memcpy(second, s, sizeof s);                                                                                   \
    }                                                                                                                  \
                                                                                                                       \
    /* Four rows against two weight rows. */                                                                           \
    CK_INLINE void NAME##_dot4x2(const W *w0, const W *w1, const float *x, ptrdiff_t lda, ptrdiff_t k, float *first,  \
                                 float *second) {                                                                      \
        const float *x0 = x, *x1 = x + lda, *x2 = x + 2 * lda, *x3 = x + 3 * lda;                                     \
        ck_v8 a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0}, b0 = {0}, b1 = {0}, b2 = {0}, b3 = {0};                         \
        ptrdiff_t i = 0;                                                                                               \
        for (; i + 8 <= k; i += 8) {                                                                                   \
            ck_v8 u = LOAD8(w0 + i), v = LOAD8(w1 + i);                                                                \
            ck_v8 y0 = ck_load(x0 + i), y1 = ck_load(x1 + i), y2 = ck_load(x2 + i), y3 = ck_load(x3 + i);              \
            a0 = CK_MADD(a0, u, y0); a1 = CK_MADD(a1, u, y1); a2 = CK_MADD(a2, u, y2); a3 = CK_MADD(a3, u, y3);        \
            b0 = CK_MADD(b0, v, y0); b1 = CK_MADD(b1, v, y1); b2 = CK_MADD(b2, v, y2); b3 = CK_MADD(b3, v, y3);        \
        }                                                                                                              \
        float f[4] = {ck_sum(a0), ck_sum(a1), ck_sum(a2), ck_sum(a3)};                                                 \
        float s[4] = {ck_sum(b0), ck_sum(b1), ck_sum(b2), ck_sum(b3)};                                                 \
        for (; i < k; i++) {                                                                                           \
            float u = ONE(w0, i), v = ONE(w1, i);                                                                      \
            f[0] += u * x0[i]; f[1] += u * x1[i]; f[2] += u * x2[i]; f[3] += u * x3[i];                                \
            s[0] += v * x0[i]; s[1] += v * x1[i]; s[2] += v * x2[i]; s[3] += v * x3[i];                                \
        }                                                                                                              \
        memcpy(first, f, sizeof f);                                                                                    \
        memcpy(second, s, sizeof s);                                                                                   \
    }                                                                                                                  \
                                                                                                                       \
    /* Two rows against two weight rows. */                                                                            \
    CK_INLINE void NAME##_dot2x2(const W *w0, const W *w1, const float *x, ptrdiff_t lda, ptrdiff_t k, float *first,  \
                                 float *second) {                                                                      \
        const float *x0 = x, *x1 = x + lda;                                                                            \
        ck_v8 a0 = {0}, a1 = {0}, b0 = {0}, b1 = {0};                                                                  \
        ptrdiff_t i = 0;                                                                                               \
        for (; i + 8 <= k; i += 8) {                                                                                   \
            ck_v8 u = LOAD8(w0 + i), v = LOAD8(w1 + i);                                                                \
            ck_v8 y0 = ck_load(x0 + i), y1 = ck_load(x1 + i);                                                          \
            a0 = CK_MADD(a0, u, y0); a1 = CK_MADD(a1, u, y1);                                                          \
            b0 = CK_MADD(b0, v, y0); b1 = CK_MADD(b1, v, y1);                                                          \
        }                                                                                                              \
        float f0 = ck_sum(a0), f1 = ck_sum(a1), s0 = ck_sum(b0), s1 = ck_sum(b1);                                      \
        for (; i < k; i++) {                                                                                           \
            float u = ONE(w0, i), v = ONE(w1, i);                                                                      \
            f0 += u * x0[i]; f1 += u * x1[i];                                                                          \
            s0 += v * x0[i]; s1 += v * x1[i];                                                                          \
        }                                                                                                              \
        first[0] = f0; first[1] = f1;                                                                                  \
        second[0] = s0; second[1] = s1;                                                                                \
    }                                                                                                                  \
                                                                                                                       \
    /* One row against two weight rows, 16 columns a step in two sums per weight row. */                              \
    CK_INLINE void NAME##_dot1x2(const W *w0, const W *w1, const float *x0, ptrdiff_t k, float *first,                \
                                 float *second) {                                                                      \
        ck_v8 a0 = {0}, a1 = {0}, b0 = {0}, b1 = {0};                                                                  \
        ptrdiff_t i = 0;                                                                                               \
        for (; i + 16 <= k; i += 16) {                                                                                 \
            ck_v8 y0 = ck_load(x0 + i), y1 = ck_load(x0 + i + 8);                                                      \
            a0 = CK_MADD(a0, LOAD8(w0 + i), y0); a1 = CK_MADD(a1, LOAD8(w0 + i + 8), y1);                              \
            b0 = CK_MADD(b0, LOAD8(w1 + i), y0); b1 = CK_MADD(b1, LOAD8(w1 + i + 8), y1);                              \
        }                                                                                                              \
        float f = ck_sum(a0 + a1), s = ck_sum(b0 + b1);                                                                \
        for (; i < k; i++) {                                                                                           \
            f += ONE(w0, i) * x0[i];                                                                                   \
            s += ONE(w1, i) * x0[i];                                                                                   \
        }                                                                                                              \
        *first = f;                                                                                                    \
        *second = s;                                                                                                   \
    }                                                                                                                  \
                                                                                                                       \
    /* Two weight rows at a time, the activation rows in groups of 5, 4, 2 and 1, so that every accumulator stays in  \
       a register and each loaded (and converted) weight vector feeds several fused multiply-adds; the weight rows    \
       are read from memory once (later groups find them in L1). Five is a beam's worth of rows. */                   \
    CK_ATTR static void NAME(ptrdiff_t first, ptrdiff_t last, int m, ptrdiff_t k, const float *a, ptrdiff_t lda,      \
                             const W *b, ptrdiff_t ldb, float *c, ptrdiff_t ldc, float alpha, float beta) {           \
        int starts[8], sizes[8], groups = 0, r = 0;                                                                    \
        static const int order[4] = {5, 4, 2, 1};                                                                     \
        for (int g = 0; g < 4; g++)                                                                                    \
            for (; m - r >= order[g]; r += order[g]) {                                                                 \
                starts[groups] = r;                                                                                    \
                sizes[groups++] = order[g];                                                                            \
            }                                                                                                          \
        for (ptrdiff_t o = first; o < last; o += 2) {                                                                  \
            int pair = o + 1 < last;                                                                                   \
            const W *w0 = b + o * ldb;                                                                                 \
            const W *w1 = pair ? w0 + ldb : w0;                                                                        \
            for (int g = 0; g < groups; g++) {                                                                         \
                const float *x = a + starts[g] * lda;                                                                  \
                float s0[5], s1[5];                                                                                    \
                switch (sizes[g]) {                                                                                    \
                case 5: NAME##_dot5x2(w0, w1, x, lda, k, s0, s1); break;                                               \
                case 4: NAME##_dot4x2(w0, w1, x, lda, k, s0, s1); break;                                               \
                case 2: NAME##_dot2x2(w0, w1, x, lda, k, s0, s1); break;                                               \
                default: NAME##_dot1x2(w0, w1, x, k, s0, s1); break;                                                   \
                }                                                                                                      \
                for (int i = 0; i < sizes[g]; i++) {                                                                   \
                    ck_store_scaled(c, ldc, starts[g] + i, o, s0[i], alpha, beta);                                     \
                    if (pair) ck_store_scaled(c, ldc, starts[g] + i, o + 1, s1[i], alpha, beta);                       \
                }                                                                                                      \
            }                                                                                                          \
        }                                                                                                              \
    }

CK_SKINNY(ck_skinny_f32, float, ck_load8_f32, ck_f32)
CK_SKINNY(ck_skinny_f16, uint16_t, ck_load8_f16, ck_f16)

/// out[0..<64] = Σⱼ weights[j] · values[j, 0..<64], the 64 sums held in registers (one attention head).
CK_INLINE void ck_weighted_sum64(const float *weights, ptrdiff_t count, const float *values, ptrdiff_t ldb, float *out) {
    ck_v8 s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0}, s4 = {0}, s5 = {0}, s6 = {0}, s7 = {0};
    for (ptrdiff_t j = 0; j < count; j++) {
        ck_v8 w = ck_splat(weights[j]);
        const float *row = values + j * ldb;
        s0 += w * ck_load(row);
        s1 += w * ck_load(row + 8);
        s2 += w * ck_load(row + 16);
        s3 += w * ck_load(row + 24);
        s4 += w * ck_load(row + 32);
        s5 += w * ck_load(row + 40);
        s6 += w * ck_load(row + 48);
        s7 += w * ck_load(row + 56);
    }
    ck_store(out, s0); ck_store(out + 8, s1); ck_store(out + 16, s2); ck_store(out + 24, s3);
    ck_store(out + 32, s4); ck_store(out + 40, s5); ck_store(out + 48, s6); ck_store(out + 56, s7);
}

CK_ATTR static void ck_weighted_sum(int m, ptrdiff_t n, ptrdiff_t k, const float *a, ptrdiff_t lda, const float *b,
                                    ptrdiff_t ldb, float *c, ptrdiff_t ldc) {
    if (n == 64) {
        for (int r = 0; r < m; r++) ck_weighted_sum64(a + r * lda, k, b, ldb, c + r * ldc);
        return;
    }
    ptrdiff_t vector_end = n & ~(ptrdiff_t)7;
    for (int r = 0; r < m; r++) {
        float *out = c + r * ldc;
        for (ptrdiff_t i = 0; i < n; i++) out[i] = 0;
        const float *weights = a + r * lda;
        for (ptrdiff_t j = 0; j < k; j++) {
            float w = weights[j];
            if (w == 0) continue;
            const float *row = b + j * ldb;
            ck_v8 scale = ck_splat(w);
            ptrdiff_t i = 0;
            for (; i < vector_end; i += 8) ck_store(out + i, ck_load(out + i) + scale * ck_load(row + i));
            for (; i < n; i++) out[i] += w * row[i];
        }
    }
}

// MARK: - Element-wise and row-wise

CK_ATTR static void ck_half_to_float(const void *h, ptrdiff_t count, float *out) {
    const char *bytes = h;
    ptrdiff_t i = 0;
    for (; i + 8 <= count; i += 8) {
        uint16_t eight[8];
        memcpy(eight, bytes + 2 * i, sizeof eight);
        ck_store(out + i, ck_load8_f16(eight));
    }
    for (; i < count; i++) {
        uint16_t one;
        memcpy(&one, bytes + 2 * i, sizeof one);
        out[i] = CK_F16(one);
    }
}

CK_ATTR static void ck_float_to_half(const float *x, ptrdiff_t count, uint16_t *out) {
    ptrdiff_t i = 0;
    for (; i + 8 <= count; i += 8) CK_STORE_F16(out + i, ck_load(x + i));
    for (; i < count; i++) out[i] = CK_TO_F16(x[i]);
}

/// exp for inputs ≤ 0 of a vector `input` of type T (integer lanes TI): Cody–Waite range reduction and a degree-6
/// polynomial (Cephes expf), about 1 ulp; lanes below −87.3 give 0. The integer part is rounded with the 1.5·2²³
/// trick, in vector registers. One body for the eight- and sixteen-lane versions, so their lanes are equal.
#define CK_EXP_BODY(T, TI, input, SPLAT)                                                                               \
    TI low = (input) < SPLAT(-87.3f);                                                                                  \
    T x = (T)((low & (TI)SPLAT(-87.3f)) | (~low & (TI)(input)));                                                       \
    T magic = SPLAT(12582912.0f); /* 1.5 · 2^23 */                                                                     \
    T shifted = x * 1.44269504088896341f + magic;                                                                      \
    T n = shifted - magic;                                                                                             \
    T r = x - n * 0.693359375f;                                                                                        \
    r = r + n * 2.12194440e-4f;                                                                                        \
    T z = r * r;                                                                                                       \
    T y = SPLAT(1.9875691500e-4f);                                                                                     \
    y = y * r + 1.3981999507e-3f;                                                                                      \
    y = y * r + 8.3334519073e-3f;                                                                                      \
    y = y * r + 4.1665795894e-2f;                                                                                      \
    y = y * r + 1.6666665459e-1f;                                                                                      \
    y = y * r + 5.0000001201e-1f;                                                                                      \
    y = y * z + r + 1;                                                                                                 \
    TI integer = (TI)shifted - 0x4B400000;                                                                             \
    T scale = (T)((integer + 127) << 23);                                                                              \
    return (T)(~low & (TI)(y * scale));

/// exp of eight lanes for inputs ≤ 0 (CK_EXP_BODY).
CK_INLINE ck_v8 ck_exp8(ck_v8 input) { CK_EXP_BODY(ck_v8, ck_v8i, input, ck_splat) }

#ifdef CK_SIXTEEN_LANES
// Sixteen-lane versions for builds whose CPU has 512-bit registers: the same arithmetic lane for lane as the
// eight-lane ones, so results are equal bit for bit; faster on an Intel Xeon whose cores have two 512-bit FMA units
// (softmax of the encoder's 1,500-wide rows about 1.45 times), the same on CPUs that split 512-bit operations.
typedef float ck_v16 __attribute__((vector_size(64)));
typedef int32_t ck_v16i __attribute__((vector_size(64)));

CK_INLINE ck_v16 ck_splat16(float x) { return (ck_v16){x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x}; }

/// exp of sixteen lanes for inputs ≤ 0 (CK_EXP_BODY).
CK_INLINE ck_v16 ck_exp16(ck_v16 input) { CK_EXP_BODY(ck_v16, ck_v16i, input, ck_splat16) }
#endif

/// GELU of a vector `v` of type T (integer lanes TI), erf from Abramowitz–Stegun 7.1.26 (absolute error below
/// 1.5e-7). One body for the eight- and sixteen-lane versions, with EXP the exp of the same width.
#define CK_GELU_BODY(T, TI, v, SPLAT, EXP)                                                                             \
    T z = (v) * 0.70710678118654752f;                                                                                  \
    TI negative = z < SPLAT(0);                                                                                        \
    T a = (T)((negative & (TI)(-z)) | (~negative & (TI)z));                                                            \
    T t = 1 / (1 + 0.3275911f * a);                                                                                    \
    T poly = SPLAT(1.061405429f);                                                                                      \
    poly = poly * t - 1.453152027f;                                                                                    \
    poly = poly * t + 1.421413741f;                                                                                    \
    poly = poly * t - 0.284496736f;                                                                                    \
    poly = poly * t + 0.254829592f;                                                                                    \
    poly = poly * t;                                                                                                   \
    T erfv = 1 - poly * EXP(-(a * a));                                                                                 \
    erfv = (T)((negative & (TI)(-erfv)) | (~negative & (TI)erfv));                                                     \
    return 0.5f * (v) * (1 + erfv);

/// GELU of eight lanes (CK_GELU_BODY).
CK_INLINE ck_v8 ck_gelu8(ck_v8 v) { CK_GELU_BODY(ck_v8, ck_v8i, v, ck_splat, ck_exp8) }

#ifdef CK_SIXTEEN_LANES
/// GELU of sixteen lanes (CK_GELU_BODY).
CK_INLINE ck_v16 ck_gelu16(ck_v16 v) { CK_GELU_BODY(ck_v16, ck_v16i, v, ck_splat16, ck_exp16) }
#endif

/// e^x of eight lanes for any x: ck_exp8 with x capped at 88 (e^88 ≈ 1.7e38 is still finite; ck_exp8 itself
/// handles only the low end).
CK_INLINE ck_v8 ck_exp8_capped(ck_v8 x) {
    ck_v8i high = x > ck_splat(88.0f);
    return ck_exp8(ck_select_lanes(high, ck_splat(88.0f), x));
}

/// The logistic function and tanh of eight lanes (tanh x = 2 / (1 + e^−2x) − 1: absolute error about 1e-7).
CK_INLINE ck_v8 ck_sigmoid8(ck_v8 x) { return 1 / (1 + ck_exp8_capped(-x)); }
CK_INLINE ck_v8 ck_tanh8(ck_v8 x) { return 2 / (1 + ck_exp8_capped(-2 * x)) - 1; }

CK_ATTR static void ck_lstm_cell(const float *gates, const float *bias, ptrdiff_t count, float *cell, float *hidden) {
    for (ptrdiff_t j = 0; j + 8 <= count; j += 8) {
        ck_v8 input = ck_sigmoid8(ck_load(gates + j) + ck_load(bias + j));
        ck_v8 forget = ck_sigmoid8(ck_load(gates + count + j) + ck_load(bias + count + j));
        ck_v8 candidate = ck_tanh8(ck_load(gates + 2 * count + j) + ck_load(bias + 2 * count + j));
        ck_v8 output = ck_sigmoid8(ck_load(gates + 3 * count + j) + ck_load(bias + 3 * count + j));
        ck_v8 c = forget * ck_load(cell + j) + input * candidate;
        ck_store(cell + j, c);
        ck_store(hidden + j, output * ck_tanh8(c));
    }
}

CK_ATTR static void ck_gelu(float *x, ptrdiff_t count) {
    ptrdiff_t i = 0;
#ifdef CK_SIXTEEN_LANES
    for (; i + 16 <= count; i += 16) {
        ck_v16 v;
        memcpy(&v, x + i, sizeof v);
        v = ck_gelu16(v);
        memcpy(x + i, &v, sizeof v);
    }
#endif
    for (; i + 8 <= count; i += 8) ck_store(x + i, ck_gelu8(ck_load(x + i)));
    for (; i < count; i++) {
        float v = x[i];
        x[i] = 0.5f * v * (1 + erff(v * 0.70710678118654752f));
    }
}

CK_ATTR static float ck_maximum(const float *x, ptrdiff_t count) {
    ck_v8 lanes = ck_splat(-INFINITY);
    ptrdiff_t i = 0;
    for (; i + 8 <= count; i += 8) {
        ck_v8 v = ck_load(x + i);
        lanes = ck_select_lanes(v > lanes, v, lanes);
    }
    float result = lanes[0];
    for (int lane = 1; lane < 8; lane++)
        if (lanes[lane] > result) result = lanes[lane];
    for (; i < count; i++)
        if (x[i] > result) result = x[i];
    return result;
}

/// ck_exp_shifted from value `i` on, with `sum` the eight-lane sum of the values before it.
CK_INLINE float ck_exp_shifted_from(float *x, ptrdiff_t i, ck_v8 sum, ptrdiff_t count, float scale, float shift) {
    for (; i + 8 <= count; i += 8) {
        ck_v8 e = ck_exp8(ck_load(x + i) * scale - shift);
        ck_store(x + i, e);
        sum += e;
    }
    float total = ck_sum(sum);
    for (; i < count; i++) {
        float e = expf(x[i] * scale - shift);
        x[i] = e;
        total += e;
    }
    return total;
}

CK_ATTR static float ck_exp_shifted(float *x, ptrdiff_t count, float scale, float shift) {
    return ck_exp_shifted_from(x, 0, (ck_v8){0}, count, scale, shift);
}

#ifdef CK_SIXTEEN_LANES
/// ck_exp_shifted sixteen lanes at a time, its eight-lane sum kept.
CK_ATTR static float ck_exp_shifted16(float *x, ptrdiff_t count, float scale, float shift) {
    ck_v8 sum = {0};
    ptrdiff_t i = 0;
    for (; i + 16 <= count; i += 16) {
        ck_v16 v;
        memcpy(&v, x + i, sizeof v);
        ck_v16 e = ck_exp16(v * scale - shift);
        memcpy(x + i, &e, sizeof e);
        ck_v8 low, high;
        memcpy(&low, &e, sizeof low);
        memcpy(&high, (const char *)&e + sizeof low, sizeof high);
        sum += low;
        sum += high;
    }
    return ck_exp_shifted_from(x, i, sum, count, scale, shift);
}

/// The largest of `count` values, sixteen lanes at a time (exact, like ck_maximum).
CK_ATTR static float ck_maximum16(const float *x, ptrdiff_t count) {
    ck_v16 lanes = ck_splat16(-INFINITY);
    ptrdiff_t i = 0;
    for (; i + 16 <= count; i += 16) {
        ck_v16 v;
        memcpy(&v, x + i, sizeof v);
        ck_v16i greater = v > lanes;
        lanes = (ck_v16)((greater & (ck_v16i)v) | (~greater & (ck_v16i)lanes));
    }
    float result = lanes[0];
    for (int lane = 1; lane < 16; lane++)
        if (lanes[lane] > result) result = lanes[lane];
    for (; i < count; i++)
        if (x[i] > result) result = x[i];
    return result;
}

/// x[i] · factor for `count` values, sixteen at a time.
CK_ATTR static void ck_scale16(float *x, ptrdiff_t count, float factor) {
    ptrdiff_t i = 0;
    for (; i + 16 <= count; i += 16) {
        ck_v16 v;
        memcpy(&v, x + i, sizeof v);
        v = v * factor;
        memcpy(x + i, &v, sizeof v);
    }
    for (; i < count; i++) x[i] *= factor;
}
#define CK_ROW_MAXIMUM ck_maximum16
#define CK_ROW_EXP_SHIFTED ck_exp_shifted16
#define CK_ROW_SCALE ck_scale16
#else
/// x[i] · factor for `count` values.
CK_ATTR static void ck_scale(float *x, ptrdiff_t count, float factor) {
    for (ptrdiff_t i = 0; i < count; i++) x[i] *= factor;
}
#define CK_ROW_MAXIMUM ck_maximum
#define CK_ROW_EXP_SHIFTED ck_exp_shifted
#define CK_ROW_SCALE ck_scale
#endif

CK_ATTR static void ck_softmax_rows(float *x, ptrdiff_t rows, ptrdiff_t cols, ptrdiff_t stride, float scale) {
    for (ptrdiff_t r = 0; r < rows; r++) {
        float *row = x + r * stride;
        float max_value = CK_ROW_MAXIMUM(row, cols);
        if (max_value == -INFINITY) {
            for (ptrdiff_t i = 0; i < cols; i++) row[i] = 0;
            continue;
        }
        float sum = CK_ROW_EXP_SHIFTED(row, cols, scale, max_value * scale);
        CK_ROW_SCALE(row, cols, 1 / sum);
    }
}

CK_ATTR static void ck_log_softmax(const float *x, ptrdiff_t count, float *out) {
    float max_value = ck_maximum(x, count);
    double sum = 0;
    for (ptrdiff_t i = 0; i < count; i++)
        if (x[i] != -INFINITY) sum += (double)expf(x[i] - max_value);
    float log_sum = (float)log(sum) + max_value;
    for (ptrdiff_t i = 0; i < count; i++) out[i] = x[i] - log_sum;
}

CK_ATTR static void ck_layer_norm(const float *x, ptrdiff_t rows, ptrdiff_t cols, const float *gamma,
                                  const float *beta, float *y) {
    for (ptrdiff_t r = 0; r < rows; r++) {
        const float *xr = x + r * cols;
        float *yr = y + r * cols;
        ck_v8 lanes = {0};
        ptrdiff_t i = 0;
        for (; i + 8 <= cols; i += 8) lanes += ck_load(xr + i);
        float total = ck_sum(lanes);
        for (; i < cols; i++) total += xr[i];
        float mean = total / (float)cols;
        ck_v8 squares = {0};
        for (i = 0; i + 8 <= cols; i += 8) {
            ck_v8 d = ck_load(xr + i) - mean;
            squares += d * d;
        }
        float square_total = ck_sum(squares);
        for (; i < cols; i++) square_total += (xr[i] - mean) * (xr[i] - mean);
        float inverse = 1 / sqrtf(square_total / (float)cols + 1e-5f);
        for (i = 0; i + 8 <= cols; i += 8)
            ck_store(yr + i, (ck_load(xr + i) - mean) * inverse * ck_load(gamma + i) + ck_load(beta + i));
        for (; i < cols; i++) yr[i] = (xr[i] - mean) * inverse * gamma[i] + beta[i];
    }
}

/// log Σᵢ exp(x[i]) for the values above −∞: the exponentials eight lanes at a time (ck_exp8, relative error about
/// 2e-7 against expf; values more than 87.3 below the largest count as 0), summed in double.
CK_ATTR static float ck_log_sum_exp(const float *x, ptrdiff_t count) {
    float max_value = CK_ROW_MAXIMUM(x, count);
    if (max_value == -INFINITY) return -INFINITY;
    typedef double ck_v4d __attribute__((vector_size(32)));
    ck_v4d low = {0}, high = {0};
    ptrdiff_t i = 0;
    for (; i + 8 <= count; i += 8) {
        ck_v8 e = ck_exp8(ck_load(x + i) - max_value);
        low += __builtin_convertvector(__builtin_shufflevector(e, e, 0, 1, 2, 3), ck_v4d);
        high += __builtin_convertvector(__builtin_shufflevector(e, e, 4, 5, 6, 7), ck_v4d);
    }
    double sum = (low[0] + high[0]) + (low[1] + high[1]) + (low[2] + high[2]) + (low[3] + high[3]);
    for (; i < count; i++)
        if (x[i] != -INFINITY) sum += (double)expf(x[i] - max_value);
    return (float)log(sum) + max_value;
}

CK_ATTR static int ck_log_softmax_top(const float *x, ptrdiff_t count, int k, float *top_logprobs, int32_t *top_indices) {
    int found = 0;
    for (ptrdiff_t i = 0; i < count; i++) {
        float v = x[i];
        if (v == -INFINITY || (found == k && v <= top_logprobs[k - 1])) continue;
        int at = found < k ? found++ : k - 1;
        while (at > 0 && top_logprobs[at - 1] < v) {
            top_logprobs[at] = top_logprobs[at - 1];
            top_indices[at] = top_indices[at - 1];
            at--;
        }
        top_logprobs[at] = v;
        top_indices[at] = (int32_t)i;
    }
    if (found == 0) return 0;
    float log_sum = ck_log_sum_exp(x, count);
    for (int j = 0; j < found; j++) top_logprobs[j] -= log_sum;
    return found;
}

// MARK: - Cross-attention of a decoder step's few rows

#ifndef CK_ATTENTION_VECTORS
/// Eight-lane vectors per row in one block of the cross-attention kernels (keys of the scores, columns of the
/// weighted values): two where 16 registers must hold five rows' sums; the AVX-512 build, with 32 registers, sets four.
#define CK_ATTENTION_VECTORS 2
#endif
#define CK_ATTENTION_BLOCK (8 * CK_ATTENTION_VECTORS)
/// How far ahead (in floats) the scores prefetch each key row. A block reads one or two cache lines from each of the
/// head's 64 key rows, 6 KB apart: too many streams for the hardware prefetchers, so without this every block waits
/// on memory (base, five rows, AMD EPYC: 1.0–1.3 ms a layer without, 0.35–0.45 ms with; a throwaway C loop over 6
/// layers × 8 heads, so the keys come from memory as in a decoder step).
#define CK_PREFETCH_AHEAD 128
/// Values' rows per chunk of the weighted values: the column blocks of a chunk all read it while it is in the
/// first-level cache (32 rows of 64 floats, 8 KB), where each block read every row from memory before (same machine
/// and loop: 0.77–0.95 ms a layer before, 0.35–0.49 ms after).
#define CK_VALUES_CHUNK 32

// One key/value element type's cross-attention kernels; E is the element type, LOAD8/ONE read it as floats (E[i]
// at ONE(p, i)). The float32 and float16 builds do the same arithmetic on the same floats once loaded.
#define CK_CROSS_ATTENTION(NAME, E, LOAD8, ONE)                                                                        \
    /* The scores of ROWS (a constant after inlining) query rows for keys j ..< j + 8·vectors: each key vector is    \
       loaded once for all the rows, and every score is the fused sum over c in order, as for one row alone. */      \
    CK_INLINE void NAME##_scores_block(const float *query, ptrdiff_t query_stride, const int rows, const int vectors,  \
                                       const E *keys, ptrdiff_t length, ptrdiff_t width, ptrdiff_t j, float *out,      \
                                       ptrdiff_t out_stride) {                                                         \
        ck_v8 sums[5][CK_ATTENTION_VECTORS];                                                                           \
        for (int r = 0; r < rows; r++)                                                                                 \
            for (int v = 0; v < vectors; v++) sums[r][v] = ck_splat(0);                                                \
        for (ptrdiff_t c = 0; c < width; c++) {                                                                        \
            const E *row = keys + c * length + j;                                                                      \
            for (int v = 0; v < vectors; v += 2) __builtin_prefetch(row + CK_PREFETCH_AHEAD + 8 * v);                 \
            ck_v8 k[CK_ATTENTION_VECTORS];                                                                             \
            for (int v = 0; v < vectors; v++) k[v] = LOAD8(row + 8 * v);                                               \
            for (int r = 0; r < rows; r++) {                                                                           \
                ck_v8 q = ck_splat(query[r * query_stride + c]);                                                       \
                for (int v = 0; v < vectors; v++) sums[r][v] = CK_MADD(sums[r][v], q, k[v]);                           \
            }                                                                                                          \
        }                                                                                                              \
        for (int r = 0; r < rows; r++)                                                                                 \
            for (int v = 0; v < vectors; v++) ck_store(out + r * out_stride + j + 8 * v, sums[r][v]);                  \
    }                                                                                                                  \
                                                                                                                       \
    /* All of a head's scores for ROWS query rows: blocks of CK_ATTENTION_BLOCK keys, then of 8, then one key at a    \
       time. */                                                                                                        \
    CK_INLINE void NAME##_scores_rows(const float *query, ptrdiff_t query_stride, const int rows, const E *keys,       \
                                      ptrdiff_t length, ptrdiff_t width, float *out, ptrdiff_t out_stride) {           \
        ptrdiff_t j = 0;                                                                                               \
        for (; j + CK_ATTENTION_BLOCK <= length; j += CK_ATTENTION_BLOCK)                                              \
            NAME##_scores_block(query, query_stride, rows, CK_ATTENTION_VECTORS, keys, length, width, j, out,          \
                                out_stride);                                                                           \
        for (; j + 8 <= length; j += 8)                                                                                \
            NAME##_scores_block(query, query_stride, rows, 1, keys, length, width, j, out, out_stride);                \
        for (int r = 0; r < rows; r++) {                                                                               \
            for (ptrdiff_t t = j; t < length; t++) {                                                                   \
                float s = 0;                                                                                           \
                for (ptrdiff_t c = 0; c < width; c++) s += query[r * query_stride + c] * ONE(keys, c * length + t);    \
                out[r * out_stride + t] = s;                                                                           \
            }                                                                                                          \
        }                                                                                                              \
    }                                                                                                                  \
                                                                                                                       \
    CK_ATTR static void NAME##_scores(const float *query, ptrdiff_t query_stride, int rows, const E *keys,             \
                                      ptrdiff_t length, ptrdiff_t width, float *out, ptrdiff_t out_stride) {           \
        switch (rows) {                                                                                                \
        case 1: NAME##_scores_rows(query, query_stride, 1, keys, length, width, out, out_stride); break;               \
        case 2: NAME##_scores_rows(query, query_stride, 2, keys, length, width, out, out_stride); break;               \
        case 3: NAME##_scores_rows(query, query_stride, 3, keys, length, width, out, out_stride); break;               \
        case 4: NAME##_scores_rows(query, query_stride, 4, keys, length, width, out, out_stride); break;               \
        default: NAME##_scores_rows(query, query_stride, 5, keys, length, width, out, out_stride); break;              \
        }                                                                                                              \
    }                                                                                                                  \
                                                                                                                       \
    /* The weighted values of ROWS (a constant after inlining) rows for columns column ..< column + 8·vectors, over   \
       the values' rows first ..< end: each value vector is loaded once for all the rows, and every output is the     \
       fused sum over j in order, as for one row alone (the sum so far is read back from `out` after the first        \
       chunk). */                                                                                                      \
    CK_INLINE void NAME##_values_block(const float *weights, const int rows, const int vectors, ptrdiff_t length,       \
                                       ptrdiff_t first, ptrdiff_t end, const E *values, ptrdiff_t width,               \
                                       ptrdiff_t column, float *out, ptrdiff_t out_stride) {                           \
        ck_v8 sums[5][CK_ATTENTION_VECTORS];                                                                           \
        for (int r = 0; r < rows; r++)                                                                                 \
            for (int v = 0; v < vectors; v++)                                                                          \
                sums[r][v] = first == 0 ? ck_splat(0) : ck_load(out + r * out_stride + column + 8 * v);                \
        for (ptrdiff_t j = first; j < end; j++) {                                                                      \
            const E *row = values + j * width + column;                                                                \
            ck_v8 x[CK_ATTENTION_VECTORS];                                                                             \
            for (int v = 0; v < vectors; v++) x[v] = LOAD8(row + 8 * v);                                               \
            for (int r = 0; r < rows; r++) {                                                                           \
                ck_v8 p = ck_splat(weights[r * length + j]);                                                           \
                for (int v = 0; v < vectors; v++) sums[r][v] = CK_MADD(sums[r][v], p, x[v]);                           \
            }                                                                                                          \
        }                                                                                                              \
        for (int r = 0; r < rows; r++)                                                                                 \
            for (int v = 0; v < vectors; v++) ck_store(out + r * out_stride + column + 8 * v, sums[r][v]);             \
    }                                                                                                                  \
                                                                                                                       \
    /* All columns for ROWS rows, CK_VALUES_CHUNK values' rows at a time: every column block of a chunk before the    \
       next. */                                                                                                        \
    CK_INLINE void NAME##_values_rows(const float *weights, const int rows, ptrdiff_t length, const E *values,          \
                                      ptrdiff_t width, float *out, ptrdiff_t out_stride) {                             \
        for (ptrdiff_t first = 0; first < length || first == 0; first += CK_VALUES_CHUNK) { /* no values: zeros */     \
            ptrdiff_t end = first + CK_VALUES_CHUNK < length ? first + CK_VALUES_CHUNK : length;                       \
            ptrdiff_t column = 0;                                                                                      \
            for (; column + CK_ATTENTION_BLOCK <= width; column += CK_ATTENTION_BLOCK)                                 \
                NAME##_values_block(weights, rows, CK_ATTENTION_VECTORS, length, first, end, values, width, column,    \
                                    out, out_stride);                                                                  \
            for (; column < width; column += 8)                                                                        \
                NAME##_values_block(weights, rows, 1, length, first, end, values, width, column, out, out_stride);     \
        }                                                                                                              \
    }                                                                                                                  \
                                                                                                                       \
    /* Up to five rows (weights `length` apart), a block of columns at a time. */                                      \
    CK_ATTR static void NAME##_values(const float *weights, int rows, ptrdiff_t length, const E *values,               \
                                      ptrdiff_t width, float *out, ptrdiff_t out_stride) {                             \
        switch (rows) {                                                                                                \
        case 1: NAME##_values_rows(weights, 1, length, values, width, out, out_stride); break;                         \
        case 2: NAME##_values_rows(weights, 2, length, values, width, out, out_stride); break;                         \
        case 3: NAME##_values_rows(weights, 3, length, values, width, out, out_stride); break;                         \
        case 4: NAME##_values_rows(weights, 4, length, values, width, out, out_stride); break;                         \
        default: NAME##_values_rows(weights, 5, length, values, width, out, out_stride); break;                        \
        }                                                                                                              \
    }

CK_CROSS_ATTENTION(ck_attention, float, ck_load8_f32, ck_f32)
CK_CROSS_ATTENTION(ck_attention_f16, uint16_t, ck_load8_f16, ck_f16)

#include "kernels_int8.h"

const ck_kernels CK_TABLE = {
    .level = CK_LEVEL,
    .skinny_f32 = ck_skinny_f32,
    .skinny_f16 = ck_skinny_f16,
    .weighted_sum = ck_weighted_sum,
    .half_to_float = ck_half_to_float,
    .gelu = ck_gelu,
    .layer_norm = ck_layer_norm,
    .maximum = ck_maximum,
    .exp_shifted = ck_exp_shifted,
    .softmax_rows = ck_softmax_rows,
    .log_softmax = ck_log_softmax,
    .log_softmax_top = ck_log_softmax_top,
    .attention_scores = ck_attention_scores,
    .attention_values = ck_attention_values,
    .attention_scores_f16 = ck_attention_f16_scores,
    .attention_values_f16 = ck_attention_f16_values,
    .float_to_half = ck_float_to_half,
    .lstm_cell = ck_lstm_cell,
    .quantize_rows = ck_quantize_rows,
    .skinny_i8 = ck_skinny_i8,
    .dequantize_rows = ck_dequantize_rows,
};
