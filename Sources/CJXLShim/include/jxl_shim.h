#ifndef IMGSCALE_JXL_SHIM_H
#define IMGSCALE_JXL_SHIM_H

#include <stddef.h>
#include <stdint.h>

/* A small layer over libjxl (opened on first use) for a JPEG XL file held in memory: its
   facts, its first frame as 8-bit rows in stored orientation, and encoding from rows or
   from a JPEG's own DCT data. libjxl encodes with no thread pool (one thread, so its output
   is the same on every run) and decodes on one only when the caller lends it a core. Its allocations are its own: libjxl 0.7
   frees some blocks with free() whatever memory manager it was given (a JPEG
   reconstruction's), so none is given, and the budget is kept by the header's
   estimate before decoding. Functions return 0, or -1 with the reason in err (-2: the
   file ends early). cjxl_read_info stops at the basic header when a canvas of 4 bytes
   a pixel would pass max_memory (0: no limit), and counts the frames as 1. */

typedef struct {
    uint32_t width;       /* stored, before the orientation is applied */
    uint32_t height;
    int bits;             /* bits per sample */
    int color_channels;   /* 1 gray, 3 colour */
    int alpha;            /* an alpha channel */
    int orientation;      /* 1-8, from the codestream */
    int frames;           /* displayed frames, counted to 65536 */
    int coded_frames;     /* every frame and layer coded, zero-duration ones too, to 65536 */
    uint64_t coded_area;  /* their pixels, each at its own size */
    int jpeg;             /* holds a JPEG's reconstruction data */
    uint8_t *icc;         /* malloc'd (cjxl_free_info): the profile of the decoded pixels */
    size_t icc_length;
    uint8_t *exif;        /* the Exif box's TIFF structure */
    size_t exif_length;
    uint8_t *xmp;
    size_t xmp_length;
} cjxl_info;

/* The minor version of the libjxl release in use (7, 11), loading it; 0 when none loads. */
int cjxl_release(void);

int cjxl_read_info(const uint8_t *data, size_t size, size_t max_memory, cjxl_info *info, char *err, size_t err_size);
void cjxl_free_info(cjxl_info *info);

/* The first frame, composited, as `channels` (1-4, the image's own colour channels, with
   alpha or not) samples a pixel of `sample_bytes` (1, or 2 for 16 bits in native order),
   rows `stride` bytes apart, in stored orientation;
   out holds `height` rows of the `width` cjxl_read_info gave (refused if it differs). With
   threads above 1, libjxl decodes on a pool of that many while the caller waits.
   Returns 0; -2 for a file that ends early, or with `partial` 1 after drawing what it
   holds; -1 otherwise. */
int cjxl_decode(const uint8_t *data, size_t size, size_t max_memory, uint32_t width, uint32_t height, int channels,
                int sample_bytes, int threads, int partial, uint8_t *out, size_t stride, char *err, size_t err_size);

typedef struct {
    float distance;       /* Butteraugli distance, when not lossless */
    int effort;           /* 1-9 */
    int lossless;
    int sample_bytes;     /* 1, or 2: 16-bit samples in native order */
} cjxl_encode_options;

/* RGB or RGBA rows (of options->sample_bytes a sample; stride in bytes) into a JPEG XL file (malloc'd into *out, freed with free), with the
   ICC profile (else sRGB), EXIF and XMP given (empty: none). */
int cjxl_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int channels, size_t stride,
                const cjxl_encode_options *options, const uint8_t *icc, size_t icc_length, const uint8_t *exif,
                size_t exif_length, const uint8_t *xmp, size_t xmp_length, uint8_t **out, size_t *out_size,
                char *err, size_t err_size);

/* A JPEG file recompressed into JPEG XL with its DCT coefficients and the data to
   rebuild the same JPEG bytes (djxl gives them back). */
int cjxl_recompress_jpeg(const uint8_t *jpeg, size_t size, int effort, uint8_t **out, size_t *out_size, char *err,
                         size_t err_size);

/* An animation's frames, each composited by libjxl on the width x height canvas as RGBA
   (stored orientation), with its duration in ms; the loop count is the file's (0:
   forever). next returns 0, 1 after the last frame, -2 when the data ends early, or -1. */
typedef struct cjxl_frames cjxl_frames;
cjxl_frames *cjxl_frames_open(const uint8_t *data, size_t size, uint32_t width, uint32_t height, uint32_t *loop_count,
                              char *err, size_t err_size);
int cjxl_frames_next(cjxl_frames *frames, uint8_t *out, int *duration, char *err, size_t err_size);
void cjxl_frames_close(cjxl_frames *frames);

/* The version of libjxl the shim was built against (its headers'). */
const char *cjxl_version(void);

#endif
