#ifndef RESAMPLE_KERNELS_H
#define RESAMPLE_KERNELS_H

#include <stddef.h>
#include <stdint.h>

/* The two passes of the fixed-point triangle filter, in C so they can use AVX2 where
 * the CPU has it (chosen at run time; the results are the same integers either way).
 * Samples are 8-bit, `channels` interleaved per pixel; weights are scaled by
 * 2^bits and each sum is rounded (half a unit added), shifted and clamped to 0-255. */

/* One row of the horizontal pass. Output pixel x reads source pixels
 * first[x] .. first[x] + count[x] - 1 with weights coeffs[x * taps ...]. `src_bytes`
 * is how many bytes may be read from `src` (wide loads never go past it). */
void resample_row(const uint8_t *src, size_t src_bytes, uint8_t *dst, int channels,
                  const int32_t *first, const int32_t *count, const int32_t *coeffs,
                  int taps, int out_size, int bits);

/* The horizontal weights again for the faster kernels of resample_row_packed, made once
 * per axis for one channel count: the low 15 bits of each weight and the rest
 * (w = hi * 2^15 + lo) as 16-bit pairs, zero past count[x], grouped per two output
 * pixels (AVX2) or, where the CPU has AVX-512 VBMI and VNNI, per four: in three 7-bit
 * parts where every weight fits 22 bits (any shrink past about 2x), else as the 16-bit
 * pairs where every four consecutive windows start within 128 bytes. `packed` holds
 * resample_packed_count(taps, out_size) int32s. Returns -1 (and the packed weights must
 * not be used) when a weight needs more than 31 bits. */
size_t resample_packed_count(int taps, int out_size);
int resample_pack_row_weights(const int32_t *first, const int32_t *count, const int32_t *coeffs, int taps, int out_size,
                              int channels, int32_t *packed);

/* resample_row, faster with `packed` from resample_pack_row_weights (made for `channels`)
 * on RGB and RGBA rows; the same integers. `packed` may be NULL. */
void resample_row_packed(const uint8_t *src, size_t src_bytes, uint8_t *dst, int channels,
                         const int32_t *first, const int32_t *count, const int32_t *coeffs,
                         const int32_t *packed, int taps, int out_size, int bits);

/* resample_row_packed of two rows of the same width, `src` to `dst` and `src2` to `dst2`:
 * the same integers, faster where the kernel shares each weight load between the rows.
 * `ahead` (may be NULL) is `ahead_bytes` the caller reads next: the kernel asks the cache
 * for them as it goes, so that the next rows come from memory while it computes. They are
 * only prefetched, never read, so they may run past any mapping. */
void resample_rows_packed(const uint8_t *src, const uint8_t *src2, size_t src_bytes, uint8_t *dst, uint8_t *dst2, int channels,
                          const int32_t *first, const int32_t *count, const int32_t *coeffs,
                          const int32_t *packed, int taps, int out_size, int bits, const uint8_t *ahead, size_t ahead_bytes);

/* One output row of the vertical pass: the weighted sum of the `count` rows of
 * `row_bytes` bytes that `rows` points to (rows, not a stride: the caller keeps only
 * the last few source rows, in a ring). */
void resample_column(const uint8_t *const *rows, size_t row_bytes, int count,
                     const int32_t *weights, uint8_t *dst, int bits);

/* The same two passes without SIMD: what runs on CPUs without AVX2, and the
 * reference the tests hold the AVX2 paths to. */
void resample_row_portable(const uint8_t *src, uint8_t *dst, int channels,
                           const int32_t *first, const int32_t *count, const int32_t *coeffs,
                           int taps, int out_size, int bits);
void resample_column_portable(const uint8_t *const *rows, size_t row_bytes, int count,
                              const int32_t *weights, uint8_t *dst, int bits);

/* Copies `pixels` pixels of `channels` (2 or 4, alpha last) from src to dst with the
 * colour premultiplied by alpha, Pillow's RGBA -> RGBa rounding: round(v * a / 255).
 * The portable form is what CPUs without AVX2 run and what the tests hold the rest to. */
void resample_premultiply(const uint8_t *src, uint8_t *dst, size_t pixels, int channels);
void resample_premultiply_portable(const uint8_t *src, uint8_t *dst, size_t pixels, int channels);

/* Whether all `pixels` pixels of `channels` (2 or 4, alpha last) are opaque, where
 * premultiplying changes nothing. */
int resample_opaque(const uint8_t *src, size_t pixels, int channels);

/* In place, the inverse: colour = min(255, colour * 255 / alpha), truncating, alpha 0
 * and 255 left as they are (Pillow's RGBa -> RGBA). The portable form is the tests'. */
void resample_unpremultiply(uint8_t *p, size_t pixels, int channels);
void resample_unpremultiply_portable(uint8_t *p, size_t pixels, int channels);

#endif
