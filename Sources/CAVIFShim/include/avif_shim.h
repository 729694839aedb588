#ifndef IMGSCALE_AVIF_SHIM_H
#define IMGSCALE_AVIF_SHIM_H

#include <stddef.h>
#include <stdint.h>

/* AVIF image sequences (a 'moov' of AV1 frames) through libavif, opened on first use as
   libheif is: libheif 1.15 reads still items only, and refuses a file that holds no
   still. The frames are read as avifdec reads them: the track's first frame for a still,
   RGB(A) at 8 or 16 bits, chroma upsampled by libavif's default. One thread. */

typedef struct cavif_reader cavif_reader;

typedef struct {
    uint32_t width, height;
    int depth;          /* bits a sample: 8, 10 or 12 */
    int has_alpha;
    int frames;         /* the track's frame count */
    double seconds;     /* the whole sequence's duration */
} cavif_info;

/* Loads libavif; 0, or -1 with the reason in err. */
int cavif_load(char *err, size_t err_size);

/* Parses `size` bytes (kept by the caller while the reader lives), refusing a frame over
   `max_pixels` or a side over `max_side` before decoding it. NULL with libavif's reason. */
cavif_reader *cavif_open(const uint8_t *data, size_t size, uint32_t max_side, uint32_t max_pixels, cavif_info *info,
                         char *err, size_t err_size);

/* The next frame into `out` (rows `stride` bytes apart) as `channels` (3 or 4) samples of
   `sample_bytes` (1, or 2 for 16 bits, each of the source's levels spread over 0-65535),
   its duration in milliseconds into *duration_ms. 0, 1 after the last frame, -2 when the
   data ends early, -1 otherwise, with the reason in err. */
int cavif_next(cavif_reader *reader, int channels, int sample_bytes, uint8_t *out, size_t stride, uint32_t *duration_ms,
               char *err, size_t err_size);

void cavif_close(cavif_reader *reader);

/* libavif's version, "0.11.1", or "" before cavif_load succeeded. */
const char *cavif_version(void);

#endif
