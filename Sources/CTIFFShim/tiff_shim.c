#include "tiff_shim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tiff_api.h"

struct ctiff_reader {
    const uint8_t *data;
    size_t size;
    toff_t at;
    TIFF *tiff;
    char error[256];
    char warning[256];
    int warnings;
    /* The chosen page goes through libtiff's RGBA interface (ctiff_info.converted), in
       bands of `band` rows, its stored orientation kept. */
    int converted;
    uint32_t band;
    uint32_t width, height;
    uint16_t orientation;
};

static void copy_message(char *to, size_t size, const char *from) {
    if (to && size) {
        snprintf(to, size, "%s", from && *from ? from : "unknown libtiff error");
    }
}

/* The first error of a call is the one that says why; later ones follow from it. */
static int on_error(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap) {
    (void)tif;
    (void)module;
    ctiff_reader *r = user;
    if (!r->error[0]) {
        vsnprintf(r->error, sizeof r->error, fmt, ap);
    }
    return 1;
}

static int on_warning(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap) {
    (void)tif;
    (void)module;
    ctiff_reader *r = user;
    /* Said of every old-style JPEG, whose pixels it then reads: a fact of the format, not
       damage in this file. */
    if (!strncmp(fmt, "Deprecated and troublesome old-style JPEG", 41)) {
        return 1;
    }
    if (!r->warnings++) {
        vsnprintf(r->warning, sizeof r->warning, fmt, ap);
    }
    return 1;
}

static void describe(TIFF *t, ctiff_info *info);
static void convert_if_needed(ctiff_reader *r, ctiff_info *info);

static tmsize_t mem_read(thandle_t h, void *buf, tmsize_t n) {
    ctiff_reader *r = h;
    if (n < 0 || r->at >= r->size) {
        return 0;
    }
    size_t left = r->size - (size_t)r->at;
    size_t take = (size_t)n < left ? (size_t)n : left;
    memcpy(buf, r->data + r->at, take);
    r->at += take;
    return (tmsize_t)take;
}

static tmsize_t mem_write(thandle_t h, void *buf, tmsize_t n) {
    (void)h;
    (void)buf;
    (void)n;
    return -1;
}

static toff_t mem_seek(thandle_t h, toff_t off, int whence) {
    ctiff_reader *r = h;
    uint64_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? r->at : r->size;
    uint64_t to = base + off;
    /* An offset past the end is allowed (reads there return nothing). */
    r->at = to;
    return to;
}

static int mem_close(thandle_t h) {
    (void)h;
    return 0;
}

static toff_t mem_size(thandle_t h) {
    return ((ctiff_reader *)h)->size;
}

static int mem_map(thandle_t h, void **base, toff_t *size) {
    ctiff_reader *r = h;
    *base = (void *)r->data;
    *size = r->size;
    return 1;
}

static void mem_unmap(thandle_t h, void *base, toff_t size) {
    (void)h;
    (void)base;
    (void)size;
}

ctiff_reader *ctiff_open(const uint8_t *data, size_t size, size_t max_alloc, char *err, size_t err_size) {
    if (ctiff_load(err, err_size)) {
        return NULL;
    }
    ctiff_reader *r = calloc(1, sizeof *r);
    if (!r) {
        copy_message(err, err_size, "out of memory");
        return NULL;
    }
    r->data = data;
    r->size = size;
    TIFFOpenOptions *opts = TIFFOpenOptionsAlloc();
    if (!opts) {
        free(r);
        copy_message(err, err_size, "out of memory");
        return NULL;
    }
    TIFFOpenOptionsSetMaxSingleMemAlloc(opts, (tmsize_t)(max_alloc > (size_t)INT64_MAX ? INT64_MAX : max_alloc));
    TIFFOpenOptionsSetErrorHandlerExtR(opts, on_error, r);
    TIFFOpenOptionsSetWarningHandlerExtR(opts, on_warning, r);
    /* "m" would let libtiff map the file; the data is already in memory, so the map
       procs hand it over without a copy. */
    r->tiff = TIFFClientOpenExt("input", "r", r, mem_read, mem_write, mem_seek, mem_close, mem_size, mem_map, mem_unmap,
                                opts);
    TIFFOpenOptionsFree(opts);
    if (!r->tiff) {
        copy_message(err, err_size, r->error);
        free(r);
        return NULL;
    }
    return r;
}

void ctiff_close(ctiff_reader *r) {
    if (r) {
        if (r->tiff) {
            TIFFClose(r->tiff);
        }
        free(r);
    }
}

int ctiff_page(ctiff_reader *r, int page, int count_pages, ctiff_info *info, char *err, size_t err_size) {
    memset(info, 0, sizeof *info);
    r->error[0] = 0;
    /* Counting walks the chain of directories (libtiff refuses a chain that loops), at
       most 65536 of them: about 0.3 s of a file made of nothing else. */
    int pages = 0;
    if (count_pages && TIFFSetDirectory(r->tiff, 0)) {
        pages = 1;
        while (pages < 65536 && TIFFReadDirectory(r->tiff)) {
            pages++;
        }
        r->error[0] = 0;
    }
    info->pages = pages;
    if (count_pages && page >= pages) {
        return -2;
    }
    if (page < 0 || !TIFFSetDirectory(r->tiff, (tdir_t)page)) {
        copy_message(err, err_size, r->error[0] ? r->error : "no such page");
        return -1;
    }
    describe(r->tiff, info);
    convert_if_needed(r, info);
    uint16_t count = 0;
    uint64_t *offsets = NULL;
    if (TIFFGetField(r->tiff, TIFFTAG_SUBIFD, &count, &offsets) && offsets) {
        info->subifds = count < CTIFF_MAX_SUBIFDS ? count : CTIFF_MAX_SUBIFDS;
        memcpy(info->subifd, offsets, info->subifds * sizeof *offsets);
    }
    return 0;
}

int ctiff_subifd(ctiff_reader *r, uint64_t offset, ctiff_info *info, char *err, size_t err_size) {
    memset(info, 0, sizeof *info);
    r->error[0] = 0;
    if (!TIFFSetSubDirectory(r->tiff, offset)) {
        copy_message(err, err_size, r->error[0] ? r->error : "no directory there");
        return -1;
    }
    describe(r->tiff, info);
    convert_if_needed(r, info);
    return 0;
}

static void describe(TIFF *t, ctiff_info *info) {
    uint16_t u16 = 0;
    uint32_t u32 = 0;
    TIFFGetField(t, TIFFTAG_IMAGEWIDTH, &info->width);
    TIFFGetField(t, TIFFTAG_IMAGELENGTH, &info->height);
    TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLESPERPIXEL, &u16);
    info->samples = u16;
    TIFFGetFieldDefaulted(t, TIFFTAG_BITSPERSAMPLE, &u16);
    info->bits = u16;
    TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLEFORMAT, &u16);
    info->sample_format = u16;
    info->photometric = -1;
    if (TIFFGetField(t, TIFFTAG_PHOTOMETRIC, &u16)) {
        info->photometric = u16;
    }
    TIFFGetFieldDefaulted(t, TIFFTAG_PLANARCONFIG, &u16);
    info->planar = u16;
    TIFFGetFieldDefaulted(t, TIFFTAG_COMPRESSION, &u16);
    info->compression = u16;
    TIFFGetFieldDefaulted(t, TIFFTAG_ORIENTATION, &u16);
    info->orientation = u16 >= 1 && u16 <= 8 ? u16 : 1;
    TIFFGetFieldDefaulted(t, TIFFTAG_INKSET, &u16);
    info->ink_set = u16;
    uint16_t extra_count = 0;
    uint16_t *extra = NULL;
    if (TIFFGetField(t, TIFFTAG_EXTRASAMPLES, &extra_count, &extra) && extra_count > 0 && extra) {
        info->extra_alpha = extra[0] == EXTRASAMPLE_ASSOCALPHA ? 1 : extra[0] == EXTRASAMPLE_UNASSALPHA ? 2 : 0;
    } else {
        info->extra_alpha = 3;
    }
    info->tiled = TIFFIsTiled(t);
    if (info->tiled) {
        TIFFGetField(t, TIFFTAG_TILEWIDTH, &info->tile_width);
        TIFFGetField(t, TIFFTAG_TILELENGTH, &info->tile_height);
    } else {
        TIFFGetFieldDefaulted(t, TIFFTAG_ROWSPERSTRIP, &u32);
        info->rows_per_strip = u32;
    }
    uint32_t length = 0;
    void *block = NULL;
    if (TIFFGetField(t, TIFFTAG_ICCPROFILE, &length, &block) && block && length) {
        info->icc = block;
        info->icc_length = length;
    }
    if (TIFFGetField(t, TIFFTAG_XMLPACKET, &length, &block) && block && length) {
        info->xmp = block;
        info->xmp_length = length;
    }
    uint16_t *red, *green, *blue;
    info->colormap = TIFFGetField(t, TIFFTAG_COLORMAP, &red, &green, &blue) ? 1 : 0;
    /* libjpeg's YCbCr to RGB, the colours every reader shows for a JPEG-compressed TIFF. */
    if (info->compression == COMPRESSION_JPEG && info->photometric == PHOTOMETRIC_YCBCR) {
        TIFFSetField(t, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
    }
    TIFFGetFieldDefaulted(t, TIFFTAG_SUBFILETYPE, &u32);
    info->reduced = (u32 & FILETYPE_REDUCEDIMAGE) != 0;
    info->ifd_offset = TIFFCurrentDirOffset(t);
}

/* Pillow's choice: old-style JPEG, and YCbCr other than JPEG's in one plane (subsampled
   or not, in planes), are read through TIFFRGBAImage, which upsamples and converts them
   with the page's coefficients and reference black and white. One libtiff cannot convert
   (16-bit YCbCr) is left as stored, for the reader to refuse by its fields. */
static void convert_if_needed(ctiff_reader *r, ctiff_info *info) {
    r->converted = 0;
    int ycbcr = info->photometric == PHOTOMETRIC_YCBCR &&
                !(info->compression == COMPRESSION_JPEG && info->planar == PLANARCONFIG_CONTIG);
    char why[1024];
    /* TIFFRGBAImageOK passes 16-bit YCbCr that TIFFRGBAImageGet then cannot put. */
    if (!(info->compression == COMPRESSION_OJPEG || (ycbcr && info->bits == 8)) || !TIFFRGBAImageOK(r->tiff, why)) {
        r->error[0] = 0;
        return;
    }
    r->converted = 1;
    r->width = info->width;
    r->height = info->height;
    r->orientation = (uint16_t)info->orientation;
    uint32_t band = info->tiled ? info->tile_height : info->rows_per_strip;
    r->band = band == 0 || band > info->height ? info->height : band;
    int alpha = info->extra_alpha == 1 || info->extra_alpha == 2;
    info->converted = 1;
    info->samples = 4;
    info->bits = 8;
    info->sample_format = 1;
    info->photometric = PHOTOMETRIC_RGB;
    info->planar = PLANARCONFIG_CONTIG;
    info->extra_alpha = alpha ? 1 : 0;
    info->tiled = 0;
    info->tile_width = info->tile_height = 0;
    info->rows_per_strip = r->band;
}

uint32_t ctiff_chunks(ctiff_reader *r) {
    if (r->converted) return (r->height + r->band - 1) / r->band;
    return TIFFIsTiled(r->tiff) ? TIFFNumberOfTiles(r->tiff) : TIFFNumberOfStrips(r->tiff);
}

static int compare_offsets(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int ctiff_shared_chunks(ctiff_reader *r) {
    int tiled = TIFFIsTiled(r->tiff);
    uint32_t n = ctiff_chunks(r);
    uint64_t *offsets = NULL, *counts = NULL;
    if (n < 2 || !TIFFGetField(r->tiff, tiled ? TIFFTAG_TILEOFFSETS : TIFFTAG_STRIPOFFSETS, &offsets) ||
        !TIFFGetField(r->tiff, tiled ? TIFFTAG_TILEBYTECOUNTS : TIFFTAG_STRIPBYTECOUNTS, &counts) || !offsets || !counts)
        return 0;
    uint64_t *sorted = malloc((size_t)n * sizeof *sorted);
    if (!sorted) return 0;
    uint32_t kept = 0;
    /* Empty chunks (a sparse file's) hold no data to share. */
    for (uint32_t i = 0; i < n; i++)
        if (counts[i] > 0) sorted[kept++] = offsets[i];
    qsort(sorted, kept, sizeof *sorted, compare_offsets);
    int shared = 0;
    for (uint32_t i = 1; i < kept && !shared; i++) shared = sorted[i] == sorted[i - 1];
    free(sorted);
    return shared;
}

size_t ctiff_chunk_size(ctiff_reader *r) {
    if (r->converted) return (size_t)r->band * r->width * 4;
    tmsize_t n = TIFFIsTiled(r->tiff) ? TIFFTileSize(r->tiff) : TIFFStripSize(r->tiff);
    return n > 0 ? (size_t)n : 0;
}

/* Band `index` of a converted page: libtiff's packed pixels are R, G, B, A in memory
   order on a little-endian machine, the samples as stored for an RGB page with alpha. */
static long read_converted(ctiff_reader *r, uint32_t index, uint8_t *out, size_t out_size, char *err, size_t err_size) {
    uint32_t top = index * r->band;
    if (top >= r->height) {
        copy_message(err, err_size, "no such strip");
        return -1;
    }
    uint32_t rows = r->height - top < r->band ? r->height - top : r->band;
    size_t bytes = (size_t)rows * r->width * 4;
    if (out_size < bytes) {
        copy_message(err, err_size, "strip buffer too small");
        return -1;
    }
    TIFFRGBAImage img;
    char why[1024] = "";
    if (!TIFFRGBAImageBegin(&img, r->tiff, 0, why)) {
        copy_message(err, err_size, r->error[0] ? r->error : why);
        return -1;
    }
    /* The stored order: the reader applies the orientation itself, as for every page. */
    img.req_orientation = r->orientation;
    img.row_offset = (int)top;
    img.col_offset = 0;
    int ok = TIFFRGBAImageGet(&img, (uint32_t *)(void *)out, r->width, rows);
    TIFFRGBAImageEnd(&img);
    if (!ok || r->error[0]) {
        copy_message(err, err_size, r->error);
        return -1;
    }
    return (long)bytes;
}

long ctiff_read_chunk(ctiff_reader *r, uint32_t index, uint8_t *out, size_t out_size, char *err, size_t err_size) {
    r->error[0] = 0;
    if (r->converted) return read_converted(r, index, out, out_size, err, err_size);
    tmsize_t n = TIFFIsTiled(r->tiff) ? TIFFReadEncodedTile(r->tiff, index, out, (tmsize_t)out_size)
                                      : TIFFReadEncodedStrip(r->tiff, index, out, (tmsize_t)out_size);
    if (n < 0) {
        copy_message(err, err_size, r->error);
        return -1;
    }
    return (long)n;
}

int ctiff_colormap(ctiff_reader *r, const uint16_t **red, const uint16_t **green, const uint16_t **blue) {
    uint16_t *rr, *gg, *bb;
    if (!TIFFGetField(r->tiff, TIFFTAG_COLORMAP, &rr, &gg, &bb)) {
        return -1;
    }
    *red = rr;
    *green = gg;
    *blue = bb;
    return 0;
}

int ctiff_warnings(const ctiff_reader *r, char *first, size_t first_size) {
    if (r->warnings) {
        copy_message(first, first_size, r->warning);
    }
    return r->warnings;
}

void ctiff_forget_warnings(ctiff_reader *r) {
    r->warnings = 0;
    r->warning[0] = 0;
}

/* The headers' version, as libheif's: asking the library would load it, and its six
   libraries, for `--version` alone. */
const char *ctiff_version(void) {
    return TIFFLIB_VERSION_STR;
}
