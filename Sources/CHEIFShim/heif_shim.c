#include "heif_shim.h"

#include "heif_api.h"
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

struct cheif_reader {
    struct heif_context *ctx;
    struct heif_image_handle *handle;
    uint8_t *icc;
    uint8_t *exif_item;
    uint8_t *xmp;
};

static int failed(struct heif_error e, const char *what, char *err, size_t errlen) {
    if (e.code == heif_error_Ok) return 0;
    snprintf(err, errlen, "%s: %s", what, e.message ? e.message : "unknown libheif error");
    /* Some of libheif's messages end in a newline; the caller's line has its own. */
    for (size_t n = strlen(err); n > 0 && (err[n - 1] == '\n' || err[n - 1] == ' '); n--) err[n - 1] = 0;
    return 1;
}

void cheif_close(cheif_reader *r) {
    if (!r) return;
    if (r->handle) heif_image_handle_release(r->handle);
    if (r->ctx) heif_context_free(r->ctx);
    free(r->icc);
    free(r->exif_item);
    free(r->xmp);
    free(r);
}

/* The first metadata block of `type` (and, for "mime", of `content_type`), copied. */
static uint8_t *metadata(struct heif_image_handle *h, const char *type, const char *content_type, size_t *length) {
    heif_item_id ids[16];
    int n = heif_image_handle_get_list_of_metadata_block_IDs(h, type, ids, 16);
    for (int i = 0; i < n; i++) {
        if (content_type) {
            const char *ct = heif_image_handle_get_metadata_content_type(h, ids[i]);
            if (!ct || strcmp(ct, content_type) != 0) continue;
        }
        size_t size = heif_image_handle_get_metadata_size(h, ids[i]);
        if (size == 0 || size > (64u << 20)) continue;
        uint8_t *bytes = malloc(size);
        if (!bytes) return NULL;
        if (heif_image_handle_get_metadata(h, ids[i], bytes).code != heif_error_Ok) {
            free(bytes);
            continue;
        }
        *length = size;
        return bytes;
    }
    return NULL;
}

cheif_reader *cheif_open(const uint8_t *data, size_t size, int max_side, cheif_info *info, char *err, size_t errlen) {
    memset(info, 0, sizeof *info);
    if (cheif_load(err, errlen)) return NULL;
    cheif_reader *r = calloc(1, sizeof *r);
    if (!r || !(r->ctx = heif_context_alloc())) {
        snprintf(err, errlen, "out of memory");
        free(r);
        return NULL;
    }
    heif_context_set_maximum_image_size_limit(r->ctx, max_side);
    if (failed(heif_context_read_from_memory_without_copy(r->ctx, data, size, NULL), "cannot read the container", err, errlen) ||
        failed(heif_context_get_primary_image_handle(r->ctx, &r->handle), "no primary image", err, errlen)) {
        cheif_close(r);
        return NULL;
    }
    struct heif_image_handle *h = r->handle;
    info->width = (uint32_t)heif_image_handle_get_width(h);
    info->height = (uint32_t)heif_image_handle_get_height(h);
    info->has_alpha = heif_image_handle_has_alpha_channel(h);
    info->premultiplied = heif_image_handle_is_premultiplied_alpha(h);
    info->bit_depth = heif_image_handle_get_luma_bits_per_pixel(h);
    info->images = heif_context_get_number_of_top_level_images(r->ctx);
    enum heif_color_profile_type profile = heif_image_handle_get_color_profile_type(h);
    if (profile == heif_color_profile_type_prof || profile == heif_color_profile_type_rICC) {
        size_t n = heif_image_handle_get_raw_color_profile_size(h);
        if (n > 0 && n <= (64u << 20) && (r->icc = malloc(n)) &&
            heif_image_handle_get_raw_color_profile(h, r->icc).code == heif_error_Ok) {
            info->icc = r->icc;
            info->icc_length = n;
        }
    }
    size_t n = 0;
    /* An Exif item starts with the offset of the TIFF header after these 4 bytes. */
    if ((r->exif_item = metadata(h, "Exif", NULL, &n)) && n > 4) {
        uint32_t offset = (uint32_t)r->exif_item[0] << 24 | (uint32_t)r->exif_item[1] << 16 | (uint32_t)r->exif_item[2] << 8 | r->exif_item[3];
        if (offset < n - 4) {
            info->exif = r->exif_item + 4 + offset;
            info->exif_length = n - 4 - offset;
        }
    }
    n = 0;
    if ((r->xmp = metadata(h, "mime", "application/rdf+xml", &n))) {
        info->xmp = r->xmp;
        info->xmp_length = n;
    }
    if (info->width == 0 || info->height == 0) {
        snprintf(err, errlen, "the primary image has no size");
        cheif_close(r);
        return NULL;
    }
    return r;
}

/* A limited-range level of `bits` (16..235 at 8 bits) stretched to 0..2^bits-1, rounded
   and clamped as libavif does (avifLimitedToFullY). */
static uint32_t full_from_limited(int32_t v, int bits) {
    int32_t low = 16 << (bits - 8), span = 219 << (bits - 8), top = (1 << bits) - 1;
    int32_t f = ((v - low) * top + span / 2) / span;
    return (uint32_t)(f < 0 ? 0 : f > top ? top : f);
}

/* sample_bytes 1: 8-bit samples, libheif reducing deeper sources; 2: the source's own
   levels, widened to 16 bits. limited_gray: the colour samples are a limited-range Y
   plane libheif copied as it is (HEIFGrayRange.swift says when), stretched here. */
static int decode(cheif_reader *r, int channels, int threads, int sample_bytes, int limited_gray, void *out, size_t stride,
                  char *err, size_t errlen) {
    /* libheif's default is 4 tile threads whatever the machine; 1 decodes on this one. */
    heif_context_set_max_decoding_threads(r->ctx, threads > 1 ? threads : 1);
    struct heif_decoding_options *options = heif_decoding_options_alloc();
    if (!options) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    /* A deep limited-range gray plane is stretched at its own depth, then narrowed: once
       reduced to 8 bits by libheif and stretched, it rounded twice (2 levels off avifdec). */
    int wide = sample_bytes == 2 || (limited_gray && heif_image_handle_get_luma_bits_per_pixel(r->handle) > 8);
    options->convert_hdr_to_8bit = !wide;
    enum heif_chroma chroma = !wide ? (channels == 4 ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB)
                                    : (channels == 4 ? heif_chroma_interleaved_RRGGBBAA_LE : heif_chroma_interleaved_RRGGBB_LE);
    struct heif_image *image = NULL;
    struct heif_error e = heif_decode_image(r->handle, &image, heif_colorspace_RGB, chroma, options);
    heif_decoding_options_free(options);
    if (failed(e, "cannot decode the image", err, errlen)) return -1;
    int plane_stride = 0;
    const uint8_t *plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &plane_stride);
    int w = heif_image_get_width(image, heif_channel_interleaved), h = heif_image_get_height(image, heif_channel_interleaved);
    int bits = !wide ? 8 : heif_image_get_bits_per_pixel_range(image, heif_channel_interleaved);
    int status = 0;
    uint32_t want_w = heif_image_handle_get_width(r->handle), want_h = heif_image_handle_get_height(r->handle);
    if (!plane || w < 0 || h < 0 || (uint32_t)w != want_w || (uint32_t)h != want_h) {
        snprintf(err, errlen, "decoded %dx%d, but the header says %ux%u", w, h, want_w, want_h);
        status = -1;
    } else if (bits < 8 || bits > 16) {
        snprintf(err, errlen, "decoded %d bits a sample", bits);
        status = -1;
    } else if (!wide) {
        for (int y = 0; y < h; y++) {
            uint8_t *dst = (uint8_t *)out + (size_t)y * stride;
            memcpy(dst, plane + (size_t)y * plane_stride, (size_t)w * channels);
            if (limited_gray) {
                for (size_t i = 0; i < (size_t)w * channels; i++) {
                    if (channels < 4 || i % 4 != 3) dst[i] = (uint8_t)full_from_limited(dst[i], 8);
                }
            }
        }
    } else {
        uint32_t top = (1u << bits) - 1;
        size_t n = (size_t)w * channels;
        for (int y = 0; y < h; y++) {
            const uint8_t *src = plane + (size_t)y * plane_stride;
            uint16_t *dst16 = (uint16_t *)out + (size_t)y * stride;
            uint8_t *dst8 = (uint8_t *)out + (size_t)y * stride;
            for (size_t i = 0; i < n; i++) {
                uint32_t v = (uint32_t)src[2 * i] | (uint32_t)src[2 * i + 1] << 8;
                if (v > top) v = top;
                if (limited_gray && (channels < 4 || i % 4 != 3)) v = full_from_limited((int32_t)v, bits);
                if (sample_bytes == 2) dst16[i] = (uint16_t)((v * 65535u + top / 2) / top);
                else dst8[i] = (uint8_t)((v * 255u + top / 2) / top);
            }
        }
    }
    heif_image_release(image);
    return status;
}

int cheif_decode(cheif_reader *r, int channels, int threads, int limited_gray, uint8_t *out, size_t stride, char *err,
                 size_t errlen) {
    return decode(r, channels, threads, 1, limited_gray, out, stride, err, errlen);
}

int cheif_decode16(cheif_reader *r, int channels, int threads, int limited_gray, uint16_t *out, size_t stride, char *err,
                   size_t errlen) {
    return decode(r, channels, threads, 2, limited_gray, out, stride, err, errlen);
}

typedef struct {
    uint8_t *bytes;
    size_t size;
    size_t capacity;
} sink;

static struct heif_error write_memory(struct heif_context *ctx, const void *data, size_t size, void *userdata) {
    (void)ctx;
    sink *s = userdata;
    struct heif_error ok = {heif_error_Ok, heif_suberror_Unspecified, "ok"};
    struct heif_error oom = {heif_error_Memory_allocation_error, heif_suberror_Unspecified, "out of memory"};
    if (s->size + size > s->capacity) {
        size_t capacity = (s->size + size) * 2;
        uint8_t *bigger = realloc(s->bytes, capacity);
        if (!bigger) return oom;
        s->bytes = bigger;
        s->capacity = capacity;
    }
    memcpy(s->bytes + s->size, data, size);
    s->size += size;
    return ok;
}

int cheif_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int channels, size_t stride,
                 const cheif_encode_options *o,
                 const uint8_t *icc, size_t icc_length, const uint8_t *exif, size_t exif_length,
                 const uint8_t *xmp, size_t xmp_length,
                 uint8_t **out, size_t *out_size, char *err, size_t errlen) {
    *out = NULL;
    *out_size = 0;
    if (cheif_load(err, errlen)) return -1;
    struct heif_context *ctx = heif_context_alloc();
    struct heif_encoder *encoder = NULL;
    struct heif_image *image = NULL;
    struct heif_image_handle *handle = NULL;
    sink s = {NULL, 0, 0};
    int status = -1;
    struct heif_encoding_options *encoding = NULL;
    struct heif_color_profile_nclx *gbr = NULL;
    if (!ctx) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (failed(heif_context_get_encoder_for_format(ctx, o->av1 ? heif_compression_AV1 : heif_compression_HEVC, &encoder),
               o->av1 ? "no AV1 encoder" : "no HEVC encoder", err, errlen))
        goto done;
    if (failed(heif_encoder_set_lossy_quality(encoder, o->quality), "quality", err, errlen)) goto done;
    if (o->speed >= 0) heif_encoder_set_parameter_integer(encoder, "speed", o->speed);
    if (o->av1 && o->lossless) {
        /* Lossless in AV1 keeps the coded planes; only RGB coded as GBR (matrix 0) at
           4:4:4 keeps the pixels, where YCbCr would round them by a level. */
        if (failed(heif_encoder_set_lossless(encoder, 1), "lossless", err, errlen) ||
            failed(heif_encoder_set_parameter_string(encoder, "chroma", "444"), "chroma 444", err, errlen))
            goto done;
        encoding = heif_encoding_options_alloc();
        gbr = heif_nclx_color_profile_alloc();
        if (!encoding || !gbr) {
            snprintf(err, errlen, "out of memory");
            goto done;
        }
        gbr->matrix_coefficients = heif_matrix_coefficients_RGB_GBR;
        gbr->color_primaries = heif_color_primaries_ITU_R_BT_709_5;
        gbr->transfer_characteristics = heif_transfer_characteristic_IEC_61966_2_1;
        gbr->full_range_flag = 1;
        encoding->output_nclx_profile = gbr;
        /* With an ICC profile too, both boxes: readers that see only the profile would
           take the planes for YCbCr. */
        encoding->save_two_colr_boxes_when_ICC_and_nclx_available = 1;
    } else if (o->av1 && (o->chroma == 444 || o->chroma == 422)) {
        if (failed(heif_encoder_set_parameter_string(encoder, "chroma", o->chroma == 444 ? "444" : "422"), "chroma", err, errlen))
            goto done;
    }
    /* More threads than cores gain nothing, and x265 given a pool of hundreds on two
       cores did not finish in a minute; the bytes do not depend on the count. */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = o->threads < 1 ? 1 : o->threads;
    if (cores > 0 && threads > cores) threads = (int)cores;
    if (o->av1) {
        /* aom codes superblock rows in parallel (row-mt) only from 2 threads, and row-mt
           codes differently: from 2 up the bytes are the same at any count, so never
           fewer. On one core the second thread costs nothing measurable. */
        heif_encoder_set_parameter_integer(encoder, "threads", threads > 2 ? threads : 2);
    } else {
        /* x265's wavefronts code the same at any pool size; its default pool is every
           core of the machine, whatever the budget. */
        char pools[16];
        snprintf(pools, sizeof pools, "%d", threads);
        heif_encoder_set_parameter_string(encoder, "x265:pools", pools);
    }
    if (failed(heif_image_create((int)width, (int)height, heif_colorspace_RGB,
                                 channels == 4 ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, &image),
               "cannot create the image", err, errlen) ||
        failed(heif_image_add_plane(image, heif_channel_interleaved, (int)width, (int)height, 8), "cannot add a plane", err, errlen))
        goto done;
    int plane_stride = 0;
    uint8_t *plane = heif_image_get_plane(image, heif_channel_interleaved, &plane_stride);
    /* The plane libheif made, as wide as asked: a failed allocation inside it is a NULL. */
    if (!plane || plane_stride < 0 || (size_t)plane_stride < (size_t)width * channels) {
        snprintf(err, errlen, "cannot add a plane (%ux%u)", width, height);
        goto done;
    }
    for (uint32_t y = 0; y < height; y++) memcpy(plane + (size_t)y * plane_stride, pixels + y * stride, (size_t)width * channels);
    if (icc && icc_length && failed(heif_image_set_raw_color_profile(image, "prof", icc, icc_length), "ICC profile", err, errlen))
        goto done;
    /* libheif 1.15 codes with the image's own nclx where it has one. */
    if (gbr && failed(heif_image_set_nclx_color_profile(image, gbr), "the GBR colour description", err, errlen)) goto done;
    if (failed(heif_context_encode_image(ctx, image, encoder, encoding, &handle), "encoding failed", err, errlen)) goto done;
    if (exif && exif_length) {
        /* libheif wants the block as in JPEG's APP1, with the "Exif\0\0" header. */
        uint8_t *block = malloc(exif_length + 6);
        if (!block) goto done;
        memcpy(block, "Exif\0\0", 6);
        memcpy(block + 6, exif, exif_length);
        int bad = failed(heif_context_add_exif_metadata(ctx, handle, block, (int)(exif_length + 6)), "EXIF", err, errlen);
        free(block);
        if (bad) goto done;
    }
    if (xmp && xmp_length && failed(heif_context_add_XMP_metadata(ctx, handle, xmp, (int)xmp_length), "XMP", err, errlen)) goto done;
    struct heif_writer writer = {1, write_memory};
    if (failed(heif_context_write(ctx, &writer, &s), "cannot write the file", err, errlen)) goto done;
    *out = s.bytes;
    *out_size = s.size;
    s.bytes = NULL;
    status = 0;
done:
    free(s.bytes);
    if (encoding) heif_encoding_options_free(encoding);
    if (gbr) heif_nclx_color_profile_free(gbr);
    if (handle) heif_image_handle_release(handle);
    if (image) heif_image_release(image);
    if (encoder) heif_encoder_release(encoder);
    heif_context_free(ctx);
    return status;
}

void cheif_free(void *p) { free(p); }

/* From the header built against: asking libheif means opening it (5 ms, see
   heif_api.h), which `imgscale --version` must not spend. */
const char *cheif_version(void) { return LIBHEIF_VERSION; }
