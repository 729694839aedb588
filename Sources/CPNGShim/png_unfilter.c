#include "png_unfilter.h"

#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* PNG's row filters undone (PNG spec, section 9). Sub, Average and Paeth read the
   pixel just reconstructed, so the bytes of one pixel are the only ones that can be
   worked at once: for 3 and 4 bytes per pixel that is one SSE2 register of 16-bit
   lanes per pixel, as libpng does; other widths, and other machines, go byte by byte. */

static void up(uint8_t *out, const uint8_t *raw, const uint8_t *prev, size_t n) {
    for (size_t i = 0; i < n; i++) out[i] = (uint8_t)(raw[i] + prev[i]);
}

static uint8_t paeth(int a, int b, int c) {
    int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
    int bc = pb <= pc ? b : c;
    return (uint8_t)(pa <= pb && pa <= pc ? a : bc);
}

static void bytewise(uint8_t *out, const uint8_t *raw, const uint8_t *prev, size_t n, size_t bpp, int filter) {
    size_t first = bpp < n ? bpp : n;
    switch (filter) {
    case 1:
        memcpy(out, raw, first);
        for (size_t i = bpp; i < n; i++) out[i] = (uint8_t)(raw[i] + out[i - bpp]);
        break;
    case 3:
        for (size_t i = 0; i < first; i++) out[i] = (uint8_t)(raw[i] + (prev[i] >> 1));
        for (size_t i = bpp; i < n; i++) out[i] = (uint8_t)(raw[i] + ((out[i - bpp] + prev[i]) >> 1));
        break;
    default:
        for (size_t i = 0; i < first; i++) out[i] = (uint8_t)(raw[i] + prev[i]);
        for (size_t i = bpp; i < n; i++) out[i] = (uint8_t)(raw[i] + paeth(out[i - bpp], prev[i], prev[i - bpp]));
        break;
    }
}

#if defined(__SSE2__)
/* One pixel of 3 or 4 bytes, widened to 16-bit lanes. With `wide` the load and store
   move 4 bytes (for 3-byte pixels the next pixel's first byte too, which it then
   overwrites): one move each, where moving 3 bytes exactly goes through memory in
   pieces that a 4-byte load cannot be forwarded from, a stall per pixel. Without
   `wide` exactly the pixel's bytes are touched, for the row's last pixel. */
static inline __attribute__((always_inline)) __m128i load(const uint8_t *p, size_t bpp, int wide) {
    uint32_t v = 0;
    memcpy(&v, p, wide ? 4 : bpp);
    return _mm_unpacklo_epi8(_mm_cvtsi32_si128((int)v), _mm_setzero_si128());
}

static inline __attribute__((always_inline)) void store(uint8_t *p, __m128i x, size_t bpp, int wide) {
    uint32_t v = (uint32_t)_mm_cvtsi128_si32(_mm_packus_epi16(x, x));
    memcpy(p, &v, wide ? 4 : bpp);
}

static __m128i absolute(__m128i x) { return _mm_max_epi16(x, _mm_sub_epi16(_mm_setzero_si128(), x)); }

static __m128i pick(__m128i mask, __m128i yes, __m128i no) {
    return _mm_or_si128(_mm_and_si128(mask, yes), _mm_andnot_si128(mask, no));
}

/* Pixels from byte `i` while `i + (wide ? 4 : bpp) <= n`; returns where it stopped.
   `a` and `c` carry the last pixel made and the one above it. Inlined with constants,
   so each load and store is one move. */
static inline __attribute__((always_inline)) size_t pixels(uint8_t *out, const uint8_t *raw, const uint8_t *prev,
                                                           size_t i, size_t n, size_t bpp, int filter, int wide,
                                                           __m128i *a_io, __m128i *c_io) {
    const __m128i low = _mm_set1_epi16(0xff);
    const size_t reach = wide ? 4 : bpp;
    __m128i a = *a_io, c = *c_io;
    switch (filter) {
    case 1:
        for (; i + reach <= n; i += bpp) {
            a = _mm_and_si128(_mm_add_epi16(a, load(raw + i, bpp, wide)), low);
            store(out + i, a, bpp, wide);
        }
        break;
    case 3:
        for (; i + reach <= n; i += bpp) {
            __m128i b = load(prev + i, bpp, wide);
            a = _mm_and_si128(_mm_add_epi16(_mm_srli_epi16(_mm_add_epi16(a, b), 1), load(raw + i, bpp, wide)), low);
            store(out + i, a, bpp, wide);
        }
        break;
    default:
        for (; i + reach <= n; i += bpp) {
            __m128i b = load(prev + i, bpp, wide);
            __m128i pa = _mm_sub_epi16(b, c), pb = _mm_sub_epi16(a, c);
            __m128i pc = absolute(_mm_add_epi16(pa, pb));
            pa = absolute(pa);
            pb = absolute(pb);
            __m128i smallest = _mm_min_epi16(pc, _mm_min_epi16(pa, pb));
            __m128i nearest = pick(_mm_cmpeq_epi16(smallest, pa), a, pick(_mm_cmpeq_epi16(smallest, pb), b, c));
            a = _mm_and_si128(_mm_add_epi16(nearest, load(raw + i, bpp, wide)), low);
            store(out + i, a, bpp, wide);
            c = b;
        }
        break;
    }
    *a_io = a;
    *c_io = c;
    return i;
}

/* The lanes past the pixel's bytes hold the next pixel's, and are never stored: each
   lane is worked on its own. */
static inline __attribute__((always_inline)) void pixelwise(uint8_t *out, const uint8_t *raw, const uint8_t *prev,
                                                            size_t n, size_t bpp, int filter) {
    __m128i a = _mm_setzero_si128(), c = _mm_setzero_si128();
    size_t i = pixels(out, raw, prev, 0, n, bpp, filter, 1, &a, &c);
    pixels(out, raw, prev, i, n, bpp, filter, 0, &a, &c);
}
#endif

void cpng_unfilter(uint8_t *out, const uint8_t *raw, const uint8_t *prev, size_t n, size_t bpp, int filter) {
    switch (filter) {
    case 0:
        memcpy(out, raw, n);
        return;
    case 2:
        up(out, raw, prev, n);
        return;
    default:
#if defined(__SSE2__)
        if (bpp == 3) {
            pixelwise(out, raw, prev, n, 3, filter);
            return;
        }
        if (bpp == 4) {
            pixelwise(out, raw, prev, n, 4, filter);
            return;
        }
#endif
        bytewise(out, raw, prev, n, bpp, filter);
        return;
    }
}
