#ifndef IMGSCALE_HEIF_SHIM_H
#define IMGSCALE_HEIF_SHIM_H

#include <stddef.h>
#include <stdint.h>

/* A small status-returning layer over libheif for HEIC and AVIF held in memory: the
   primary image's facts, its decode (with the container's irot/imir/clap applied, as
   the HEIF standard makes them part of the image) and AVIF/HEIC encoding. Functions
   return 0 on success, or -1 with libheif's message in err. */

typedef struct cheif_reader cheif_reader;

typedef struct {
    uint32_t width;          /* after the container's transformations: upright */
    uint32_t height;
    int has_alpha;
    int bit_depth;           /* luma bits as stored */
    int images;              /* top-level images in the file */
    int premultiplied;       /* alpha stored premultiplied */
    const uint8_t *icc;      /* owned by the reader */
    size_t icc_length;
    const uint8_t *exif;     /* the TIFF block (the Exif item's offset skipped); owned by the reader */
    size_t exif_length;
    const uint8_t *xmp;      /* owned by the reader */
    size_t xmp_length;
} cheif_info;

/* Parses the container; max_side bounds each side libheif will accept. */
cheif_reader *cheif_open(const uint8_t *data, size_t size, int max_side, cheif_info *info, char *err, size_t errlen);
void cheif_close(cheif_reader *reader);

/* The primary image as 8-bit RGB (channels 3) or RGBA (4, straight alpha), its grid
   tiles decoded on at most `threads` threads of libheif's (the caller's budget). With
   limited_gray, the colour samples are a limited-range gray plane, stretched to full. */
int cheif_decode(cheif_reader *reader, int channels, int threads, int limited_gray, uint8_t *out, size_t stride, char *err,
                 size_t errlen);
/* The same at 16 bits a sample (native order; stride counted in samples), each of the
   source's levels spread over 0-65535 by rounding; for sources of more than 8 bits. */
int cheif_decode16(cheif_reader *reader, int channels, int threads, int limited_gray, uint16_t *out, size_t stride, char *err,
                   size_t errlen);

typedef struct {
    int av1;        /* 1 AVIF (AV1 through aom), 0 HEIC (HEVC through x265) */
    int quality;    /* 0-100 */
    int speed;      /* the encoder's speed parameter, -1 for its default */
    int chroma;     /* AV1's chroma subsampling: 420, 422 or 444 (HEVC keeps x265's) */
    int lossless;   /* AV1: lossless, 4:4:4 with RGB coded as GBR (no YCbCr rounding) */
    int threads;    /* the encoder's threads (the caller's budget); the bytes never depend on it */
} cheif_encode_options;

/* 8-bit RGB or RGBA rows to a file in memory (free with cheif_free). */
int cheif_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int channels, size_t stride,
                 const cheif_encode_options *options,
                 const uint8_t *icc, size_t icc_length, const uint8_t *exif, size_t exif_length,
                 const uint8_t *xmp, size_t xmp_length,
                 uint8_t **out, size_t *out_size, char *err, size_t errlen);

void cheif_free(void *p);

/* The version of libheif's headers (the library is opened on first use), for
   `imgscale --version`. */
const char *cheif_version(void);

#endif
