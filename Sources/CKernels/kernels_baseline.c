// The kernels for any CPU of the architecture: plain C over eight-lane vectors that the compiler maps to the
// baseline's registers (two SSE2 registers on x86-64, two NEON registers on aarch64).
#pragma STDC FP_CONTRACT OFF
#include "CKernels.h"

// The eight-lane helpers pass vectors wider than the baseline's registers; they are always inlined, so no call
// crosses the ABI boundary that this warning is about.
#pragma clang diagnostic ignored "-Wpsabi"

#define CK_ATTR
#define CK_TABLE ck_kernels_baseline
#define CK_LEVEL CK_LEVEL_BASELINE

#if defined(__aarch64__)
// aarch64 always has fused multiply-add and half-precision conversion.
#define CK_MADD(s, a, b) __builtin_elementwise_fma((a), (b), (s))
typedef __fp16 ck_half8 __attribute__((vector_size(16)));
static inline ck_half8 ck_half_bits(const uint16_t *p) {
    ck_half8 h;
    __builtin_memcpy(&h, p, sizeof h);
    return h;
}
#define CK_LOAD_F16(p) __builtin_convertvector(ck_half_bits(p), ck_v8)
typedef float ck_float8 __attribute__((vector_size(32)));
static inline void ck_store_half8(uint16_t *p, ck_float8 v) {
    ck_half8 h = __builtin_convertvector(v, ck_half8);
    __builtin_memcpy(p, &h, sizeof h);
}
#define CK_STORE_F16(p, v) ck_store_half8((p), (v))
static inline uint16_t ck_float_to_half_bits(float x) {
    __fp16 h = (__fp16)x;
    uint16_t bits;
    __builtin_memcpy(&bits, &h, sizeof bits);
    return bits;
}
#define CK_TO_F16(x) ck_float_to_half_bits(x)
static inline float ck_half_bits_to_float(uint16_t bits) {
    __fp16 h;
    __builtin_memcpy(&h, &bits, sizeof h);
    return (float)h;
}
#define CK_F16(h) ck_half_bits_to_float(h)
#else
// No FMA at the x86-64 baseline: a multiply, then an add.
#define CK_MADD(s, a, b) ((s) + (a) * (b))
typedef uint16_t ck_u16x8 __attribute__((vector_size(16)));
typedef uint32_t ck_u32x8 __attribute__((vector_size(32)));
typedef float ck_f32x8 __attribute__((vector_size(32)));
/// Eight binary16 values as floats, exactly, with integer operations and one multiply: the exponent and mantissa
/// moved into a float's fields and scaled by 2^112 (this also handles subnormals); infinities and NaNs re-marked.
static inline ck_f32x8 ck_half8_to_float(const uint16_t *p) {
    ck_u16x8 h;
    __builtin_memcpy(&h, p, sizeof h);
    ck_u32x8 bits = __builtin_convertvector(h, ck_u32x8);
    ck_u32x8 sign = (bits & 0x8000) << 16;
    ck_u32x8 magnitude = bits & 0x7fff;
    ck_f32x8 scaled = (ck_f32x8)(magnitude << 13) * 0x1p112f;
    ck_u32x8 special = (ck_u32x8)(magnitude >= 0x7c00);
    ck_u32x8 result = ((ck_u32x8)scaled & ~special) | (((magnitude << 13) | 0x7f800000) & special);
    return (ck_f32x8)(result | sign);
}
#define CK_LOAD_F16(p) ck_half8_to_float(p)
static inline float ck_half_bits_to_float(uint16_t bits) {
    uint32_t magnitude = bits & 0x7fff;
    uint32_t sign = (uint32_t)(bits & 0x8000) << 16;
    uint32_t shifted = magnitude << 13, result;
    float value;
    if (magnitude >= 0x7c00) {
        result = shifted | 0x7f800000;
    } else {
        __builtin_memcpy(&value, &shifted, sizeof value);
        value *= 0x1p112f;
        __builtin_memcpy(&result, &value, sizeof result);
    }
    result |= sign;
    __builtin_memcpy(&value, &result, sizeof value);
    return value;
}
#define CK_F16(h) ck_half_bits_to_float(h)
/// x as binary16 bits, rounded to nearest with ties to even, with integer operations (no F16C at the baseline):
/// the exponent rebased from float's bias to half's and the mantissa rounded on its dropped 13 bits; magnitudes
/// below 2^-14 (subnormal halves) counted in units of 2^-24, exactly, then rounded; 65520 and above give infinity.
static inline uint16_t ck_float_to_half_bits(float x) {
    uint32_t bits;
    __builtin_memcpy(&bits, &x, sizeof bits);
    uint16_t sign = (uint16_t)((bits >> 16) & 0x8000);
    uint32_t magnitude = bits & 0x7fffffff;
    if (magnitude > 0x7f800000) return sign | 0x7e00 | (uint16_t)((magnitude >> 13) & 0x3ff);  // NaN, made quiet
    if (magnitude >= 0x477ff000) return sign | 0x7c00;
    if (magnitude < 0x38800000) {
        float value;
        __builtin_memcpy(&value, &magnitude, sizeof value);
        return sign | (uint16_t)__builtin_rintf(value * 0x1p24f);
    }
    uint32_t rebased = magnitude - 0x38000000;
    return sign | (uint16_t)((rebased + 0xfff + ((rebased >> 13) & 1)) >> 13);
}
#define CK_TO_F16(x) ck_float_to_half_bits(x)
static inline void ck_store_half8(uint16_t *p, ck_f32x8 v) {
    for (int lane = 0; lane < 8; lane++) p[lane] = ck_float_to_half_bits(v[lane]);
}
#define CK_STORE_F16(p, v) ck_store_half8((p), (v))
#endif

#include "kernels_body.h"
