#include "resample_kernels.h"

#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#define HAVE_X86 1
#endif

static inline uint8_t clip8(int32_t sum, int bits) {
    int32_t v = sum >> bits;
    return v < 0 ? 0 : v > 255 ? 255 : (uint8_t)v;
}

/* Inlined per channel count, so that count is a constant and the channel loops unroll. */
static inline __attribute__((always_inline))
void row_scalar_n(const uint8_t *src, uint8_t *dst, const int ch, const int32_t *first,
                  const int32_t *count, const int32_t *coeffs, int taps, int x0, int x1, int bits) {
    const int32_t half = 1 << (bits - 1);
    for (int x = x0; x < x1; x++) {
        const uint8_t *p = src + (size_t)first[x] * ch;
        const int32_t *k = coeffs + (size_t)x * taps;
        int32_t s[4] = {half, half, half, half};
        for (int t = 0; t < count[x]; t++)
            for (int c = 0; c < ch; c++)
                s[c] += (int32_t)p[t * ch + c] * k[t];
        for (int c = 0; c < ch; c++)
            dst[(size_t)x * ch + c] = clip8(s[c], bits);
    }
}

static void row_scalar(const uint8_t *src, uint8_t *dst, int ch, const int32_t *first,
                       const int32_t *count, const int32_t *coeffs, int taps, int x0, int x1, int bits) {
    switch (ch) {
    case 1: row_scalar_n(src, dst, 1, first, count, coeffs, taps, x0, x1, bits); break;
    case 2: row_scalar_n(src, dst, 2, first, count, coeffs, taps, x0, x1, bits); break;
    case 3: row_scalar_n(src, dst, 3, first, count, coeffs, taps, x0, x1, bits); break;
    default: row_scalar_n(src, dst, 4, first, count, coeffs, taps, x0, x1, bits); break;
    }
}

/* Bytes `from ..< row_bytes` of one vertical-pass output row. */
static void column_scalar(const uint8_t *const *rows, size_t from, size_t row_bytes, int count,
                          const int32_t *weights, uint8_t *dst, int bits) {
    for (size_t i = from; i < row_bytes; i++) {
        int32_t s = 1 << (bits - 1);
        for (int t = 0; t < count; t++) s += (int32_t)rows[t][i] * weights[t];
        dst[i] = clip8(s, bits);
    }
}

/* Pixels `from ..< pixels`, copied from src to dst with the colour premultiplied. */
static void premultiply_scalar(const uint8_t *src, uint8_t *dst, size_t from, size_t pixels, int ch) {
    for (size_t i = from; i < pixels; i++) {
        const uint8_t *p = src + i * ch;
        uint8_t *q = dst + i * ch;
        const uint32_t a = p[ch - 1];
        for (int c = 0; c < ch - 1; c++) {
            const uint32_t t = (uint32_t)p[c] * a + 128;
            q[c] = (uint8_t)((t + (t >> 8)) >> 8);
        }
        q[ch - 1] = (uint8_t)a;
    }
}

#ifdef HAVE_X86
/* The low `ch` (3 or 4) bytes of `pixel`, in sizes the compiler stores inline (a
 * memcpy of a variable size is a call per pixel). */
static inline void store_pixel(uint8_t *dst, int32_t pixel, int ch) {
    if (ch == 4) {
        memcpy(dst, &pixel, 4);
    } else {
        memcpy(dst, &pixel, 2);
        dst[2] = (uint8_t)(pixel >> 16);
    }
}

/* Two taps per step: 8 source bytes widened to eight 32-bit lanes (RGB is first
 * spread to R G B 0 R G B 0), times each tap's weight in its four lanes. */
__attribute__((target("avx2")))
static void row_avx2(const uint8_t *src, size_t src_bytes, uint8_t *dst, int ch, const int32_t *first,
                     const int32_t *count, const int32_t *coeffs, int taps, int out_size, int bits) {
    const __m128i spread = ch == 3 ? _mm_setr_epi8(0, 1, 2, -1, 3, 4, 5, -1, -1, -1, -1, -1, -1, -1, -1, -1)
                                   : _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, -1, -1, -1, -1, -1, -1, -1, -1);
    const __m128i half = _mm_set1_epi32(1 << (bits - 1));
    for (int x = 0; x < out_size; x++) {
        const int n = count[x];
        /* The last 8-byte load of an RGB window reads 2 bytes past it. */
        if ((size_t)(first[x] + n) * ch + 2 > src_bytes) {
            row_scalar(src, dst, ch, first, count, coeffs, taps, x, x + 1, bits);
            continue;
        }
        const uint8_t *p = src + (size_t)first[x] * ch;
        const int32_t *k = coeffs + (size_t)x * taps;
        __m256i acc = _mm256_setzero_si256();
        int t = 0;
        for (; t + 2 <= n; t += 2) {
            __m128i bytes = _mm_shuffle_epi8(_mm_loadl_epi64((const __m128i *)(p + t * ch)), spread);
            __m256i w = _mm256_setr_m128i(_mm_set1_epi32(k[t]), _mm_set1_epi32(k[t + 1]));
            acc = _mm256_add_epi32(acc, _mm256_mullo_epi32(_mm256_cvtepu8_epi32(bytes), w));
        }
        __m128i sum = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
        if (t < n) {
            int32_t four;
            memcpy(&four, p + t * ch, 4);
            __m128i bytes = _mm_shuffle_epi8(_mm_cvtsi32_si128(four), spread);
            sum = _mm_add_epi32(sum, _mm_mullo_epi32(_mm_cvtepu8_epi32(bytes), _mm_set1_epi32(k[t])));
        }
        sum = _mm_srai_epi32(_mm_add_epi32(sum, half), bits);
        /* Signed then unsigned saturation: exactly the clamp to 0-255. */
        store_pixel(dst + (size_t)x * ch, _mm_cvtsi128_si32(_mm_packus_epi16(_mm_packs_epi32(sum, sum), sum)), ch);
    }
}

/* Two output pixels at once, one per 128-bit lane, two taps per step, with 16-bit
 * multiply-adds: a lane holds its pixel's two source pixels' channels side by side
 * (c of tap t, c of tap t+1), so one madd gives each channel's two products summed, and
 * at the end each lane holds its output pixel's four sums - no reduction across lanes.
 * Weights are split as w = hi * 2^15 + lo (see resample_pack_row_weights), both halves
 * fit 16 bits, and lo-sum + (hi-sum << 15) is the very integer the 32-bit kernels add. */
__attribute__((target("avx2")))
static void row_madd_avx2(const uint8_t *src, size_t src_bytes, uint8_t *dst, int ch, const int32_t *first,
                          const int32_t *count, const int32_t *coeffs, const int32_t *packed, int taps,
                          int out_size, int bits) {
    const int pairs = (taps + 1) / 2;
    const __m256i spread = ch == 3
        ? _mm256_setr_epi8(0, -1, 3, -1, 1, -1, 4, -1, 2, -1, 5, -1, -1, -1, -1, -1,
                           0, -1, 3, -1, 1, -1, 4, -1, 2, -1, 5, -1, -1, -1, -1, -1)
        : _mm256_setr_epi8(0, -1, 4, -1, 1, -1, 5, -1, 2, -1, 6, -1, 3, -1, 7, -1,
                           0, -1, 4, -1, 1, -1, 5, -1, 2, -1, 6, -1, 3, -1, 7, -1);
    const __m256i half = _mm256_set1_epi32(1 << (bits - 1));
    int x = 0;
    for (; x + 2 <= out_size; x += 2) {
        const int a = (count[x] + 1) / 2, b = (count[x + 1] + 1) / 2;
        const int used = a > b ? a : b;
        /* Each step loads 8 bytes per pixel; past a window the weights are zero, but no
         * load may pass the row's end. */
        const size_t reach = (size_t)(used - 1) * 2 * ch + 8;
        if ((size_t)first[x] * ch + reach > src_bytes || (size_t)first[x + 1] * ch + reach > src_bytes) {
            row_scalar(src, dst, ch, first, count, coeffs, taps, x, x + 2, bits);
            continue;
        }
        const uint8_t *p = src + (size_t)first[x] * ch, *q = src + (size_t)first[x + 1] * ch;
        const __m256i *w = (const __m256i *)(packed + (size_t)(x / 2) * pairs * 16);
        __m256i lo = _mm256_setzero_si256(), hi = _mm256_setzero_si256();
        for (int k = 0; k < used; k++, p += 2 * ch, q += 2 * ch, w += 2) {
            __m256i two = _mm256_setr_m128i(_mm_loadl_epi64((const __m128i *)p), _mm_loadl_epi64((const __m128i *)q));
            __m256i px = _mm256_shuffle_epi8(two, spread);
            lo = _mm256_add_epi32(lo, _mm256_madd_epi16(px, _mm256_loadu_si256(w)));
            hi = _mm256_add_epi32(hi, _mm256_madd_epi16(px, _mm256_loadu_si256(w + 1)));
        }
        __m256i sum = _mm256_srai_epi32(_mm256_add_epi32(_mm256_add_epi32(lo, _mm256_slli_epi32(hi, 15)), half), bits);
        /* Signed then unsigned saturation, within each lane: exactly the clamp to 0-255. */
        __m256i bytes = _mm256_packus_epi16(_mm256_packs_epi32(sum, sum), sum);
        store_pixel(dst + (size_t)x * ch, _mm_cvtsi128_si32(_mm256_castsi256_si128(bytes)), ch);
        store_pixel(dst + (size_t)(x + 1) * ch, _mm_cvtsi128_si32(_mm256_extracti128_si256(bytes, 1)), ch);
    }
    if (x < out_size) row_scalar(src, dst, ch, first, count, coeffs, taps, x, out_size, bits);
}

/* Four output pixels at once, two taps per step, with the same split weights as
 * row_madd_avx2, in a 512-bit register whose 128-bit lane c holds channel c and whose
 * 32-bit slot j in each lane holds output pixel j: (c of tap t, c of tap t + 1) as two
 * 16-bit words. So one 16-byte vector of the four pixels' weight pairs, broadcast to the
 * four lanes by the load itself, serves every channel, and the table stays small enough
 * for L1 (weights copied per channel did not: a 3000 -> 800 row streamed 140 KB of them).
 * One 64-byte load per step covers all four pixels' source bytes, or two where the windows
 * spread further (RGBA shrunk past 4.6x, RGB past 6x; the pack chose which), and a byte
 * permute (VBMI), the group's, the same at every step as the four windows move together,
 * places them; the VNNI multiply-add sums. Every group takes (taps + 1) / 2 steps: past a
 * window its weights are zero. Steps alternate between two pairs of sums, so each
 * multiply-add waits on the one two steps back, not the last (whose latency bounded the
 * loop). Near the row's end the loads are masked, so no byte past src_bytes is read. */
static inline __attribute__((always_inline, target("avx512f,avx512bw,avx512vl,avx512vbmi,avx512vnni")))
__m512i quad_step(const uint8_t *src, size_t src_bytes, size_t from, __m512i index, __mmask64 keep, int wide, int near_end) {
    if (!near_end) {
        const __m512i a = _mm512_loadu_si512((const void *)(src + from));
        return wide ? _mm512_maskz_permutex2var_epi8(keep, a, index, _mm512_loadu_si512((const void *)(src + from + 64)))
                    : _mm512_maskz_permutexvar_epi8(keep, index, a);
    }
    const size_t left = from < src_bytes ? src_bytes - from : 0;
    const __mmask64 valid = left >= 64 ? ~0ULL : (1ULL << left) - 1;
    const __m512i a = _mm512_maskz_loadu_epi8(valid, (const void *)(src + (left ? from : 0)));
    if (!wide) return _mm512_maskz_permutexvar_epi8(keep, index, a);
    const size_t beyond = left > 64 ? left - 64 : 0;
    const __mmask64 more = beyond >= 64 ? ~0ULL : (1ULL << beyond) - 1;
    const __m512i b = _mm512_maskz_loadu_epi8(more, (const void *)(src + (beyond ? from + 64 : 0)));
    return _mm512_maskz_permutex2var_epi8(keep, a, index, b);
}

/* A group of four's output: each lane's four sums (channel c of pixels x .. x + 3, without
 * the half unit) rounded, clamped to 0-255 and stored as the group's `n` pixels. */
static inline __attribute__((always_inline, target("avx512f,avx512bw,avx512vl,avx512vbmi,avx512vnni")))
void store_quad(uint8_t *dst, int x, int n, int ch, __m512i sums, int bits) {
    /* Channel-major bytes (c * 4 + j) back to pixels (j * ch + c). */
    const __m128i interleave = ch == 3 ? _mm_setr_epi8(0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11, -1, -1, -1, -1)
                                       : _mm_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    const __m512i sum = _mm512_srai_epi32(_mm512_add_epi32(sums, _mm512_set1_epi32(1 << (bits - 1))), bits);
    /* Negative sums to 0, then unsigned saturation: exactly the clamp to 0-255. */
    const __m128i bytes = _mm_shuffle_epi8(_mm512_cvtusepi32_epi8(_mm512_max_epi32(sum, _mm512_setzero_si512())), interleave);
    _mm_mask_storeu_epi8(dst + (size_t)x * ch, (__mmask16)((1u << (ch * n)) - 1), bytes);
}

static inline __attribute__((always_inline, target("avx512f,avx512bw,avx512vl,avx512vbmi,avx512vnni")))
void row_quads(const uint8_t *src, size_t src_bytes, uint8_t *dst, int ch, const int32_t *first,
               const int32_t *packed, int taps, int out_size, int bits, int wide) {
    const int pairs = (taps + 1) / 2;
    /* The permute fills the low byte of each 16-bit word (see quad_index); the high
     * bytes, and RGB's fourth lane, are zeroed by the mask. */
    const __mmask64 keep = ch == 3 ? 0x0000555555555555ULL : 0x5555555555555555ULL;
    const size_t step = 2 * (size_t)ch;
    const size_t group = 16 + (size_t)pairs * 8;
    const size_t reach = step * (size_t)(pairs - 1) + (wide ? 128 : 64);
    for (int x = 0; x < out_size; x += 4) {
        const int n = out_size - x < 4 ? out_size - x : 4;
        const int32_t *g = packed + (size_t)(x / 4) * group;
        const __m512i index = _mm512_loadu_si512((const void *)g);
        const size_t at = (size_t)first[x] * ch;
        const __m128i *w = (const __m128i *)(g + 16);
        __m512i lo0 = _mm512_setzero_si512(), hi0 = lo0, lo1 = lo0, hi1 = lo0;
        int k = 0;
        /* Two copies of the loop, so the usual one has no test for the row's end. */
#define QUAD_STEPS(near_end) \
        for (; k + 2 <= pairs; k += 2, w += 4) { \
            const __m512i p0 = quad_step(src, src_bytes, at + step * (size_t)k, index, keep, wide, near_end); \
            const __m512i p1 = quad_step(src, src_bytes, at + step * (size_t)(k + 1), index, keep, wide, near_end); \
            lo0 = _mm512_dpwssd_epi32(lo0, p0, _mm512_broadcast_i32x4(_mm_loadu_si128(w))); \
            hi0 = _mm512_dpwssd_epi32(hi0, p0, _mm512_broadcast_i32x4(_mm_loadu_si128(w + 1))); \
            lo1 = _mm512_dpwssd_epi32(lo1, p1, _mm512_broadcast_i32x4(_mm_loadu_si128(w + 2))); \
            hi1 = _mm512_dpwssd_epi32(hi1, p1, _mm512_broadcast_i32x4(_mm_loadu_si128(w + 3))); \
        } \
        if (k < pairs) { \
            const __m512i p0 = quad_step(src, src_bytes, at + step * (size_t)k, index, keep, wide, near_end); \
            lo0 = _mm512_dpwssd_epi32(lo0, p0, _mm512_broadcast_i32x4(_mm_loadu_si128(w))); \
            hi0 = _mm512_dpwssd_epi32(hi0, p0, _mm512_broadcast_i32x4(_mm_loadu_si128(w + 1))); \
        }
        if (at + reach <= src_bytes) {
            QUAD_STEPS(0)
        } else {
            QUAD_STEPS(1)
        }
#undef QUAD_STEPS
        /* Sums wrap the same in any order, and the true total fits 32 bits. */
        const __m512i lo = _mm512_add_epi32(lo0, lo1), hi = _mm512_add_epi32(hi0, hi1);
        store_quad(dst, x, n, ch, _mm512_add_epi32(lo, _mm512_slli_epi32(hi, 15)), bits);
    }
}

__attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi,avx512vnni")))
static void row_quads_avx512(const uint8_t *src, size_t src_bytes, uint8_t *dst, int ch, const int32_t *first,
                             const int32_t *packed, int taps, int out_size, int bits, int wide) {
    if (wide) row_quads(src, src_bytes, dst, ch, first, packed, taps, out_size, bits, 1);
    else row_quads(src, src_bytes, dst, ch, first, packed, taps, out_size, bits, 0);
}

/* One step's 64 source bytes for a group of four in bytes, placed by the group's permute:
 * from one 64-byte window at base[0] + off, one of 128 (two registers, a two-source
 * permute), two of 32 (window 32: pixels 0-1's at base[0] and pixels 2-3's at base[2], in
 * one register's halves - a one-source permute, where the two-source one costs three
 * times as much on Intel cores), or four of 16 (window 16: each pixel's own, in a 128-bit
 * lane, for windows too far apart for the others). Near the row's end the loads are masked. */
static inline __attribute__((always_inline, target("avx512f,avx512bw,avx512vl,avx512vbmi,avx512vnni")))
__m512i byte_step(const uint8_t *src, size_t src_bytes, const size_t *base, size_t off, __m512i index, __mmask64 keep, int window,
                  int near_end) {
    if (window == 64 || window == 128) return quad_step(src, src_bytes, base[0] + off, index, keep, window == 128, near_end);
    if (window == 32) {
        const size_t from = base[0] + off, from2 = base[2] + off;
        __m256i lo, hi;
        if (!near_end) {
            lo = _mm256_loadu_si256((const __m256i *)(src + from));
            hi = _mm256_loadu_si256((const __m256i *)(src + from2));
        } else {
            const size_t left = from < src_bytes ? src_bytes - from : 0, left2 = from2 < src_bytes ? src_bytes - from2 : 0;
            lo = _mm256_maskz_loadu_epi8(left >= 32 ? ~0U : (1U << left) - 1, (const void *)(src + (left ? from : 0)));
            hi = _mm256_maskz_loadu_epi8(left2 >= 32 ? ~0U : (1U << left2) - 1, (const void *)(src + (left2 ? from2 : 0)));
        }
        return _mm512_maskz_permutexvar_epi8(keep, index, _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1));
    }
    __m128i lane[4];
    for (int j = 0; j < 4; j++) {
        const size_t from = base[j] + off;
        if (!near_end) {
            lane[j] = _mm_loadu_si128((const __m128i *)(src + from));
        } else {
            const size_t left = from < src_bytes ? src_bytes - from : 0;
            lane[j] = _mm_maskz_loadu_epi8(left >= 16 ? 0xFFFF : (__mmask16)((1U << left) - 1), (const void *)(src + (left ? from : 0)));
        }
    }
    __m512i v = _mm512_castsi128_si512(lane[0]);
    v = _mm512_inserti32x4(v, lane[1], 1);
    v = _mm512_inserti32x4(v, lane[2], 2);
    v = _mm512_inserti32x4(v, lane[3], 3);
    return _mm512_maskz_permutexvar_epi8(keep, index, v);
}

/* Four output pixels and four taps per step: the layout of row_quads, with bytes where it
 * has words. Lane c, 32-bit slot j holds channel c of taps t .. t + 3 of pixel j, four
 * bytes, and each weight is split in three 7-bit parts, w = a * 2^14 + b * 2^7 + c with b
 * and c in 0-127 and a signed (the pack checks it fits a byte: any shrink past about 2x),
 * so one VNNI unsigned-by-signed byte multiply-add per part sums four taps' products:
 * three per four taps where the word kernel takes four, and half its permutes and loads.
 * A * 2^14 + B * 2^7 + C is the very integer the 32-bit kernels add.
 *
 * `rows` (1 or 2) rows at once, `src2` and `dst2` the second: the group's permute and
 * weights, loaded once, serve both (the weights of a row, about 100 KB at a 6x shrink,
 * come from L2 - per row that was a third of the time). Two rows' sums alternate steps
 * with one, so each multiply-add waits on the one two steps back, not the last. */
static inline __attribute__((always_inline, target("avx512f,avx512bw,avx512vl,avx512vbmi,avx512vnni")))
void row_quad_bytes(const uint8_t *src, const uint8_t *src2, size_t src_bytes, uint8_t *dst, uint8_t *dst2, int ch,
                    const int32_t *first, const int32_t *packed, int taps, int out_size, int bits, int window, int rows,
                    const uint8_t *ahead, size_t ahead_bytes) {
    const int steps = (taps + 3) / 4;
    const __mmask64 keep = ch == 3 ? 0x0000FFFFFFFFFFFFULL : ~0ULL;
    const size_t step = 4 * (size_t)ch;
    const size_t group = 16 + (size_t)steps * 12;
    /* Cache lines of `ahead` to ask for per group, spread over the row. */
    const size_t lines = (ahead_bytes + 63) / 64, groups = (size_t)(out_size + 3) / 4, per = (lines + groups - 1) / groups;
    size_t fetched = 0;
    for (int x = 0; x < out_size; x += 4) {
        const int n = out_size - x < 4 ? out_size - x : 4;
        for (size_t i = 0; i < per && fetched < lines; i++, fetched++) _mm_prefetch((const char *)ahead + fetched * 64, _MM_HINT_T0);
        const int32_t *g = packed + (size_t)(x / 4) * group;
        const __m512i index = _mm512_loadu_si512((const void *)g);
        /* Where each load starts (window 32: base[0] and base[2]; 16: all four); a partial
         * group's missing pixels read its first pixel's bytes, with weights zero. */
        size_t base[4], last = 0;
        for (int j = 0; j < 4; j++) {
            base[j] = (size_t)first[j < n ? x + j : x] * ch;
            if (base[j] > last) last = base[j];
        }
        /* The furthest any load reaches: from the last-starting lane's start with four
         * lanes (in a partial group not lane 3), from pixel 2's with two windows. */
        const size_t reach = (window == 16 ? last : window == 32 ? base[2] : base[0]) + step * (size_t)(steps - 1) + (size_t)window;
        const __m128i *w = (const __m128i *)(g + 16);
        __m512i a0 = _mm512_setzero_si512(), b0 = a0, c0 = a0, a1 = a0, b1 = a0, c1 = a0;
        __m512i d0 = a0, e0 = a0, f0 = a0, d1 = a0, e1 = a0, f1 = a0;
        int k = 0;
#define BYTE_PART(acc, p, i) acc = _mm512_dpbusd_epi32(acc, p, _mm512_broadcast_i32x4(_mm_loadu_si128(w + (i))))
#define BYTE_STEPS(near_end) \
        if (rows == 2) { \
            for (; k < steps; k++, w += 3) { \
                const __m512i p = byte_step(src, src_bytes, base, step * (size_t)k, index, keep, window, near_end); \
                const __m512i q = byte_step(src2, src_bytes, base, step * (size_t)k, index, keep, window, near_end); \
                const __m512i wc = _mm512_broadcast_i32x4(_mm_loadu_si128(w)), wb = _mm512_broadcast_i32x4(_mm_loadu_si128(w + 1)); \
                const __m512i wa = _mm512_broadcast_i32x4(_mm_loadu_si128(w + 2)); \
                if (k & 1) { \
                    c1 = _mm512_dpbusd_epi32(c1, p, wc); b1 = _mm512_dpbusd_epi32(b1, p, wb); a1 = _mm512_dpbusd_epi32(a1, p, wa); \
                    f1 = _mm512_dpbusd_epi32(f1, q, wc); e1 = _mm512_dpbusd_epi32(e1, q, wb); d1 = _mm512_dpbusd_epi32(d1, q, wa); \
                } else { \
                    c0 = _mm512_dpbusd_epi32(c0, p, wc); b0 = _mm512_dpbusd_epi32(b0, p, wb); a0 = _mm512_dpbusd_epi32(a0, p, wa); \
                    f0 = _mm512_dpbusd_epi32(f0, q, wc); e0 = _mm512_dpbusd_epi32(e0, q, wb); d0 = _mm512_dpbusd_epi32(d0, q, wa); \
                } \
            } \
        } else { \
            for (; k + 2 <= steps; k += 2, w += 6) { \
                const __m512i p0 = byte_step(src, src_bytes, base, step * (size_t)k, index, keep, window, near_end); \
                const __m512i p1 = byte_step(src, src_bytes, base, step * (size_t)(k + 1), index, keep, window, near_end); \
                BYTE_PART(c0, p0, 0); BYTE_PART(b0, p0, 1); BYTE_PART(a0, p0, 2); \
                BYTE_PART(c1, p1, 3); BYTE_PART(b1, p1, 4); BYTE_PART(a1, p1, 5); \
            } \
            if (k < steps) { \
                const __m512i p0 = byte_step(src, src_bytes, base, step * (size_t)k, index, keep, window, near_end); \
                BYTE_PART(c0, p0, 0); BYTE_PART(b0, p0, 1); BYTE_PART(a0, p0, 2); \
            } \
        }
        if (reach <= src_bytes) {
            BYTE_STEPS(0)
        } else {
            BYTE_STEPS(1)
        }
#undef BYTE_STEPS
#undef BYTE_PART
        const __m512i a = _mm512_slli_epi32(_mm512_add_epi32(a0, a1), 14), b = _mm512_slli_epi32(_mm512_add_epi32(b0, b1), 7);
        store_quad(dst, x, n, ch, _mm512_add_epi32(_mm512_add_epi32(a, b), _mm512_add_epi32(c0, c1)), bits);
        if (rows == 2) {
            const __m512i d = _mm512_slli_epi32(_mm512_add_epi32(d0, d1), 14), e = _mm512_slli_epi32(_mm512_add_epi32(e0, e1), 7);
            store_quad(dst2, x, n, ch, _mm512_add_epi32(_mm512_add_epi32(d, e), _mm512_add_epi32(f0, f1)), bits);
        }
    }
}

/* Each window and row count its own copy, so that in each the choices are constants. */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi,avx512vnni")))
static void row_quad_bytes_avx512(const uint8_t *src, const uint8_t *src2, size_t src_bytes, uint8_t *dst, uint8_t *dst2, int ch,
                                  const int32_t *first, const int32_t *packed, int taps, int out_size, int bits, int window,
                                  const uint8_t *ahead, size_t ahead_bytes) {
#define BYTE_ROWS(w) \
    if (src2) row_quad_bytes(src, src2, src_bytes, dst, dst2, ch, first, packed, taps, out_size, bits, w, 2, ahead, ahead_bytes); \
    else row_quad_bytes(src, NULL, src_bytes, dst, NULL, ch, first, packed, taps, out_size, bits, w, 1, ahead, ahead_bytes);
    if (window == 32) {
        BYTE_ROWS(32)
    } else if (window == 16) {
        BYTE_ROWS(16)
    } else if (window == 128) {
        BYTE_ROWS(128)
    } else {
        BYTE_ROWS(64)
    }
#undef BYTE_ROWS
}

__attribute__((target("avx2")))
static void column_avx2(const uint8_t *const *rows, size_t row_bytes, int count,
                        const int32_t *weights, uint8_t *dst, int bits) {
    const __m256i half = _mm256_set1_epi32(1 << (bits - 1));
    size_t i = 0;
    for (; i + 16 <= row_bytes; i += 16) {
        __m256i lo = half, hi = half;
        for (int t = 0; t < count; t++) {
            __m128i bytes = _mm_loadu_si128((const __m128i *)(rows[t] + i));
            __m256i w = _mm256_set1_epi32(weights[t]);
            lo = _mm256_add_epi32(lo, _mm256_mullo_epi32(_mm256_cvtepu8_epi32(bytes), w));
            hi = _mm256_add_epi32(hi, _mm256_mullo_epi32(_mm256_cvtepu8_epi32(_mm_srli_si128(bytes, 8)), w));
        }
        lo = _mm256_srai_epi32(lo, bits);
        hi = _mm256_srai_epi32(hi, bits);
        /* The packs work within 128-bit lanes; the permute puts the bytes back in order. */
        __m256i words = _mm256_permute4x64_epi64(_mm256_packs_epi32(lo, hi), 0xD8);
        __m128i out = _mm_packus_epi16(_mm256_castsi256_si128(words), _mm256_extracti128_si256(words, 1));
        _mm_storeu_si128((__m128i *)(dst + i), out);
    }
    column_scalar(rows, i, row_bytes, count, weights, dst, bits);
}

/* Copies `pixels` pixels of `ch` (2 or 4) channels, alpha last, premultiplying the colour,
 * eight or sixteen at a time: every byte the same as premultiply_scalar's. Each 16-bit
 * word is round(v * a / 255) = (t + (t >> 8)) >> 8 with t = v * a + 128, below 2^16.
 * `alpha` picks each byte's pixel's alpha within a 128-bit lane, and alpha's own byte
 * is multiplied by 255, which the formula returns unchanged. */
__attribute__((target("avx2")))
static size_t premultiply_avx2(const uint8_t *src, uint8_t *dst, size_t pixels, int ch) {
    const __m256i alpha = ch == 4 ? _mm256_setr_epi8(3, 3, 3, 3, 7, 7, 7, 7, 11, 11, 11, 11, 15, 15, 15, 15,
                                                     3, 3, 3, 3, 7, 7, 7, 7, 11, 11, 11, 11, 15, 15, 15, 15)
                                  : _mm256_setr_epi8(1, 1, 3, 3, 5, 5, 7, 7, 9, 9, 11, 11, 13, 13, 15, 15,
                                                     1, 1, 3, 3, 5, 5, 7, 7, 9, 9, 11, 11, 13, 13, 15, 15);
    const __m256i own = ch == 4 ? _mm256_set1_epi32((int)0xFF000000) : _mm256_set1_epi16((short)0xFF00);
    const __m256i zero = _mm256_setzero_si256(), half = _mm256_set1_epi16(128), k257 = _mm256_set1_epi16(257);
    const size_t step = 32 / (size_t)ch;
    size_t i = 0;
    for (; i + step <= pixels; i += step) {
        /* The hardware prefetcher here left this loop waiting on memory for two thirds of
         * its time (13 ms for a 16 Mpx image, 4.4 from a row in cache); a prefetch 4 KB
         * ahead (it never faults, past the row too) takes it to 4.6. */
        _mm_prefetch((const char *)(src + i * ch) + 4096, _MM_HINT_T0);
        const __m256i v = _mm256_loadu_si256((const __m256i *)(src + i * ch));
        const __m256i a = _mm256_or_si256(_mm256_shuffle_epi8(v, alpha), own);
        __m256i t[2] = {_mm256_add_epi16(_mm256_mullo_epi16(_mm256_unpacklo_epi8(v, zero), _mm256_unpacklo_epi8(a, zero)), half),
                        _mm256_add_epi16(_mm256_mullo_epi16(_mm256_unpackhi_epi8(v, zero), _mm256_unpackhi_epi8(a, zero)), half)};
        /* (t + (t >> 8)) >> 8 is (t * 257) >> 16 for t below 2^16: one high multiply. */
        for (int h = 0; h < 2; h++) t[h] = _mm256_mulhi_epu16(t[h], k257);
        _mm256_storeu_si256((__m256i *)(dst + i * ch), _mm256_packus_epi16(t[0], t[1]));
    }
    return i;
}

/* round(p / 255) of 16-bit products p = v * a: (t * 257) >> 16 with t = p + 128. (In
 * shifts and adds, (t + (t >> 8)) >> 8, it was slower here.) */
static inline __attribute__((always_inline, target("avx512f,avx512bw")))
__m512i round255(__m512i p) {
    return _mm512_mulhi_epu16(_mm512_add_epi16(p, _mm512_set1_epi16(128)), _mm512_set1_epi16(257));
}

/* premultiply_avx2's arithmetic, 64 bytes a step, without its unpacking: the even and odd
 * bytes are taken as 16-bit words by a mask and a shift, multiplied in place and put back
 * with a shift and an or, and the alpha bytes restored by a blend. Fewer instructions a
 * byte than the AVX2 loop, whose unpacks and pack were most of its work: 16 Mpx RGBA a
 * row at a time from cache, 2.2 ms -> 1.8, the same bytes. */
__attribute__((target("avx512f,avx512bw")))
static size_t premultiply_avx512(const uint8_t *src, uint8_t *dst, size_t pixels, int ch) {
    const __m512i low = _mm512_set1_epi16(0x00FF);
    /* Each pixel's alpha as the 16-bit word over each of its colour words. */
    const __m512i spread = ch == 4 ? _mm512_set4_epi32(0x800F800F, 0x800B800B, 0x80078007, 0x80038003) : _mm512_set1_epi16(0);
    const __mmask64 alpha = ch == 4 ? 0x8888888888888888ULL : 0xAAAAAAAAAAAAAAAAULL;
    const size_t step = 64 / (size_t)ch;
    size_t i = 0;
    for (; i + step <= pixels; i += step) {
        /* As premultiply_avx2's: for rows nobody fetched ahead (a chunk's first). */
        _mm_prefetch((const char *)(src + i * ch) + 4096, _MM_HINT_T0);
        const __m512i v = _mm512_loadu_si512((const void *)(src + i * ch));
        const __m512i a = ch == 4 ? _mm512_shuffle_epi8(v, spread) : _mm512_srli_epi16(v, 8);
        const __m512i even = round255(_mm512_mullo_epi16(_mm512_and_si512(v, low), a));
        __m512i out = even;
        if (ch == 4) {
            const __m512i odd = round255(_mm512_mullo_epi16(_mm512_srli_epi16(v, 8), a));
            out = _mm512_or_si512(even, _mm512_slli_epi16(odd, 8));
        }
        _mm512_storeu_si512((void *)(dst + i * ch), _mm512_mask_blend_epi8(alpha, out, v));
    }
    return i;
}

/* The vertical pass four rows at a time, where every weight splits as in row_quad_bytes
 * (the caller checked): the four rows' bytes interleaved into 32-bit slots, so each of
 * the three VNNI byte multiply-adds sums four rows' products for 16 outputs. 64 output
 * bytes a step, the last step masked; a missing fourth row is read with weight zero. */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))
static void column_bytes_avx512(const uint8_t *const *rows, size_t row_bytes, int count,
                                const int32_t *weights, uint8_t *dst, int bits) {
    enum { MOST = 64 };
    __m512i parts[MOST / 4][3];
    const uint8_t *quad[MOST];
    const int groups = (count + 3) / 4;
    for (int q = 0; q < groups; q++) {
        uint8_t c[4], b[4];
        int8_t a[4];
        for (int i = 0; i < 4; i++) {
            const int t = 4 * q + i;
            const int32_t w = t < count ? weights[t] : 0;
            const int32_t top = w >= 0 ? w >> 14 : -((-w + 16383) >> 14), rest = w - top * 16384;
            c[i] = (uint8_t)(rest & 127);
            b[i] = (uint8_t)(rest >> 7);
            a[i] = (int8_t)top;
            quad[t] = rows[t < count ? t : 0];
        }
        int32_t cw, bw, aw;
        memcpy(&cw, c, 4);
        memcpy(&bw, b, 4);
        memcpy(&aw, a, 4);
        parts[q][0] = _mm512_set1_epi32(cw);
        parts[q][1] = _mm512_set1_epi32(bw);
        parts[q][2] = _mm512_set1_epi32(aw);
    }
    const __m512i half = _mm512_set1_epi32(1 << (bits - 1));
    for (size_t i = 0; i < row_bytes; i += 64) {
        const size_t left = row_bytes - i;
        const __mmask64 valid = left >= 64 ? ~0ULL : (1ULL << left) - 1;
        __m512i sa[4], sb[4], sc[4];
        for (int j = 0; j < 4; j++) sa[j] = sb[j] = sc[j] = _mm512_setzero_si512();
        for (int q = 0; q < groups; q++) {
            const __m512i r0 = _mm512_maskz_loadu_epi8(valid, quad[4 * q] + i), r1 = _mm512_maskz_loadu_epi8(valid, quad[4 * q + 1] + i);
            const __m512i r2 = _mm512_maskz_loadu_epi8(valid, quad[4 * q + 2] + i), r3 = _mm512_maskz_loadu_epi8(valid, quad[4 * q + 3] + i);
            const __m512i lo01 = _mm512_unpacklo_epi8(r0, r1), hi01 = _mm512_unpackhi_epi8(r0, r1);
            const __m512i lo23 = _mm512_unpacklo_epi8(r2, r3), hi23 = _mm512_unpackhi_epi8(r2, r3);
            const __m512i slot[4] = {_mm512_unpacklo_epi16(lo01, lo23), _mm512_unpackhi_epi16(lo01, lo23),
                                     _mm512_unpacklo_epi16(hi01, hi23), _mm512_unpackhi_epi16(hi01, hi23)};
            for (int j = 0; j < 4; j++) {
                sc[j] = _mm512_dpbusd_epi32(sc[j], slot[j], parts[q][0]);
                sb[j] = _mm512_dpbusd_epi32(sb[j], slot[j], parts[q][1]);
                sa[j] = _mm512_dpbusd_epi32(sa[j], slot[j], parts[q][2]);
            }
        }
        __m512i sum[4];
        for (int j = 0; j < 4; j++)
            sum[j] = _mm512_srai_epi32(_mm512_add_epi32(_mm512_add_epi32(_mm512_slli_epi32(sa[j], 14), _mm512_slli_epi32(sb[j], 7)),
                                                        _mm512_add_epi32(sc[j], half)), bits);
        /* The packs undo the unpacks' order within each lane, saturating to 0-255. */
        const __m512i out = _mm512_packus_epi16(_mm512_packs_epi32(sum[0], sum[1]), _mm512_packs_epi32(sum[2], sum[3]));
        _mm512_mask_storeu_epi8(dst + i, valid, out);
    }
}

/* A load of the CPU feature bits libgcc filled in at startup. */
static inline int has_avx2(void) {
    return __builtin_cpu_supports("avx2");
}

static inline int has_avx512_premultiply(void) {
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
}

static inline int has_avx512_bytes(void) {
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl")
        && __builtin_cpu_supports("avx512vnni");
}

static inline int has_avx512_madd(void) {
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl")
        && __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512vnni");
}
#endif

void resample_row(const uint8_t *src, size_t src_bytes, uint8_t *dst, int channels,
                  const int32_t *first, const int32_t *count, const int32_t *coeffs,
                  int taps, int out_size, int bits) {
#ifdef HAVE_X86
    if (channels >= 3 && has_avx2()) {
        row_avx2(src, src_bytes, dst, channels, first, count, coeffs, taps, out_size, bits);
        return;
    }
#endif
    (void)src_bytes;
    resample_row_portable(src, dst, channels, first, count, coeffs, taps, out_size, bits);
}

/* The packed table starts with a header of 16 int32s (64 bytes, so the vectors after it
 * keep their alignment relative to the start): [0] is the layout, 1 for pairs of pixels
 * (row_madd_avx2), 2 for groups of four (row_quads_avx512) and 3 for groups of four in
 * bytes (row_quad_bytes_avx512); [1] the channels it was made for (the groups' windows
 * depend on them); [2] the groups' window, 64 or 128 bytes, or 32 for two windows of
 * 32 (pixels 0-1's and 2-3's), 16 for four of 16 (one per pixel; both groups of four in
 * bytes only). */
enum { PACK_HEADER = 16, PACK_PAIRS = 1, PACK_QUADS = 2, PACK_QUAD_BYTES = 3 };

size_t resample_packed_count(int taps, int out_size) {
    const size_t pairs = (size_t)((taps + 1) / 2);
    /* Pairs of pixels: 16 int32s per step. Groups of four: a permute of 16, then 8 per
     * step; a partial last group is padded to four. */
    const size_t two = (size_t)((out_size + 1) / 2) * pairs * 16, four = (size_t)((out_size + 3) / 4) * (16 + pairs * 8);
    /* Groups of four in bytes: a permute, then three parts of 4 int32s per four taps. */
    const size_t bytes = (size_t)((out_size + 3) / 4) * (16 + (size_t)((taps + 3) / 4) * 12);
    const size_t most = two > four ? two : four;
    return PACK_HEADER + (most > bytes ? most : bytes);
}

/* A group of four's byte permute: in lane c, 32-bit slot j, the low bytes of the two
 * words take channel c of taps t and t + 1 of pixel j, whose taps start
 * (first[x + j] - first[x]) * ch bytes into the step's window of 64 or 128 bytes. */
static void quad_index(const int32_t *first, int ch, int x, int n, int32_t *out) {
    uint8_t bytes[64] = {0};
    for (int c = 0; c < ch; c++)
        for (int j = 0; j < 4; j++) {
            const int d = j < n ? (first[x + j] - first[x]) * ch : 0;
            bytes[16 * c + 4 * j] = (uint8_t)(d + c);
            bytes[16 * c + 4 * j + 2] = (uint8_t)(d + ch + c);
        }
    memcpy(out, bytes, 64);
}

/* The same for groups of four in bytes: slot j's four bytes take channel c of taps t .. t + 3.
 * With two windows of 32, pixels 2-3 count from pixel 2's start, 32 bytes on; with four of
 * 16, pixel j's bytes are lane j's. */
static void quad_byte_index(const int32_t *first, int ch, int x, int n, int window, int32_t *out) {
    uint8_t bytes[64] = {0};
    for (int c = 0; c < ch; c++)
        for (int j = 0; j < 4; j++) {
            /* The pixel whose load holds pixel j's bytes, and where that load sits. */
            const int from = window == 16 ? j : window == 32 && j >= 2 ? 2 : 0, at = window == 16 ? 16 * j : from * 16;
            const int d = j < n ? (first[x + j] - first[x + from]) * ch : 0;
            for (int t = 0; t < 4; t++) bytes[16 * c + 4 * j + t] = (uint8_t)(at + d + t * ch + c);
        }
    memcpy(out, bytes, 64);
}

#ifdef HAVE_X86
/* Whether every group of four output pixels reads each step of `per_step` taps from one
 * window of `window` bytes: the last pixel's source pixels must end within it. */
static int quads_fit(const int32_t *first, int ch, int out_size, int per_step, int window) {
    for (int x = 0; x < out_size; x += 4) {
        const int last = out_size - x < 4 ? out_size - 1 : x + 3;
        for (int j = x; j <= last; j++)
            if (first[j] < first[x] || (int64_t)(first[j] - first[x]) * ch + per_step * ch > window) return 0;
    }
    return 1;
}

/* Whether every group's pixels 0-1 and 2-3 each read a step of four taps from a window
 * of 32 bytes, starting at pixel 0's and pixel 2's first source pixel. */
static int halves_fit(const int32_t *first, int ch, int out_size) {
    for (int x = 0; x < out_size; x += 4)
        for (int j = x; j < x + 4 && j < out_size; j++) {
            const int from = j - x >= 2 ? x + 2 : x;
            if (first[j] < first[from] || (int64_t)(first[j] - first[from]) * ch + 4 * ch > 32) return 0;
        }
    return 1;
}

/* Whether each pixel's window starts at or after the group's first's (four taps of up to
 * 4 channels always fit a lane of 16 bytes). */
static int lanes_fit(const int32_t *first, int out_size) {
    for (int x = 0; x < out_size; x += 4)
        for (int j = x; j < x + 4 && j < out_size; j++)
            if (first[j] < first[x]) return 0;
    return 1;
}

/* Whether every weight splits into three 7-bit parts with a signed byte on top. */
static int weights_fit_bytes(const int32_t *count, const int32_t *coeffs, int taps, int out_size) {
    for (int x = 0; x < out_size; x++)
        for (int t = 0; t < count[x]; t++) {
            const int32_t w = coeffs[(size_t)x * taps + t];
            if (w < -(1 << 21) || w >= (1 << 21)) return 0;
        }
    return 1;
}
#endif

/* Pixel x's two 16-bit weight halves for taps 2k and 2k + 1, each as a pair in one
 * int32; false when the high half does not fit 16 bits. */
static int split_pair(const int32_t *count, const int32_t *coeffs, int taps, int x, int k, uint32_t *lo, uint32_t *hi) {
    *lo = 0;
    *hi = 0;
    for (int j = 0; j < 2; j++) {
        const int t = 2 * k + j;
        const int32_t w = t < count[x] ? coeffs[(size_t)x * taps + t] : 0;
        /* Floor division: hi carries the sign, lo is 0-32767. */
        const int32_t h = w >= 0 ? w / 32768 : -(int32_t)((-(int64_t)w + 32767) / 32768);
        if (h < -32768 || h > 32767) return 0;
        *lo |= (uint32_t)(uint16_t)(w - h * 32768) << (16 * j);
        *hi |= (uint32_t)(uint16_t)h << (16 * j);
    }
    return 1;
}

/* Group g's table: its permute, then per step k of four taps the three parts (c, b, a)
 * of the four pixels' weights, 16 bytes each: pixel j's four taps in slot j. */
static void pack_quad_bytes(const int32_t *first, const int32_t *count, const int32_t *coeffs, int taps, int out_size,
                            int channels, int window, int32_t *table) {
    const int steps = (taps + 3) / 4;
    for (int x = 0; x < out_size; x++) {
        uint8_t *g = (uint8_t *)(table + (size_t)(x / 4) * (16 + (size_t)steps * 12));
        if (x % 4 == 0) quad_byte_index(first, channels, x, out_size - x < 4 ? out_size - x : 4, window, (int32_t *)g);
        for (int t = 0; t < count[x]; t++) {
            const int32_t w = coeffs[(size_t)x * taps + t];
            /* Floor division by 2^14: the top part carries the sign, the others are 0-127. */
            const int32_t a = w >= 0 ? w >> 14 : -((-w + 16383) >> 14), rest = w - a * 16384;
            uint8_t *part = g + 64 + (size_t)(t / 4) * 48 + (size_t)(x % 4) * 4 + t % 4;
            part[0] = (uint8_t)(rest & 127);
            part[16] = (uint8_t)(rest >> 7);
            part[32] = (uint8_t)(int8_t)a;
        }
    }
}

int resample_pack_row_weights(const int32_t *first, const int32_t *count, const int32_t *coeffs, int taps, int out_size,
                              int channels, int32_t *packed) {
    const int pairs = (taps + 1) / 2;
    int quads = 0, window = 0, in_bytes = 0;
#ifdef HAVE_X86
    if (has_avx512_madd() && (channels == 3 || channels == 4)) {
        /* Two windows of 32 before one of 128: the two-source permute costs three. */
        if (weights_fit_bytes(count, coeffs, taps, out_size))
            window = quads_fit(first, channels, out_size, 4, 64) ? 64 : halves_fit(first, channels, out_size) ? 32
                   : quads_fit(first, channels, out_size, 4, 128) ? 128 : lanes_fit(first, out_size) ? 16 : 0;
        in_bytes = window != 0;
        if (!in_bytes)
            window = quads_fit(first, channels, out_size, 2, 64) ? 64 : quads_fit(first, channels, out_size, 2, 128) ? 128 : 0;
    }
    quads = window != 0;
#endif
    /* Past out_size (a partial last group) the weights stay zero. */
    memset(packed, 0, resample_packed_count(taps, out_size) * sizeof(int32_t));
    packed[0] = in_bytes ? PACK_QUAD_BYTES : quads ? PACK_QUADS : PACK_PAIRS;
    packed[1] = channels;
    packed[2] = window;
    int32_t *table = packed + PACK_HEADER;
    if (in_bytes) {
        pack_quad_bytes(first, count, coeffs, taps, out_size, channels, window, table);
        return 0;
    }
    for (int x = 0; x < out_size; x++) {
        int32_t *g = quads ? table + (size_t)(x / 4) * (16 + (size_t)pairs * 8) : NULL;
        if (quads && x % 4 == 0) quad_index(first, channels, x, out_size - x < 4 ? out_size - x : 4, g);
        for (int k = 0; k < pairs; k++) {
            uint32_t lo, hi;
            if (!split_pair(count, coeffs, taps, x, k, &lo, &hi)) return -1;
            if (quads) {
                /* Step k: the four pixels' low halves, then their high halves. */
                int32_t *v = g + 16 + (size_t)k * 8 + x % 4;
                v[0] = (int32_t)lo;
                v[4] = (int32_t)hi;
            } else {
                /* Pixel x's 128-bit lane (the low one for even x) of its pair's two vectors,
                 * a weight pair in each of the lane's four channel slots. */
                int32_t *v = table + ((size_t)(x / 2) * pairs + k) * 16 + (x % 2) * 4;
                for (int i = 0; i < 4; i++) {
                    v[i] = (int32_t)lo;
                    v[8 + i] = (int32_t)hi;
                }
            }
        }
    }
    return 0;
}

void resample_row_packed(const uint8_t *src, size_t src_bytes, uint8_t *dst, int channels,
                         const int32_t *first, const int32_t *count, const int32_t *coeffs,
                         const int32_t *packed, int taps, int out_size, int bits) {
#ifdef HAVE_X86
    if (packed && packed[0] == PACK_QUAD_BYTES && packed[1] == channels) {
        row_quad_bytes_avx512(src, NULL, src_bytes, dst, NULL, channels, first, packed + PACK_HEADER, taps, out_size, bits, packed[2],
                              NULL, 0);
        return;
    }
    if (packed && packed[0] == PACK_QUADS && packed[1] == channels) {
        row_quads_avx512(src, src_bytes, dst, channels, first, packed + PACK_HEADER, taps, out_size, bits, packed[2] == 128);
        return;
    }
    if (packed && packed[0] == PACK_PAIRS && channels >= 3 && has_avx2()) {
        row_madd_avx2(src, src_bytes, dst, channels, first, count, coeffs, packed + PACK_HEADER, taps, out_size, bits);
        return;
    }
#endif
    (void)packed;
    resample_row(src, src_bytes, dst, channels, first, count, coeffs, taps, out_size, bits);
}

void resample_rows_packed(const uint8_t *src, const uint8_t *src2, size_t src_bytes, uint8_t *dst, uint8_t *dst2, int channels,
                          const int32_t *first, const int32_t *count, const int32_t *coeffs,
                          const int32_t *packed, int taps, int out_size, int bits, const uint8_t *ahead, size_t ahead_bytes) {
#ifdef HAVE_X86
    if (packed && packed[0] == PACK_QUAD_BYTES && packed[1] == channels) {
        row_quad_bytes_avx512(src, src2, src_bytes, dst, dst2, channels, first, packed + PACK_HEADER, taps, out_size, bits, packed[2],
                              ahead, ahead_bytes);
        return;
    }
#endif
    (void)ahead;
    (void)ahead_bytes;
    resample_row_packed(src, src_bytes, dst, channels, first, count, coeffs, packed, taps, out_size, bits);
    resample_row_packed(src2, src_bytes, dst2, channels, first, count, coeffs, packed, taps, out_size, bits);
}

void resample_row_portable(const uint8_t *src, uint8_t *dst, int channels,
                           const int32_t *first, const int32_t *count, const int32_t *coeffs,
                           int taps, int out_size, int bits) {
    row_scalar(src, dst, channels, first, count, coeffs, taps, 0, out_size, bits);
}

void resample_column(const uint8_t *const *rows, size_t row_bytes, int count,
                     const int32_t *weights, uint8_t *dst, int bits) {
#ifdef HAVE_X86
    /* One output row's weights are a table of one row of `count` taps. */
    if (count <= 64 && has_avx512_bytes() && weights_fit_bytes(&count, weights, count, 1)) {
        column_bytes_avx512(rows, row_bytes, count, weights, dst, bits);
        return;
    }
    if (has_avx2()) {
        column_avx2(rows, row_bytes, count, weights, dst, bits);
        return;
    }
#endif
    resample_column_portable(rows, row_bytes, count, weights, dst, bits);
}

void resample_column_portable(const uint8_t *const *rows, size_t row_bytes, int count,
                              const int32_t *weights, uint8_t *dst, int bits) {
    column_scalar(rows, 0, row_bytes, count, weights, dst, bits);
}

#ifdef HAVE_X86
/* Whether every alpha byte of the first `pixels` (a multiple of 32 / ch) is 255: each
 * byte ORed with the colour bytes set, so an opaque run is all ones. It stops at the
 * first 256 bytes that are not, so a translucent row costs little more than its start. */
__attribute__((target("avx2")))
static size_t opaque_avx2(const uint8_t *src, size_t pixels, int ch, int *opaque) {
    const __m256i colour = ch == 4 ? _mm256_set1_epi32(0x00FFFFFF) : _mm256_set1_epi16(0x00FF);
    const __m256i ones = _mm256_set1_epi8(-1);
    const size_t step = 32 / (size_t)ch;
    __m256i all = ones;
    size_t i = 0;
    for (; i + step <= pixels; i += step) {
        all = _mm256_and_si256(all, _mm256_or_si256(_mm256_loadu_si256((const __m256i *)(src + i * ch)), colour));
        if ((i / step) % 8 == 7 && _mm256_movemask_epi8(_mm256_cmpeq_epi8(all, ones)) != -1) break;
    }
    *opaque = _mm256_movemask_epi8(_mm256_cmpeq_epi8(all, ones)) == -1;
    return i;
}

/* unpremultiply_scalar's arithmetic, eight pixels of four channels at a time, in float:
 * v * 255 (at most 65025) and a are exact, the quotient is rounded by at most 2^-24 of
 * itself (under 0.004), and a quotient below an integer k is at least 1/254 below it, so
 * truncating the float quotient is truncating the true one. */
__attribute__((target("avx2")))
static size_t unpremultiply_avx2(uint8_t *p, size_t pixels) {
    const __m256i alpha_byte = _mm256_set1_epi32(255);
    const __m256 c255 = _mm256_set1_ps(255.0f);
    size_t i = 0;
    for (; i + 8 <= pixels; i += 8) {
        const __m256i px = _mm256_loadu_si256((const __m256i *)(p + i * 4));
        const __m256i a = _mm256_srli_epi32(px, 24);
        /* Alpha 0 and 255 keep the colour: divide by 255 (255 * v / 255 = v) there. */
        const __m256i keep = _mm256_or_si256(_mm256_cmpeq_epi32(a, _mm256_setzero_si256()), _mm256_cmpeq_epi32(a, alpha_byte));
        const __m256 div = _mm256_cvtepi32_ps(_mm256_blendv_epi8(a, alpha_byte, keep));
        __m256i out = _mm256_and_si256(px, _mm256_set1_epi32((int)0xFF000000));
        for (int c = 0; c < 3; c++) {
            const __m256i v = _mm256_and_si256(_mm256_srli_epi32(px, 8 * c), alpha_byte);
            __m256i q = _mm256_cvttps_epi32(_mm256_div_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(v), c255), div));
            q = _mm256_min_epi32(q, alpha_byte);
            out = _mm256_or_si256(out, _mm256_slli_epi32(q, 8 * c));
        }
        _mm256_storeu_si256((__m256i *)(p + i * 4), out);
    }
    return i;
}
#endif

int resample_opaque(const uint8_t *src, size_t pixels, int channels) {
    int opaque = 1;
    size_t done = 0;
#ifdef HAVE_X86
    if ((channels == 2 || channels == 4) && has_avx2()) done = opaque_avx2(src, pixels, channels, &opaque);
#endif
    for (size_t i = done; opaque && i < pixels; i++) opaque = src[i * channels + channels - 1] == 255;
    return opaque;
}

/* Pixels `from ..< pixels`, in place: colour = min(255, colour * 255 / alpha), truncating,
 * alpha 0 and 255 untouched (Pillow's RGBa -> RGBA). */
static void unpremultiply_scalar(uint8_t *p, size_t from, size_t pixels, int ch) {
    for (size_t i = from; i < pixels; i++) {
        uint8_t *q = p + i * ch;
        const uint32_t a = q[ch - 1];
        if (a == 255 || a == 0) continue;
        for (int c = 0; c < ch - 1; c++) {
            const uint32_t v = (uint32_t)q[c] * 255 / a;
            q[c] = (uint8_t)(v > 255 ? 255 : v);
        }
    }
}

void resample_unpremultiply(uint8_t *p, size_t pixels, int channels) {
    size_t done = 0;
#ifdef HAVE_X86
    if (channels == 4 && has_avx2()) done = unpremultiply_avx2(p, pixels);
#endif
    unpremultiply_scalar(p, done, pixels, channels);
}

void resample_unpremultiply_portable(uint8_t *p, size_t pixels, int channels) {
    unpremultiply_scalar(p, 0, pixels, channels);
}

void resample_premultiply(const uint8_t *src, uint8_t *dst, size_t pixels, int channels) {
    size_t done = 0;
#ifdef HAVE_X86
    if ((channels == 2 || channels == 4) && has_avx512_premultiply()) done = premultiply_avx512(src, dst, pixels, channels);
    if ((channels == 2 || channels == 4) && has_avx2()) done += premultiply_avx2(src + done * channels, dst + done * channels, pixels - done, channels);
#endif
    premultiply_scalar(src, dst, done, pixels, channels);
}

void resample_premultiply_portable(const uint8_t *src, uint8_t *dst, size_t pixels, int channels) {
    premultiply_scalar(src, dst, 0, pixels, channels);
}
