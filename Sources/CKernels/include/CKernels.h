#ifndef CKERNELS_H
#define CKERNELS_H

// The engine's hand-written kernels (AuralWhisper's SkinnyGEMM, Kernels and CrossAttention call them), each built
// three times: for AVX-512, for AVX2 with FMA and F16C, and for the baseline of the architecture (plain C that
// the compiler vectorises; x86-64's SSE2, aarch64's NEON). `ck_select` returns the table of one build; the engine
// picks it once, from the CPU's features, so a CPU never runs an instruction it lacks.
//
// Every pointer must be valid for the counts given; the Swift wrappers check the shapes once per call. Matrices
// are row-major with the given leading dimensions (in elements). float16 weights are passed as their bits.

#include <stddef.h>
#include <stdint.h>

#pragma clang assume_nonnull begin

/// The kernel builds, lowest first; the values match AuralWhisper's `CPUFeatures.Level`.
enum {
    CK_LEVEL_BASELINE = 0,
    CK_LEVEL_AVX2 = 1,
    CK_LEVEL_AVX512 = 2,
};

/// One build of every kernel.
typedef struct ck_kernels {
    /// The level this table was built for (CK_LEVEL_…).
    int level;

    /// c[r, o] = alpha · Σₖ a[r, k] · b[o, k] + beta · c[r, o] for r < m (1…8), first ≤ o < last; b is float32 [out, in].
    void (*skinny_f32)(ptrdiff_t first, ptrdiff_t last, int m, ptrdiff_t k, const float *a, ptrdiff_t lda,
                       const float *b, ptrdiff_t ldb, float *c, ptrdiff_t ldc, float alpha, float beta);
    /// As skinny_f32 with b in float16 (IEEE binary16 bits).
    void (*skinny_f16)(ptrdiff_t first, ptrdiff_t last, int m, ptrdiff_t k, const float *a, ptrdiff_t lda,
                       const uint16_t *b, ptrdiff_t ldb, float *c, ptrdiff_t ldc, float alpha, float beta);
    /// c[r, :n] = Σⱼ a[r, j] · b[j, :n] for r < m, j < k (b not transposed, [k × n]).
    void (*weighted_sum)(int m, ptrdiff_t n, ptrdiff_t k, const float *a, ptrdiff_t lda, const float *b,
                         ptrdiff_t ldb, float *c, ptrdiff_t ldc);

    /// out[i] = the i-th float16 (IEEE binary16) at h as a float, exactly, for i < count (model loading; h needs
    /// no alignment).
    void (*half_to_float)(const void *h, ptrdiff_t count, float *out);

    /// GELU (erf form) of x[0..<count] in place.
    void (*gelu)(float *x, ptrdiff_t count);
    /// y[r] = (x[r] − mean) / √(variance + 1e-5) · gamma + beta for each of `rows` rows of `cols` values (biased
    /// variance; x and y rows `cols` apart, y may be x). The sums run in eight lanes, the same arithmetic in the AVX2
    /// and AVX-512 builds.
    void (*layer_norm)(const float *x, ptrdiff_t rows, ptrdiff_t cols, const float *gamma, const float *beta, float *y);
    /// The largest of x[0..<count]; −∞ when count is 0.
    float (*maximum)(const float *x, ptrdiff_t count);
    /// x[i] = exp(x[i]·scale − shift) in place for i < count; returns the sum (for x[i]·scale − shift ≤ 0).
    float (*exp_shifted)(float *x, ptrdiff_t count, float scale, float shift);
    /// Softmax of each of `rows` rows of `cols` values (rows `stride` apart) in place, after scaling by `scale`.
    void (*softmax_rows)(float *x, ptrdiff_t rows, ptrdiff_t cols, ptrdiff_t stride, float scale);
    /// out[i] = log_softmax(x)[i] for i < count, the sum of exponentials taken in double.
    void (*log_softmax)(const float *x, ptrdiff_t count, float *out);
    /// The k (≥ 1) largest of x[0..<count] above −∞ as log probabilities (x[i] − log Σ exp x), largest first, the
    /// lower index first among equal values, with their indices; returns how many there are (at most k). The sum of
    /// exponentials is taken eight lanes at a time (relative error about 2e-7 a term against log_softmax's expf).
    int (*log_softmax_top)(const float *x, ptrdiff_t count, int k, float *top_logprobs, int32_t *top_indices);

    /// out[r, j] = Σ_c query[r, c] · keys[c, j] for r < rows (1…5), j < length (keys [width × length], transposed
    /// per head; query rows `query_stride` apart, output rows `out_stride` apart). Each key is read once for all the
    /// rows, and a row's scores are the same bits whatever rows come with it.
    void (*attention_scores)(const float *query, ptrdiff_t query_stride, int rows, const float *keys, ptrdiff_t length,
                             ptrdiff_t width, float *out, ptrdiff_t out_stride);
    /// out[r, :width] = Σⱼ weights[r, j] · values[j, :width] for r < rows (1…5; weights rows `length` apart),
    /// j < length; width a multiple of 8. Each value is read once for all the rows, and a row's outputs are the same
    /// bits whatever rows come with it.
    void (*attention_values)(const float *weights, int rows, ptrdiff_t length, const float *values, ptrdiff_t width,
                             float *out, ptrdiff_t out_stride);
    /// As attention_scores with the keys in float16 (IEEE binary16 bits): half the bytes a decoder step reads.
    void (*attention_scores_f16)(const float *query, ptrdiff_t query_stride, int rows, const uint16_t *keys,
                                 ptrdiff_t length, ptrdiff_t width, float *out, ptrdiff_t out_stride);
    /// As attention_values with the values in float16 (IEEE binary16 bits).
    void (*attention_values_f16)(const float *weights, int rows, ptrdiff_t length, const uint16_t *values,
                                 ptrdiff_t width, float *out, ptrdiff_t out_stride);
    /// out[i] = x[i] rounded to the nearest float16 (ties to even; beyond the range, ±infinity), as IEEE binary16
    /// bits, for i < count: the same bits on every build.
    void (*float_to_half)(const float *x, ptrdiff_t count, uint16_t *out);

    /// One LSTM cell step for `count` units (a multiple of 8), PyTorch's gate order: with g = gates + bias
    /// ([4][count]: input, forget, cell, output), cell = σ(g_f)·cell + σ(g_i)·tanh(g_c) and hidden = σ(g_o)·tanh(cell),
    /// both in place (AuralVAD's Silero LSTM).
    void (*lstm_cell)(const float *gates, const float *bias, ptrdiff_t count, float *cell, float *hidden);

    // int8 products (the engine's int8 compute type): int8 values times a per-row step (the float one unit stands
    // for), exact int32 sums, so every build gives the same results.

    /// Quantizes each of `rows` rows of `cols` floats (rows `ldx` apart) to integers with its own step:
    /// step = 1 / (limit / max|x|) (1 for a zero row), q = x · (limit / max|x|) rounded to nearest even, clamped to
    /// ±limit (the engine passes 127), and stores q + offset as a byte (0 for signed bytes, 128 for the unsigned
    /// bytes of u8·s8 products).
    void (*quantize_rows)(const float *x, ptrdiff_t rows, ptrdiff_t cols, ptrdiff_t ldx, int8_t *q, ptrdiff_t ldq,
                          float *steps, int limit, int offset);
    /// c[r, o] = alpha · (Σₖ a[r, k] · b[o, k]) · a_steps[r] · b_steps[o] + beta · c[r, o] for r < m (1…8),
    /// first ≤ o < last; a and b int8 (|value| ≤ 127), b [out, in]. b_sums is unused (the VNNI kernel's signature).
    void (*skinny_i8)(ptrdiff_t first, ptrdiff_t last, int m, ptrdiff_t k, const int8_t *a, ptrdiff_t lda,
                      const float *a_steps, const int8_t *b, ptrdiff_t ldb, const float *b_steps,
                      const int32_t *b_sums, float *c, ptrdiff_t ldc, float alpha, float beta);
    /// y[r, o] = c[r, o] · a_steps[r] · b_steps[o] (+ y[r, o] with `accumulate`) (+ bias[o] when bias is not NULL).
    void (*dequantize_rows)(const int32_t *c, ptrdiff_t rows, ptrdiff_t cols, ptrdiff_t ldc, const float *a_steps,
                            const float *b_steps, const float *_Nullable bias, float *y, ptrdiff_t ldy, int accumulate);
} ck_kernels;

#if defined(__x86_64__)
/// skinny_i8 with AVX-512 VNNI (`vpdpbusd`, unsigned by signed bytes), with the same results: a holds the activations
/// offset by 128 (quantize_rows with limit 127 and offset 128), and b_sums[o] = Σₖ b[o, k] takes the offset back out. Only for CPUs
/// with avx512_vnni besides the AVX-512 level's extensions.
void ck_skinny_i8_vnni(ptrdiff_t first, ptrdiff_t last, int m, ptrdiff_t k, const uint8_t *a, ptrdiff_t lda,
                       const float *a_steps, const int8_t *b, ptrdiff_t ldb, const float *b_steps,
                       const int32_t *b_sums, float *c, ptrdiff_t ldc, float alpha, float beta);

/// The softmax of int32 attention scores, quantized for a u8·s8 product with the values: for each row, x[j] =
/// sums[j] · row_steps[r] · col_steps[j] · scale, e[j] = exp(x[j] − max x), weights[j] = round(255 · e[j]) and
/// weight_steps[r] = 1 / (255 · Σ e), so that weights · weight_steps is the softmax. `scratch` holds `cols` floats.
/// AVX-512 (the int8 attention runs only with VNNI).
void ck_softmax_to_u8(const int32_t *sums, ptrdiff_t rows, ptrdiff_t cols, ptrdiff_t lds, const float *row_steps,
                      const float *col_steps, float scale, float *scratch, uint8_t *weights, ptrdiff_t ldw,
                      float *weight_steps);

/// Quantizes each column of x [rows × cols] to int8 with its own step: step = max|column| / 127 (1 for a zero
/// column), q = x / step rounded to nearest even, clamped to ±127. AVX-512.
void ck_quantize_columns(const float *x, ptrdiff_t rows, ptrdiff_t cols, ptrdiff_t ldx, int8_t *q, ptrdiff_t ldq,
                         float *steps);
#endif

/// The table built for `level`, or for the highest lower level this architecture has (the baseline on aarch64).
/// The caller makes sure the CPU has the level's instructions.
const ck_kernels *ck_select(int level);

/// The highest CK_LEVEL_… whose instructions this CPU and operating system support, from the compiler's CPU checks
/// (the rule of AuralWhisper's `CPUFeatures.level(flags:)`, for modules that cannot import AuralWhisper, such as
/// AuralVAD; it does not read `AURALKIT_CPU_LEVEL`).
int ck_supported_level(void);

/// CPUs in the calling thread's affinity mask (`sched_getaffinity`), or 0 when it cannot be read.
int ck_affinity_cpu_count(void);

#pragma clang assume_nonnull end

#endif
