#ifndef IMGSCALE_JPEG_READER_H
#define IMGSCALE_JPEG_READER_H

/* The reader behind CJPEGShim's cjpeg_reader, shared by jpeg_shim.c and the entropy
   decoder that stands in for libjpeg's inside it; not part of the Swift module. */

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jpeglib.h>


/* imgscale's own entropy decoders (jpeg_entropy.c in libjpeg's place, jpeg_eighth.c
   beside it) were written for libjpeg-turbo 2.x with the libjpeg 6b API: the private
   struct jpeg_entropy_decoder, the order libjpeg calls it in, and (for jpeg_eighth.c's
   pixels) its SSE2 2x2 IDCT arithmetic. Against any other version they are not built,
   and libjpeg decodes every file alone. */
#if defined(LIBJPEG_TURBO_VERSION_NUMBER) && LIBJPEG_TURBO_VERSION_NUMBER >= 2000000 && \
    LIBJPEG_TURBO_VERSION_NUMBER < 3000000 && JPEG_LIB_VERSION == 62
#define CJPEG_OWN_DECODERS 1
#else
#define CJPEG_OWN_DECODERS 0
#warning "imgscale's own JPEG entropy decoders are off: written for libjpeg-turbo 2.x (libjpeg 6b API)"
#endif

typedef struct {
    struct jpeg_error_mgr base;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX + 64];
} shim_error_mgr;

struct cjpeg_entropy;
typedef struct cjpeg_reader cjpeg_reader;

struct cjpeg_reader {
    struct jpeg_decompress_struct cinfo;
    /* The whole file, which cinfo's source reads from. */
    const uint8_t *data;
    size_t size;
    int fail_severity;
    /* The severity of the warning that fail_severity made fatal; 0 for none yet. */
    int failed_severity;
    int tolerated;
    /* Set while a second decompressor re-reads what this one has already reported on:
       its warnings are not counted again. */
    int replaying;
    char first_warning[JMSG_LENGTH_MAX];
    shim_error_mgr error;
    struct jpeg_progress_mgr progress;
    int started;
    uint8_t *icc;
    /* The scans-times-blocks bound: blocks entropy-decoded so far, counted per scan. */
    int last_scan;
    uint64_t blocks_visited;
    uint64_t max_blocks_visited;
    int libjpeg_only;
    /* imgscale's entropy decoder when it stands in for libjpeg's, else NULL. */
    struct cjpeg_entropy *entropy;
};

/* Whether the scan libjpeg stands at is the one sequential, 8-bit, Huffman-coded scan of
   every component: what imgscale's own entropy decoders read. */
static inline int cjpeg_single_sequential_scan(const struct jpeg_decompress_struct *ci) {
    return !ci->progressive_mode && !ci->arith_code && ci->data_precision == 8 &&
           ci->comps_in_scan == ci->num_components && ci->Ss == 0 && ci->Se == 63 && ci->Ah == 0 && ci->Al == 0;
}

#endif
