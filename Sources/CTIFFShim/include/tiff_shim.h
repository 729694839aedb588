#ifndef IMGSCALE_TIFF_SHIM_H
#define IMGSCALE_TIFF_SHIM_H

#include <stddef.h>
#include <stdint.h>

/* A small layer over libtiff for a TIFF held in memory: its directories' facts and the
   decompressed strips or tiles of one of them, as stored (libtiff converts nothing but
   JPEG's YCbCr, which it hands over as RGB, and the pages in `converted`). libtiff reports errors through handlers,
   never by longjmp; each reader keeps its own first message. Functions return 0, or -1
   with libtiff's message in err. */

typedef struct ctiff_reader ctiff_reader;

/* SubIFDs of a page looked at: a pyramid's levels (more than 16 would be a level of a
   pixel, past any use). */
#define CTIFF_MAX_SUBIFDS 16

typedef struct {
    uint32_t width;
    uint32_t height;
    int samples;          /* samples per pixel */
    int bits;             /* bits per sample */
    int sample_format;    /* 1 unsigned, 2 signed, 3 float */
    int photometric;
    int planar;           /* 1 contiguous, 2 separate planes */
    int compression;
    int extra_alpha;      /* 0 unspecified, 1 associated (premultiplied), 2 unassociated, 3 no ExtraSamples tag */
    int orientation;      /* 1-8 */
    int ink_set;          /* 1 CMYK, 2 not CMYK */
    int tiled;
    uint32_t tile_width;  /* tiled only */
    uint32_t tile_height;
    uint32_t rows_per_strip; /* striped only */
    int pages;            /* directories in the file, at most 65536 counted */
    const uint8_t *icc;   /* owned by the reader, valid until the next page is chosen */
    uint32_t icc_length;
    const uint8_t *xmp;
    uint32_t xmp_length;
    int colormap;         /* a palette (PHOTOMETRIC_PALETTE) is present */
    int reduced;          /* NewSubfileType says a reduced-resolution copy of another image */
    int subifds;          /* how many of subifd[] hold SubIFD offsets (ctiff_page only) */
    uint64_t ifd_offset;  /* where the directory starts in the file */
    int converted;        /* old-style JPEG, or YCbCr not in JPEG's one plane: libtiff's RGBA
                             interface makes the pixels, as Pillow reads them, and the fields
                             above describe what it hands over (8-bit RGB and a fourth sample,
                             alpha premultiplied when the page has alpha, in strips) */
    uint64_t subifd[CTIFF_MAX_SUBIFDS];
} ctiff_info;

/* At most max_alloc bytes in any one of libtiff's allocations. */
ctiff_reader *ctiff_open(const uint8_t *data, size_t size, size_t max_alloc, char *err, size_t err_size);
void ctiff_close(ctiff_reader *reader);

/* Chooses page `page` (0 = the first) and describes it; with count_pages, info->pages
   counts the directories (walking all of them), else it is 0. Returns 0, -1 with a
   message, or -2 when counting finds fewer pages than `page` needs. */
int ctiff_page(ctiff_reader *reader, int page, int count_pages, ctiff_info *info, char *err, size_t err_size);

/* Chooses the SubIFD at `offset` (one of a page's info->subifd) and describes it;
   ctiff_page goes back to the main chain. */
int ctiff_subifd(ctiff_reader *reader, uint64_t offset, ctiff_info *info, char *err, size_t err_size);

/* How many strips or tiles the page has, and the bytes one holds decompressed. */
uint32_t ctiff_chunks(ctiff_reader *reader);
size_t ctiff_chunk_size(ctiff_reader *reader);

/* 1 when two strips or tiles holding data start at one offset: a chunk decoded many
   times over, as in a 172 KB file that inflates one deflate stream into 550 GB. */
int ctiff_shared_chunks(ctiff_reader *reader);

/* Decompresses strip or tile `index` into out (out_size bytes); returns the bytes
   decoded, or -1. */
long ctiff_read_chunk(ctiff_reader *reader, uint32_t index, uint8_t *out, size_t out_size, char *err, size_t err_size);

/* The palette's 16-bit red, green and blue entries (2^bits each), or -1. */
int ctiff_colormap(ctiff_reader *reader, const uint16_t **red, const uint16_t **green, const uint16_t **blue);

/* How many warnings libtiff gave since the last ctiff_forget_warnings; the first one's
   message goes to first. */
int ctiff_warnings(const ctiff_reader *reader, char *first, size_t first_size);
void ctiff_forget_warnings(ctiff_reader *reader);

/* The version of libtiff the shim was built against (its headers'), as libtiff words it. */
const char *ctiff_version(void);

#endif
