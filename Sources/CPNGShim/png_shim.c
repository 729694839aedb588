#include "png_shim.h"
#include "png_idat.h"

#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* Where libpng's error callback leaves its message before it longjmps back. libpng
   often warns with the specific reason ("Invalid bit depth in IHDR") just before a
   generic error ("Invalid IHDR data"), so the last warning is kept to quote as well. */
typedef struct {
    char message[320];
    char warning[128];
    char first_warning[128];
    int warnings;
    /* libpng's first complaint about the iCCP profile: advice about the profile (libpng
       keeps it, or drops it alone), not damage to the image, so not counted above. */
    char profile_warning[160];
    int truncated;
} shim_error;

struct cpng_reader {
    png_structp png;
    png_infop info;
    int channels;
    int prepared;
    int keep16;  /* 16-bit samples kept (native byte order) instead of scaled to 8 */
    const uint8_t *data;
    size_t size;
    size_t pos;
    png_bytep *rows;
    uint8_t *xmp;
    uint32_t xmp_length;
    uint8_t *raw_exif;
    uint32_t raw_exif_length;
    uint32_t apng_frames;
    int texts;
    shim_error error;
};

static void shim_error_fn(png_structp png, png_const_charp message) {
    shim_error *e = (shim_error *)png_get_error_ptr(png);
    if (e->warning[0]) {
        snprintf(e->message, sizeof e->message, "%s (%s)", message ? message : "unknown libpng error", e->warning);
    } else {
        snprintf(e->message, sizeof e->message, "%s", message ? message : "unknown libpng error");
    }
    png_longjmp(png, 1);
}

/* libpng has already recovered from a warning (a bad ancillary CRC, a known incorrect
   sRGB profile), and printing from a library is not ours to do: warnings are counted
   and the first kept, for the caller's --fail-on to judge; the last one is kept too,
   to explain an error that follows it. */
static void shim_warning_fn(png_structp png, png_const_charp message) {
    shim_error *e = (shim_error *)png_get_error_ptr(png);
    if (message && strncmp(message, "iCCP: ", 6) == 0) {
        if (!e->profile_warning[0]) snprintf(e->profile_warning, sizeof e->profile_warning, "%s", message + 6);
        return;
    }
    snprintf(e->warning, sizeof e->warning, "%s", message ? message : "");
    if (e->warnings++ == 0) {
        snprintf(e->first_warning, sizeof e->first_warning, "%s", message ? message : "");
    }
}

static void shim_read_fn(png_structp png, png_bytep out, png_size_t length) {
    cpng_reader *r = (cpng_reader *)png_get_io_ptr(png);
    if (length > r->size - r->pos) {
        r->error.truncated = 1;
        png_error(png, "unexpected end of file (truncated PNG)");
    }
    memcpy(out, r->data + r->pos, length);
    r->pos += length;
}

/* Text chunks reach here raw, never inflated: a zTXt can inflate a thousandfold, and
   a file of a hundred of them made libpng hold 800 MB just to read a header. They are
   only counted, except an uncompressed iTXt XMP packet, whose bytes are kept. */
/* The text of a tEXt, zTXt or iTXt chunk after its keyword (`at`: past the keyword's
   NUL), inflated where compressed, at most `limit` bytes; NULL when it does not parse,
   inflate or fit. */
static uint8_t *chunk_text(png_unknown_chunkp chunk, size_t at, size_t limit, uint32_t *length) {
    int compressed = 0;
    if (memcmp(chunk->name, "zTXt", 4) == 0) {
        compressed = 1;
        at += 1;
    } else if (memcmp(chunk->name, "iTXt", 4) == 0) {
        if (at + 2 > chunk->size) return NULL;
        compressed = chunk->data[at] != 0;
        at += 2;
        for (int field = 0; field < 2; field++) {
            const uint8_t *nul = at < chunk->size ? memchr(chunk->data + at, 0, chunk->size - at) : NULL;
            if (!nul) return NULL;
            at = (size_t)(nul - chunk->data) + 1;
        }
    }
    if (at > chunk->size) return NULL;
    if (!compressed) {
        if (chunk->size - at > limit) return NULL;
        uint8_t *copy = malloc(chunk->size - at + 1);
        if (copy) memcpy(copy, chunk->data + at, chunk->size - at);
        *length = (uint32_t)(chunk->size - at);
        return copy;
    }
    uint8_t *out = malloc(limit);
    if (!out) return NULL;
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit(&z) != Z_OK) {
        free(out);
        return NULL;
    }
    z.next_in = chunk->data + at;
    z.avail_in = (uInt)(chunk->size - at);
    z.next_out = out;
    z.avail_out = (uInt)limit;
    int status = inflate(&z, Z_FINISH);
    inflateEnd(&z);
    if (status != Z_STREAM_END) {
        free(out);
        return NULL;
    }
    *length = (uint32_t)(limit - z.avail_out);
    return out;
}

static int text_chunk_fn(png_structp png, png_unknown_chunkp chunk) {
    cpng_reader *r = (cpng_reader *)png_get_user_chunk_ptr(png);
    if (memcmp(chunk->name, "acTL", 4) == 0) {
        /* libpng knows no APNG: the frames are counted here, the default image decoded. */
        if (chunk->size >= 8 && !r->apng_frames)
            r->apng_frames = (uint32_t)chunk->data[0] << 24 | (uint32_t)chunk->data[1] << 16 |
                             (uint32_t)chunk->data[2] << 8 | chunk->data[3];
        return 1;
    }
    if (memcmp(chunk->name, "tEXt", 4) != 0 && memcmp(chunk->name, "zTXt", 4) != 0 &&
        memcmp(chunk->name, "iTXt", 4) != 0)
        return 1;
    static const char raw_exif_key[] = "Raw profile type exif";
    if (!r->raw_exif && chunk->size > sizeof raw_exif_key &&
        memcmp(chunk->data, raw_exif_key, sizeof raw_exif_key) == 0) {
        r->raw_exif = chunk_text(chunk, sizeof raw_exif_key, 1u << 20, &r->raw_exif_length);
        if (r->raw_exif) return 1;
    }
    static const char xmp_key[] = "XML:com.adobe.xmp";
    size_t key = sizeof xmp_key; /* keyword and its NUL */
    if (memcmp(chunk->name, "iTXt", 4) == 0 && !r->xmp && chunk->size > key + 2 &&
        memcmp(chunk->data, xmp_key, key) == 0 && chunk->data[key] == 0) {
        /* After the keyword: compression flag (0), method, then the language tag and
           the translated keyword, each NUL-terminated, then the text. */
        size_t at = key + 2;
        for (int field = 0; field < 2 && at < chunk->size; field++) {
            const uint8_t *nul = memchr(chunk->data + at, 0, chunk->size - at);
            at = nul ? (size_t)(nul - chunk->data) + 1 : chunk->size;
        }
        if (at < chunk->size && chunk->size - at <= 0xffffffffu) {
            r->xmp = malloc(chunk->size - at);
            if (r->xmp) {
                memcpy(r->xmp, chunk->data + at, chunk->size - at);
                r->xmp_length = (uint32_t)(chunk->size - at);
                return 1;
            }
        }
    }
    r->texts++;
    return 1;
}

/* -2 when the error means data is missing (the file or the IDAT stream ends early),
   -1 for any other error. */
static int failure(cpng_reader *r) {
    return r->error.truncated || strstr(r->error.message, "Not enough image data") ? -2 : -1;
}

static void copy_message(char *err, size_t err_size, const char *message) {
    if (err && err_size) {
        snprintf(err, err_size, "%s", message);
    }
}

cpng_reader *cpng_reader_open(const uint8_t *data, size_t size, int tolerate_crc, cpng_info *out,
                              char *err, size_t err_size) {
    cpng_reader *r = calloc(1, sizeof *r);
    if (!r) {
        copy_message(err, err_size, "out of memory");
        return NULL;
    }
    r->data = data;
    r->size = size;
    r->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &r->error, shim_error_fn,
                                    shim_warning_fn);
    if (!r->png) {
        free(r);
        copy_message(err, err_size, "out of memory");
        return NULL;
    }
    r->info = png_create_info_struct(r->png);
    if (!r->info) {
        png_destroy_read_struct(&r->png, NULL, NULL);
        free(r);
        copy_message(err, err_size, "out of memory");
        return NULL;
    }
    if (setjmp(png_jmpbuf(r->png))) {
        copy_message(err, err_size, r->error.message);
        cpng_reader_close(r);
        return NULL;
    }
    png_set_read_fn(r->png, r, shim_read_fn);
    /* libpng flags the HP/Microsoft sRGB profile that countless cameras and Photoshop
       embed as "known incorrect": advice about the profile, not damage to the image. */
    png_set_option(r->png, PNG_SKIP_sRGB_CHECK_PROFILE, PNG_OPTION_ON);
    if (tolerate_crc) {
        /* Damage is to be decoded through: bad CRCs warn and the data is used. */
        png_set_crc_action(r->png, PNG_CRC_WARN_USE, PNG_CRC_WARN_USE);
    }
    /* The caller enforces its own pixel limit; libpng's 1e6 x 1e6 default
       is lifted to the PNG maximum so the caller's message is the one users see. */
    png_set_user_limits(r->png, 0x7fffffff, 0x7fffffff);
    /* No chunk that libpng inflates or stores (iCCP, sPLT, eXIf...) may take more than
       8 MB: the largest real ICC profiles are about 1 MB. libpng's own build default,
       stated here so it holds whatever the build. */
    png_set_chunk_malloc_max(r->png, 8000000);
    png_set_read_user_chunk_fn(r->png, r, text_chunk_fn);
    png_set_keep_unknown_chunks(r->png, PNG_HANDLE_CHUNK_NEVER, (png_const_bytep) "tEXt\0zTXt\0iTXt\0", 3);
    png_read_info(r->png, r->info);

    png_uint_32 width, height;
    int bit_depth, color_type, interlace;
    png_get_IHDR(r->png, r->info, &width, &height, &bit_depth, &color_type, &interlace,
                 NULL, NULL);
    memset(out, 0, sizeof *out);
    out->width = width;
    out->height = height;
    out->bit_depth = bit_depth;
    out->color_type = color_type;
    out->interlaced = interlace != PNG_INTERLACE_NONE;

    /* Samples stay as stored: no gamma, no background, as in Pillow and libvips. */
    png_set_expand(r->png);
    png_set_interlace_handling(r->png);
    /* The channels after expansion, worked out here rather than by png_read_update_info:
       that allocates row buffers for the declared width, and the caller must check the
       size limits first (a fuzzer found a 6.7 GB allocation from a 14 KB file). */
    int trns = png_get_valid(r->png, r->info, PNG_INFO_tRNS) ? 1 : 0;
    switch (color_type) {
    case PNG_COLOR_TYPE_GRAY: out->channels = 1 + trns; break;
    case PNG_COLOR_TYPE_GRAY_ALPHA: out->channels = 2; break;
    case PNG_COLOR_TYPE_RGB_ALPHA: out->channels = 4; break;
    default: out->channels = 3 + trns; break;
    }
    r->channels = out->channels;

    png_charp name;
    int compression;
    png_bytep profile;
    png_uint_32 profile_length;
    if (png_get_iCCP(r->png, r->info, &name, &compression, &profile, &profile_length)) {
        out->icc = profile;
        out->icc_length = profile_length;
    }
    png_bytep exif;
    png_uint_32 exif_length;
    if (png_get_eXIf_1(r->png, r->info, &exif_length, &exif) && exif_length) {
        out->exif = exif;
        out->exif_length = exif_length;
    }
    out->xmp = r->xmp;
    out->xmp_length = r->xmp_length;
    out->raw_exif_text = r->raw_exif;
    out->raw_exif_text_length = r->raw_exif_length;
    out->apng_frames = r->apng_frames;
    out->texts = r->texts;
    return r;
}

/* Applies the transforms set at open (png_read_update_info); call under setjmp. */
static void prepare(cpng_reader *r) {
    if (r->prepared) {
        return;
    }
    int sample_bytes = 1;
    if (r->keep16 && png_get_bit_depth(r->png, r->info) == 16) {
        /* PNG stores big-endian; the caller reads native 16-bit samples. */
        const uint16_t probe = 1;
        if (*(const uint8_t *)&probe == 1) png_set_swap(r->png);
        sample_bytes = 2;
    } else {
        png_set_scale_16(r->png);
    }
    png_read_update_info(r->png, r->info);
    if (png_get_channels(r->png, r->info) != r->channels ||
        png_get_rowbytes(r->png, r->info) != (size_t)png_get_image_width(r->png, r->info) * r->channels * sample_bytes) {
        png_error(r->png, "unexpected row layout after expansion");
    }
    r->prepared = 1;
}

int cpng_reader_read(cpng_reader *r, uint8_t *pixels, size_t stride,
                     char *err, size_t err_size) {
    png_uint_32 height = png_get_image_height(r->png, r->info);
    r->rows = malloc(sizeof(png_bytep) * (height ? height : 1));
    if (!r->rows) {
        copy_message(err, err_size, "out of memory");
        return -1;
    }
    for (png_uint_32 y = 0; y < height; y++) {
        r->rows[y] = pixels + (size_t)y * stride;
    }
    if (setjmp(png_jmpbuf(r->png))) {
        copy_message(err, err_size, r->error.message);
        return failure(r);
    }
    prepare(r);
    png_read_image(r->png, r->rows);
    /* Reading through IEND makes a corrupt trailer (bad CRC, missing IEND) an error,
       as in pngcheck, rather than a silent success. */
    png_read_end(r->png, NULL);
    return 0;
}

int cpng_reader_read_rows(cpng_reader *r, uint8_t *pixels, size_t stride, uint32_t rows,
                          uint32_t *done, char *err, size_t err_size) {
    /* volatile: read after a longjmp back into this frame. */
    volatile uint32_t y = 0;
    *done = 0;
    if (setjmp(png_jmpbuf(r->png))) {
        *done = y;
        copy_message(err, err_size, r->error.message);
        return failure(r);
    }
    prepare(r);
    for (; y < rows; y++) {
        png_read_row(r->png, pixels + (size_t)y * stride, NULL);
    }
    *done = rows;
    return 0;
}

int cpng_reader_finish(cpng_reader *r, char *err, size_t err_size) {
    if (setjmp(png_jmpbuf(r->png))) {
        copy_message(err, err_size, r->error.message);
        return failure(r);
    }
    png_read_end(r->png, NULL);
    return 0;
}

int cpng_reader_profile_warning(const cpng_reader *r, char *message, size_t message_size) {
    if (!r->error.profile_warning[0]) return 0;
    copy_message(message, message_size, r->error.profile_warning);
    return 1;
}

int cpng_reader_warnings(const cpng_reader *r, char *first, size_t first_size) {
    if (r->error.warnings) {
        copy_message(first, first_size, r->error.first_warning);
    }
    return r->error.warnings;
}

void cpng_reader_close(cpng_reader *r) {
    if (!r) {
        return;
    }
    png_destroy_read_struct(&r->png, &r->info, NULL);
    free(r->rows);
    free(r->xmp);
    free(r->raw_exif);
    free(r);
}

typedef struct {
    uint8_t *bytes;
    size_t size;
    size_t capacity;
    shim_error error;
} shim_sink;

static void shim_write_fn(png_structp png, png_bytep data, png_size_t length) {
    shim_sink *s = (shim_sink *)png_get_io_ptr(png);
    if (length > s->capacity - s->size) {
        size_t capacity = s->capacity ? s->capacity : 65536;
        while (capacity - s->size < length) {
            if (capacity > SIZE_MAX / 2) {
                png_error(png, "output too large");
            }
            capacity *= 2;
        }
        uint8_t *grown = realloc(s->bytes, capacity);
        if (!grown) {
            png_error(png, "out of memory");
        }
        s->bytes = grown;
        s->capacity = capacity;
    }
    memcpy(s->bytes + s->size, data, length);
    s->size += length;
}

static void shim_flush_fn(png_structp png) {
    (void)png;
}

/* libpng writes the header chunks; the image data is png_idat.c's (see there why). */
struct cpng_writer {
    png_structp png;
    png_infop info;
    shim_sink sink;
    char *xmp;
    cpng_idat *idat;
};

static void writer_destroy(cpng_writer *w) {
    png_destroy_write_struct(&w->png, &w->info);
    cpng_idat_close(w->idat);
    free(w->xmp);
    free(w->sink.bytes);
    free(w);
}

cpng_writer *cpng_writer_open(uint32_t width, uint32_t height, int channels, int bit_depth, int compression_level,
                              const cpng_metadata *metadata, char *err, size_t err_size) {
    static const int color_types[5] = {
        -1, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
        PNG_COLOR_TYPE_RGB_ALPHA};
    if (channels < 1 || channels > 4) {
        copy_message(err, err_size, "unsupported channel count");
        return NULL;
    }
    if (bit_depth != 8 && bit_depth != 16) {
        copy_message(err, err_size, "unsupported bit depth");
        return NULL;
    }
    /* Set once, before the setjmp below, and never changed after it. */
    const int palette = bit_depth == 8 && metadata && metadata->palette && metadata->palette_size > 0
                        && metadata->palette_size <= 256;
    cpng_writer *w = calloc(1, sizeof *w);
    if (!w) {
        copy_message(err, err_size, "out of memory");
        return NULL;
    }
    w->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &w->sink.error, shim_error_fn,
                                     shim_warning_fn);
    if (w->png) {
        w->info = png_create_info_struct(w->png);
    }
    if (!w->png || !w->info) {
        copy_message(err, err_size, "out of memory");
        writer_destroy(w);
        return NULL;
    }
    if (setjmp(png_jmpbuf(w->png))) {
        copy_message(err, err_size, w->sink.error.message);
        writer_destroy(w);
        return NULL;
    }
    png_set_write_fn(w->png, &w->sink, shim_write_fn, shim_flush_fn);
    png_set_option(w->png, PNG_SKIP_sRGB_CHECK_PROFILE, PNG_OPTION_ON);
    /* libpng's complaints about a profile ("PCS illuminant is not D50" for ProPhoto)
       are warnings, as when it reads one; a profile it still refuses is not set, and
       cpng_icc_refusal has already told the caller so. */
    png_set_benign_errors(w->png, 1);
    /* libpng refuses to write more than 1,000,000 rows or columns by default, a limit
       of its own, not of PNG: lifted to the format's 2^31 - 1. */
    png_set_user_limits(w->png, 0x7fffffff, 0x7fffffff);
    if (palette) {
        png_color colors[256];
        png_byte alphas[256];
        int last_translucent = -1;
        for (int i = 0; i < metadata->palette_size; i++) {
            colors[i].red = metadata->palette[i * 4];
            colors[i].green = metadata->palette[i * 4 + 1];
            colors[i].blue = metadata->palette[i * 4 + 2];
            alphas[i] = metadata->palette[i * 4 + 3];
            if (alphas[i] != 255) {
                last_translucent = i;
            }
        }
        png_set_IHDR(w->png, w->info, width, height, 8, PNG_COLOR_TYPE_PALETTE, PNG_INTERLACE_NONE,
                     PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
        png_set_PLTE(w->png, w->info, colors, metadata->palette_size);
        if (last_translucent >= 0) {
            /* tRNS only needs to reach the last entry that is not opaque. */
            png_set_tRNS(w->png, w->info, alphas, last_translucent + 1, NULL);
        }
    } else {
        png_set_IHDR(w->png, w->info, width, height, bit_depth, color_types[channels], PNG_INTERLACE_NONE,
                     PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    }
    if (metadata && metadata->icc && metadata->icc_length) {
        png_set_iCCP(w->png, w->info, "ICC Profile", PNG_COMPRESSION_TYPE_BASE, metadata->icc,
                     metadata->icc_length);
    }
    if (metadata && metadata->exif && metadata->exif_length) {
        png_set_eXIf_1(w->png, w->info, metadata->exif_length, (png_bytep)metadata->exif);
    }
    if (metadata && metadata->xmp && metadata->xmp_length) {
        /* libpng measures iTXt text with strlen, so it needs its own terminated copy. */
        w->xmp = malloc((size_t)metadata->xmp_length + 1);
        if (!w->xmp) {
            png_error(w->png, "out of memory");
        }
        memcpy(w->xmp, metadata->xmp, metadata->xmp_length);
        w->xmp[metadata->xmp_length] = 0;
        png_text text;
        memset(&text, 0, sizeof text);
        text.compression = PNG_ITXT_COMPRESSION_NONE;
        text.key = "XML:com.adobe.xmp";
        text.text = w->xmp;
        text.itxt_length = metadata->xmp_length;
        text.lang = "";
        text.lang_key = "";
        png_set_text(w->png, w->info, &text, 1);
    }
    png_write_info(w->png, w->info);
    /* The filters work on bytes, a 16-bit pixel being 2 bytes a channel. */
    w->idat = cpng_idat_open(width, palette ? 1 : channels * bit_depth / 8, compression_level, !palette,
                             w->sink.bytes, w->sink.size, w->sink.capacity);
    if (!w->idat) {
        png_error(w->png, "out of memory");
    }
    w->sink.bytes = NULL;
    return w;
}

int cpng_writer_write_rows(cpng_writer *w, const uint8_t *pixels, size_t stride, uint32_t rows,
                           char *err, size_t err_size) {
    if (cpng_idat_write_rows(w->idat, pixels, stride, rows)) {
        copy_message(err, err_size, "out of memory or zlib error writing the image data");
        return -1;
    }
    return 0;
}

int cpng_writer_finish(cpng_writer *w, uint8_t **out, size_t *out_size, char *err, size_t err_size) {
    if (cpng_idat_finish(w->idat, out, out_size)) {
        copy_message(err, err_size, "out of memory or zlib error writing the image data");
        return -1;
    }
    return 0;
}

void cpng_writer_close(cpng_writer *w) {
    if (w) {
        writer_destroy(w);
    }
}

int cpng_icc_refusal(const uint8_t *icc, uint32_t length, int channels, char *why, size_t why_size) {
    shim_error e;
    memset(&e, 0, sizeof e);
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &e, shim_error_fn, shim_warning_fn);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        png_destroy_write_struct(&png, &info);
        copy_message(why, why_size, "out of memory");
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) {
        copy_message(why, why_size, e.message);
        png_destroy_write_struct(&png, &info);
        return 1;
    }
    png_set_option(png, PNG_SKIP_sRGB_CHECK_PROFILE, PNG_OPTION_ON);
    /* Its complaints about the profile become warnings, and a refused profile is
       simply not set: what the writer would do with it, asked without an image. */
    png_set_benign_errors(png, 1);
    png_set_IHDR(png, info, 1, 1, 8, channels <= 2 ? PNG_COLOR_TYPE_GRAY : PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_iCCP(png, info, "ICC Profile", PNG_COMPRESSION_TYPE_BASE, icc, length);
    int refused = !png_get_valid(png, info, PNG_INFO_iCCP);
    if (refused) copy_message(why, why_size, e.warning[0] ? e.warning : "refused by libpng");
    png_destroy_write_struct(&png, &info);
    return refused;
}

void cpng_free(void *p) {
    free(p);
}

const char *cpng_version(void) { return png_get_libpng_ver(NULL); }

void cpng_reader_keep_16(cpng_reader *r) { r->keep16 = 1; }
