#ifndef IMGSCALE_WEBP_SHIM_H
#define IMGSCALE_WEBP_SHIM_H

#include <stddef.h>
#include <stdint.h>

/* A small status-returning layer over libwebp (decode, demux, encode, mux).
   Functions return 0 on success, or -1 with a message in err; cwebp_decode returns
   -2 when the data ends early, with the rows decoded before that in *rows_done. */

typedef struct {
    uint32_t width;       /* the canvas */
    uint32_t height;
    int has_alpha;
    int frames;           /* 1 for a still image */
    int lossless;         /* 1 when the (first) frame is VP8L */
    const uint8_t *icc;   /* chunks inside the caller's data, or NULL */
    uint32_t icc_length;
    const uint8_t *exif;
    uint32_t exif_length;
    const uint8_t *xmp;
    uint32_t xmp_length;
} cwebp_info;

int cwebp_read_info(const uint8_t *data, size_t size, cwebp_info *info, char *err, size_t errlen);

/* The first frame as RGB (channels 3) or RGBA (4, straight alpha), scaled by libwebp
   to out_width x out_height when they differ from the canvas (stills only). */
int cwebp_decode(const uint8_t *data, size_t size, int channels, uint32_t out_width, uint32_t out_height,
                 uint8_t *out, size_t stride, uint32_t *rows_done, char *err, size_t errlen);

typedef struct {
    int quality;    /* 0-100 */
    int method;     /* 0-6: effort */
    int lossless;
} cwebp_encode_options;

/* RGB or RGBA rows to a WebP file in memory (free with cwebp_free), with the ICC,
   EXIF and XMP chunks given (NULL or 0 for none). */
int cwebp_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int channels, size_t stride,
                 const cwebp_encode_options *options,
                 const uint8_t *icc, size_t icc_length, const uint8_t *exif, size_t exif_length,
                 const uint8_t *xmp, size_t xmp_length,
                 uint8_t **out, size_t *out_size, char *err, size_t errlen);

void cwebp_free(void *p);

/* An animation's frames, composited on its canvas by libwebp (disposal and blending as
   the file says), one after another: each as width x height RGBA (straight alpha) into
   out, with its duration in ms. next returns 0, 1 after the last frame, or -1. */
typedef struct cwebp_frames cwebp_frames;
cwebp_frames *cwebp_frames_open(const uint8_t *data, size_t size, uint32_t *loop_count, char *err, size_t errlen);
int cwebp_frames_next(cwebp_frames *frames, uint32_t width, uint32_t height, uint8_t *out, int *duration, char *err,
                      size_t errlen);
void cwebp_frames_close(cwebp_frames *frames);

/* An animated WebP made frame by frame (RGBA, width x height, each shown `duration` ms)
   by libwebp's animation encoder on one thread; loop_count 0 loops forever. finish
   gives the file (free with cwebp_free). */
typedef struct cwebp_animation cwebp_animation;
cwebp_animation *cwebp_animation_new(uint32_t width, uint32_t height, uint32_t loop_count,
                                     const cwebp_encode_options *options, char *err, size_t errlen);
int cwebp_animation_add(cwebp_animation *animation, const uint8_t *rgba, int duration, char *err, size_t errlen);
int cwebp_animation_finish(cwebp_animation *animation, uint8_t **out, size_t *out_size, char *err, size_t errlen);
void cwebp_animation_free(cwebp_animation *animation);

/* The linked library's version, for `imgscale --version`. */
int cwebp_version(void);

#endif
