#ifndef IMGSCALE_PNG_SHIM_H
#define IMGSCALE_PNG_SHIM_H

#include <stddef.h>
#include <stdint.h>

/* A tiny status-returning layer over libpng. Every setjmp lives in png_shim.c:
   libpng reports errors by longjmp, which Swift frames must never be crossed by.
   Functions return 0 on success, or -1 with a NUL-terminated message in err. */

typedef struct cpng_reader cpng_reader;

typedef struct {
    uint32_t width;
    uint32_t height;
    int channels;        /* after expansion to 8 bits: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA */
    int bit_depth;       /* as stored in IHDR: 1, 2, 4, 8 or 16 */
    int color_type;      /* as stored in IHDR */
    int interlaced;      /* 1 for Adam7 */
    const uint8_t *icc;  /* iCCP profile, decompressed; owned by the reader */
    uint32_t icc_length;
    const uint8_t *exif; /* eXIf chunk (a TIFF block); owned by the reader */
    uint32_t exif_length;
    const uint8_t *xmp;  /* iTXt "XML:com.adobe.xmp" text; owned by the reader */
    uint32_t xmp_length;
    int texts;           /* other tEXt, zTXt and iTXt chunks before IDAT */
    /* ImageMagick's "Raw profile type exif" text (tEXt, zTXt or iTXt, inflated, at most
       1 MiB): EXIF as hex lines; owned by the reader. */
    const uint8_t *raw_exif_text;
    uint32_t raw_exif_text_length;
    uint32_t apng_frames; /* acTL's frame count (an APNG); 0 for a still PNG */
} cpng_info;

/* Metadata to embed in an output, each block written unchanged (NULL or 0 for none). */
typedef struct {
    const uint8_t *icc;
    uint32_t icc_length;
    const uint8_t *exif;
    uint32_t exif_length;
    const uint8_t *xmp;
    uint32_t xmp_length;
    const uint8_t *palette;  /* when set: RGBA entries; rows are then 1-byte indices */
    int palette_size;        /* 1-256 */
} cpng_metadata;

/* Reads the header from an in-memory PNG. With tolerate_crc, chunks with bad CRCs are
   used (with a warning) instead of failing the decode. The data must outlive the reader. Nothing
   sized by the image's dimensions is allocated until the first read, so the caller
   can refuse an oversized image first. */
cpng_reader *cpng_reader_open(const uint8_t *data, size_t size, int tolerate_crc, cpng_info *info,
                              char *err, size_t err_size);

/* Read functions return 0, or -2 when data is missing (truncation) and -1 for any
   other error, with libpng's message in err. */

/* Decodes every row into pixels (row-major, top row first, stride bytes apart). */
int cpng_reader_read(cpng_reader *reader, uint8_t *pixels, size_t stride,
                     char *err, size_t err_size);

/* For non-interlaced images: decodes the next `rows` rows, then cpng_reader_finish
   reads through IEND so a corrupt trailer is still an error. */
int cpng_reader_read_rows(cpng_reader *reader, uint8_t *pixels, size_t stride, uint32_t rows,
                          uint32_t *done, char *err, size_t err_size);
int cpng_reader_finish(cpng_reader *reader, char *err, size_t err_size);

/* How many libpng warnings there were so far; the first one's message goes to first. */
int cpng_reader_warnings(const cpng_reader *reader, char *first, size_t first_size);

/* 1, with libpng's first complaint about the iCCP profile in `message`, when it had one
   (not counted by cpng_reader_warnings: it concerns the profile, not the image). */
int cpng_reader_profile_warning(const cpng_reader *reader, char *message, size_t message_size);

void cpng_reader_close(cpng_reader *reader);

/* Encodes rows of 1-4 channels, top row first, into memory: 8-bit samples, or with
   bit_depth 16 two big-endian bytes per sample (no palette). After a successful
   finish, *out is a malloc'd buffer the caller releases with cpng_free; close the
   writer in every case. */
typedef struct cpng_writer cpng_writer;
cpng_writer *cpng_writer_open(uint32_t width, uint32_t height, int channels, int bit_depth, int compression_level,
                              const cpng_metadata *metadata, char *err, size_t err_size);
int cpng_writer_write_rows(cpng_writer *writer, const uint8_t *pixels, size_t stride, uint32_t rows,
                           char *err, size_t err_size);
int cpng_writer_finish(cpng_writer *writer, uint8_t **out, size_t *out_size, char *err, size_t err_size);
void cpng_writer_close(cpng_writer *writer);

/* Whether libpng would refuse to write this ICC profile into a PNG of `channels`
   channels (1: it would; its message goes to `why`), without writing anything; -1
   when it could not be asked. */
int cpng_icc_refusal(const uint8_t *icc, uint32_t length, int channels, char *why, size_t why_size);

void cpng_free(void *p);

/* The linked library's version, for `imgscale --version`. */
const char *cpng_version(void);

/* Before the first read: a 16-bit image's samples stay 16-bit (native byte order,
   2 bytes each; stride must allow for them) instead of being scaled to 8. */
void cpng_reader_keep_16(cpng_reader *reader);

/* The fast path (png_fast.c): 8-bit gray, gray+alpha, RGB or RGBA, not interlaced, no
   tRNS, every CRC right. NULL for any other file: decode it with the reader above.
   read_rows returns 0, or -1 on any damage (decode with libpng then, for its message);
   finish checks that the compressed stream ends where the image does, and verify,
   once every row is unfiltered, the stream's checksum. */
typedef struct cpng_fast cpng_fast;
cpng_fast *cpng_fast_open(const uint8_t *data, size_t size);
int cpng_fast_read_rows(cpng_fast *fast, uint8_t *pixels, size_t stride, uint32_t rows);
/* read_rows in its two stages, which may run on two threads (one each, in row order):
   the next rows inflated, each its filter byte and bytes as stored (width * channels
   + 1 bytes a row), then those rows unfiltered into pixels. finish goes with inflating. */
int cpng_fast_inflate_rows(cpng_fast *fast, uint8_t *raw, uint32_t rows);
int cpng_fast_unfilter_rows(cpng_fast *fast, const uint8_t *raw, uint8_t *pixels, size_t stride, uint32_t rows);
int cpng_fast_finish(cpng_fast *fast);
int cpng_fast_verify(cpng_fast *fast);
void cpng_fast_close(cpng_fast *fast);

#endif
