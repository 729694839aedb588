#ifndef IMGSCALE_JPEG_SHIM_H
#define IMGSCALE_JPEG_SHIM_H

#include <stddef.h>
#include <stdint.h>

#include "jpeg_eighth.h"

/* A tiny status-returning layer over libjpeg-turbo's jpeglib.h API. Every setjmp
   lives in jpeg_shim.c, so libjpeg's longjmp never crosses a Swift frame.
   Functions return 0 (or a count) on success, or -1 with a message in err. */

typedef struct cjpeg_reader cjpeg_reader;

enum {
    CJPEG_COLOR_GRAY = 1,
    CJPEG_COLOR_RGB = 2,   /* YCbCr or RGB in the file, RGB out */
    CJPEG_COLOR_CMYK = 3   /* CMYK or YCCK in the file, CMYK out */
};

typedef struct {
    uint32_t width;          /* full size, as stored */
    uint32_t height;
    int components;          /* in the file */
    int color;               /* CJPEG_COLOR_* */
    int adobe_inverted;      /* 1 when an Adobe APP14 marker says CMYK is stored inverted */
    int progressive;
    int arithmetic;
    const uint8_t *exif;     /* APP1 payload after "Exif\0\0"; owned by the reader */
    uint32_t exif_length;
    const uint8_t *icc;      /* reassembled APP2 ICC profile; owned by the reader */
    uint32_t icc_length;
    const uint8_t *xmp;      /* APP1 XMP packet after its namespace header; owned by the reader */
    uint32_t xmp_length;
    int comments;            /* number of COM markers */
    uint64_t coefficient_bytes; /* whole-image coefficient buffer a progressive or
                                   multi-scan decode allocates; 0 for single-scan */
    /* When cjpeg_reader_open fails on a warning fail_severity made fatal, its
       CJPEG_SEVERITY_*; else 0. */
    int failed_severity;
} cjpeg_info;

/* Metadata to embed in an output, each block written unchanged (NULL or 0 for none). */
typedef struct {
    const uint8_t *icc;
    uint32_t icc_length;
    const uint8_t *exif;     /* TIFF block, without the "Exif\0\0" prefix */
    uint32_t exif_length;
    const uint8_t *xmp;      /* XMP packet */
    uint32_t xmp_length;
} cjpeg_metadata;

typedef struct {
    uint32_t width;          /* after shrink-on-load and column cropping */
    uint32_t height;         /* after shrink-on-load (rows are skipped, not cropped) */
    uint32_t x_offset;       /* first decoded column, in the shrunk image */
    int channels;            /* 1 gray, 3 RGB, 4 CMYK */
} cjpeg_output;

/* How bad a libjpeg warning is: missing data, corrupt data, or anything else
   (extraneous bytes between markers, odd JFIF versions). */
enum {
    CJPEG_SEVERITY_WARNING = 1,
    CJPEG_SEVERITY_ERROR = 2,
    CJPEG_SEVERITY_TRUNCATED = 3,
    CJPEG_SEVERITY_NEVER = 4
};

/* Reads the markers and the frame header. The data must outlive the reader. libjpeg
   may allocate at most max_memory bytes (0: no limit); more is an error. A libjpeg
   warning of fail_severity or worse is an error; milder ones are tolerated. */
cjpeg_reader *cjpeg_reader_open(const uint8_t *data, size_t size, size_t max_memory, int fail_severity,
                                cjpeg_info *info, char *err, size_t err_size);

/* How many warnings were tolerated so far; the first one's message goes to first. */
int cjpeg_reader_tolerated(const cjpeg_reader *reader, char *first, size_t first_size);

/* The CJPEG_SEVERITY_* of the warning that failed the decode because of its
   fail_severity, or 0 when the failure was none of those (a fatal libjpeg error). */
int cjpeg_reader_failed_severity(const cjpeg_reader *reader);

/* Leaves all entropy decoding to libjpeg, before start: the reference imgscale's own
   decoders are tested against. */
void cjpeg_reader_libjpeg_only(cjpeg_reader *reader);

/* Starts decompression at 1/scale_denom size (1, 2, 4 or 8). When crop_width > 0,
   only columns from about crop_x (moved left to an iMCU boundary, see x_offset) for
   at least crop_width are decoded. */
int cjpeg_reader_start(cjpeg_reader *reader, int scale_denom, uint32_t crop_x, uint32_t crop_width,
                       cjpeg_output *output, char *err, size_t err_size);

/* Crops a started decode's columns as cjpeg_reader_start does (crop_width 0: none). */
int cjpeg_reader_crop(cjpeg_reader *reader, uint32_t crop_x, uint32_t crop_width,
                      cjpeg_output *output, char *err, size_t err_size);

/* Starts decompression at 1/8 without cropping. Returns 1 when the file suits
   jpeg_eighth.h's decoder, with layout filled (its scan points into the reader's
   data); 0 when it does not (read or crop and read as usual); -1 on error. */
int cjpeg_reader_start_eighth(cjpeg_reader *reader, cjpeg_eighth_layout *layout, cjpeg_output *output,
                              char *err, size_t err_size);

/* Entropy decoding on a second thread: when imgscale's entropy decoder stands in for
   libjpeg's on a started reader that has read no scan data, and the scan has at least
   min_mcus MCUs, readies it and returns 1; then cjpeg_reader_produce must run on
   another thread, decoding ahead while skip and read take what it made. Before the
   reader is closed, cjpeg_reader_stop_producing ends it early, and the caller waits
   for it to return. 0: decoding stays on the reading thread. */
int cjpeg_reader_pipeline(cjpeg_reader *reader, uint64_t min_mcus);
void cjpeg_reader_produce(cjpeg_reader *reader);
void cjpeg_reader_stop_producing(cjpeg_reader *reader);

/* Skips up to rows scanlines (entropy-decoded, not output); returns how many, or -1. */
int cjpeg_reader_skip(cjpeg_reader *reader, uint32_t rows, char *err, size_t err_size);

/* Reads up to max_rows scanlines; returns how many were read, or -1. */
int cjpeg_reader_read(cjpeg_reader *reader, uint8_t *pixels, size_t stride,
                      uint32_t max_rows, char *err, size_t err_size);

/* Skips any rows not read, so trailing truncation or corruption is still reported. */
int cjpeg_reader_finish(cjpeg_reader *reader, char *err, size_t err_size);

void cjpeg_reader_close(cjpeg_reader *reader);

typedef struct {
    int quality;             /* 1-100 */
    int progressive;
    int subsampling;         /* 444, 422 or 420 */
} cjpeg_encode_options;

/* Encodes 8-bit gray (1 channel) or RGB (3 channels) rows, top row first, into memory.
   After a successful finish, *out is a malloc'd buffer the caller releases with
   cjpeg_free; close the writer in every case. */
typedef struct cjpeg_writer cjpeg_writer;
cjpeg_writer *cjpeg_writer_open(uint32_t width, uint32_t height, int channels,
                                const cjpeg_encode_options *options, const cjpeg_metadata *metadata,
                                char *err, size_t err_size);
int cjpeg_writer_write_rows(cjpeg_writer *writer, const uint8_t *pixels, size_t stride, uint32_t rows,
                            char *err, size_t err_size);
int cjpeg_writer_finish(cjpeg_writer *writer, uint8_t **out, size_t *out_size, char *err, size_t err_size);
void cjpeg_writer_close(cjpeg_writer *writer);

/* Coefficients quantised by the caller, for cjpeg_write_coefficients: gray (1
   component) or YCbCr (3). Component i holds width_in_blocks x height_in_blocks blocks
   row by row, each 64 coefficients in natural order, which libjpeg's own sizes must
   match; quant[i] is its table in natural order (luma's is table 0, chroma's table 1).
   scans: num_scans x 9 ints (components in scan, 4 component indexes, Ss, Se, Ah, Al),
   none for one sequential scan, or -1 scans for libjpeg's own progression. */
typedef struct {
    int components;
    int h[3], v[3];
    uint32_t width_in_blocks[3], height_in_blocks[3];
    const int16_t *blocks[3];
    const uint16_t *quant[3];
    int num_scans;
    const int *scans;
} cjpeg_coefficients;

/* Writes those coefficients as a JPEG with Huffman tables fitted to them; *out as for
   cjpeg_writer_finish. Returns 0, or -1 with libjpeg's message. */
int cjpeg_write_coefficients(uint32_t width, uint32_t height, const cjpeg_coefficients *coefficients,
                             const cjpeg_metadata *metadata, uint8_t **out, size_t *out_size,
                             char *err, size_t err_size);

void cjpeg_free(void *p);

/* The linked library's version, for `imgscale --version`. */
int cjpeg_version(void);

#endif
