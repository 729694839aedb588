#include "webp_shim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <webp/decode.h>
#include <webp/demux.h>
#include <webp/encode.h>
#include <webp/mux.h>

static void set_error(char *err, size_t errlen, const char *what, int code) {
    static const char *const names[] = {"ok", "out of memory", "invalid parameter", "bitstream error",
                                        "unsupported feature", "suspended", "user abort", "not enough data"};
    const char *name = code >= 0 && code < (int)(sizeof names / sizeof names[0]) ? names[code] : "unknown status";
    snprintf(err, errlen, "%s: %s", what, name);
}

static void chunk(WebPDemuxer *demux, const char *fourcc, const uint8_t **bytes, uint32_t *length) {
    WebPChunkIterator it;
    *bytes = NULL;
    *length = 0;
    if (WebPDemuxGetChunk(demux, fourcc, 1, &it)) {
        *bytes = it.chunk.bytes;
        *length = (uint32_t)it.chunk.size;
        WebPDemuxReleaseChunkIterator(&it);
    }
}

int cwebp_read_info(const uint8_t *data, size_t size, cwebp_info *info, char *err, size_t errlen) {
    memset(info, 0, sizeof *info);
    WebPBitstreamFeatures features;
    VP8StatusCode status = WebPGetFeatures(data, size, &features);
    if (status != VP8_STATUS_OK) {
        set_error(err, errlen, "invalid WebP header", status);
        return -1;
    }
    WebPData whole = {data, size};
    WebPDemuxState state;
    /* Partial: a truncated file still shows its header (the decode then fails). */
    WebPDemuxer *demux = WebPDemuxPartial(&whole, &state);
    if (!demux || state == WEBP_DEMUX_PARSE_ERROR) {
        if (demux) WebPDemuxDelete(demux);
        snprintf(err, errlen, "invalid WebP container");
        return -1;
    }
    /* A still is as large as its bitstream, which is what libwebp decodes (a VP8X
       canvas that disagrees is the file's error, not a size to trust); an animation's
       frames are composed onto the canvas. */
    info->width = features.has_animation ? WebPDemuxGetI(demux, WEBP_FF_CANVAS_WIDTH) : (uint32_t)features.width;
    info->height = features.has_animation ? WebPDemuxGetI(demux, WEBP_FF_CANVAS_HEIGHT) : (uint32_t)features.height;
    info->frames = features.has_animation ? (int)WebPDemuxGetI(demux, WEBP_FF_FRAME_COUNT) : 1;
    info->has_alpha = features.has_alpha;
    /* WebPBitstreamFeatures.format: 0 mixed or undefined, 1 lossy, 2 lossless. */
    info->lossless = features.format > 1;
    chunk(demux, "ICCP", &info->icc, &info->icc_length);
    chunk(demux, "EXIF", &info->exif, &info->exif_length);
    chunk(demux, "XMP ", &info->xmp, &info->xmp_length);
    WebPDemuxDelete(demux);
    if (info->width == 0 || info->height == 0) {
        snprintf(err, errlen, "invalid WebP: no canvas size");
        return -1;
    }
    return 0;
}

static int decode_animation_first_frame(const uint8_t *data, size_t size, int channels, uint32_t width, uint32_t height,
                                        uint8_t *out, size_t stride, uint32_t *rows_done, char *err, size_t errlen) {
    WebPAnimDecoderOptions options;
    if (!WebPAnimDecoderOptionsInit(&options)) {
        snprintf(err, errlen, "libwebp version mismatch");
        return -1;
    }
    options.color_mode = MODE_RGBA;
    options.use_threads = 0;
    WebPData whole = {data, size};
    WebPAnimDecoder *dec = WebPAnimDecoderNew(&whole, &options);
    if (!dec) {
        snprintf(err, errlen, "invalid animated WebP");
        return -1;
    }
    WebPAnimInfo anim;
    uint8_t *frame = NULL;
    int timestamp = 0;
    if (!WebPAnimDecoderGetInfo(dec, &anim) || !WebPAnimDecoderGetNext(dec, &frame, &timestamp) || !frame) {
        WebPAnimDecoderDelete(dec);
        snprintf(err, errlen, "cannot decode the first frame of the animated WebP");
        return -1;
    }
    /* The buffer was sized from the header read before: a file whose animation
       decoder sees another canvas is refused rather than written past. */
    if (anim.canvas_width != width || anim.canvas_height != height) {
        WebPAnimDecoderDelete(dec);
        snprintf(err, errlen, "invalid animated WebP: canvas %ux%u, but the header says %ux%u",
                 anim.canvas_width, anim.canvas_height, width, height);
        return -1;
    }
    for (uint32_t y = 0; y < anim.canvas_height; y++) {
        const uint8_t *src = frame + (size_t)y * anim.canvas_width * 4;
        uint8_t *dst = out + y * stride;
        if (channels == 4) {
            memcpy(dst, src, (size_t)anim.canvas_width * 4);
        } else {
            for (uint32_t x = 0; x < anim.canvas_width; x++) memcpy(dst + x * 3, src + x * 4, 3);
        }
    }
    *rows_done = anim.canvas_height;
    WebPAnimDecoderDelete(dec);
    return 0;
}

int cwebp_decode(const uint8_t *data, size_t size, int channels, uint32_t out_width, uint32_t out_height,
                 uint8_t *out, size_t stride, uint32_t *rows_done, char *err, size_t errlen) {
    *rows_done = 0;
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) {
        snprintf(err, errlen, "libwebp version mismatch");
        return -1;
    }
    VP8StatusCode status = WebPGetFeatures(data, size, &config.input);
    if (status != VP8_STATUS_OK) {
        set_error(err, errlen, "invalid WebP header", status);
        return -1;
    }
    if (config.input.has_animation)
        return decode_animation_first_frame(data, size, channels, out_width, out_height, out, stride, rows_done, err, errlen);
    if (out_width != (uint32_t)config.input.width || out_height != (uint32_t)config.input.height) {
        config.options.use_scaling = 1;
        config.options.scaled_width = (int)out_width;
        config.options.scaled_height = (int)out_height;
    }
    config.output.colorspace = channels == 4 ? MODE_RGBA : MODE_RGB;
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = out;
    config.output.u.RGBA.stride = (int)stride;
    config.output.u.RGBA.size = stride * out_height;
    /* Incremental, so a truncated file gives the rows it holds (for --fail-on). */
    WebPIDecoder *idec = WebPIDecode(NULL, 0, &config);
    if (!idec) {
        snprintf(err, errlen, "cannot start the WebP decoder");
        return -1;
    }
    status = WebPIUpdate(idec, data, size);
    int last_y = 0;
    WebPIDecGetRGB(idec, &last_y, NULL, NULL, NULL);
    WebPIDelete(idec);
    WebPFreeDecBuffer(&config.output);
    *rows_done = last_y > 0 ? (uint32_t)last_y : 0;
    if (status == VP8_STATUS_OK) return 0;
    if (status == VP8_STATUS_SUSPENDED || status == VP8_STATUS_NOT_ENOUGH_DATA) {
        set_error(err, errlen, "truncated WebP", VP8_STATUS_NOT_ENOUGH_DATA);
        return -2;
    }
    set_error(err, errlen, "invalid WebP data", status);
    return -1;
}

static int add_chunk(WebPMux *mux, const char *fourcc, const uint8_t *bytes, size_t length) {
    if (!bytes || !length) return 1;
    WebPData d = {bytes, length};
    return WebPMuxSetChunk(mux, fourcc, &d, 1) == WEBP_MUX_OK;
}

int cwebp_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int channels, size_t stride,
                 const cwebp_encode_options *options,
                 const uint8_t *icc, size_t icc_length, const uint8_t *exif, size_t exif_length,
                 const uint8_t *xmp, size_t xmp_length,
                 uint8_t **out, size_t *out_size, char *err, size_t errlen) {
    *out = NULL;
    *out_size = 0;
    WebPConfig config;
    WebPPicture picture;
    if (!WebPConfigInit(&config) || !WebPPictureInit(&picture)) {
        snprintf(err, errlen, "libwebp version mismatch");
        return -1;
    }
    config.quality = (float)options->quality;
    config.method = options->method;
    config.lossless = options->lossless;
    if (!WebPValidateConfig(&config)) {
        snprintf(err, errlen, "invalid WebP encoder settings");
        return -1;
    }
    picture.width = (int)width;
    picture.height = (int)height;
    picture.use_argb = options->lossless;
    int imported = channels == 4 ? WebPPictureImportRGBA(&picture, pixels, (int)stride)
                                 : WebPPictureImportRGB(&picture, pixels, (int)stride);
    if (!imported) {
        WebPPictureFree(&picture);
        snprintf(err, errlen, "out of memory importing %ux%u pixels", width, height);
        return -1;
    }
    WebPMemoryWriter writer;
    WebPMemoryWriterInit(&writer);
    picture.writer = WebPMemoryWrite;
    picture.custom_ptr = &writer;
    int ok = WebPEncode(&config, &picture);
    int code = picture.error_code;
    WebPPictureFree(&picture);
    if (!ok) {
        WebPMemoryWriterClear(&writer);
        snprintf(err, errlen, "WebP encoding failed (error %d)", code);
        return -1;
    }
    if (!(icc && icc_length) && !(exif && exif_length) && !(xmp && xmp_length)) {
        *out = writer.mem;
        *out_size = writer.size;
        return 0;
    }
    WebPData bitstream = {writer.mem, writer.size};
    WebPMux *mux = WebPMuxCreate(&bitstream, 1);
    WebPData assembled = {NULL, 0};
    ok = mux && add_chunk(mux, "ICCP", icc, icc_length) && add_chunk(mux, "EXIF", exif, exif_length)
         && add_chunk(mux, "XMP ", xmp, xmp_length) && WebPMuxAssemble(mux, &assembled) == WEBP_MUX_OK;
    if (mux) WebPMuxDelete(mux);
    WebPMemoryWriterClear(&writer);
    if (!ok) {
        WebPDataClear(&assembled);
        snprintf(err, errlen, "cannot add metadata to the WebP file");
        return -1;
    }
    *out = (uint8_t *)assembled.bytes;
    *out_size = assembled.size;
    return 0;
}

void cwebp_free(void *p) { WebPFree(p); }

int cwebp_version(void) { return WebPGetDecoderVersion(); }

struct cwebp_frames {
    WebPAnimDecoder *dec;
    WebPData data;
    int previous_timestamp;
};

cwebp_frames *cwebp_frames_open(const uint8_t *data, size_t size, uint32_t *loop_count, char *err, size_t errlen) {
    WebPAnimDecoderOptions options;
    if (!WebPAnimDecoderOptionsInit(&options)) {
        snprintf(err, errlen, "libwebp version mismatch");
        return NULL;
    }
    options.color_mode = MODE_RGBA;
    options.use_threads = 0;
    cwebp_frames *f = calloc(1, sizeof *f);
    if (!f) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    f->data.bytes = data;
    f->data.size = size;
    f->dec = WebPAnimDecoderNew(&f->data, &options);
    WebPAnimInfo anim;
    if (!f->dec || !WebPAnimDecoderGetInfo(f->dec, &anim)) {
        if (f->dec) WebPAnimDecoderDelete(f->dec);
        free(f);
        snprintf(err, errlen, "invalid animated WebP");
        return NULL;
    }
    *loop_count = anim.loop_count;
    return f;
}

int cwebp_frames_next(cwebp_frames *f, uint32_t width, uint32_t height, uint8_t *out, int *duration, char *err, size_t errlen) {
    uint8_t *frame = NULL;
    int timestamp = 0;
    WebPAnimInfo anim;
    if (!WebPAnimDecoderHasMoreFrames(f->dec)) return 1;
    if (!WebPAnimDecoderGetInfo(f->dec, &anim) || anim.canvas_width != width || anim.canvas_height != height) {
        snprintf(err, errlen, "invalid animated WebP: its canvas is not the header's");
        return -1;
    }
    if (!WebPAnimDecoderGetNext(f->dec, &frame, &timestamp) || !frame) {
        snprintf(err, errlen, "cannot decode a frame of the animated WebP");
        return -1;
    }
    memcpy(out, frame, (size_t)width * height * 4);
    *duration = timestamp - f->previous_timestamp;
    f->previous_timestamp = timestamp;
    return 0;
}

void cwebp_frames_close(cwebp_frames *f) {
    if (!f) return;
    WebPAnimDecoderDelete(f->dec);
    free(f);
}

struct cwebp_animation {
    WebPAnimEncoder *enc;
    WebPConfig config;
    uint32_t width, height;
    int timestamp;
    uint32_t loop_count;
};

cwebp_animation *cwebp_animation_new(uint32_t width, uint32_t height, uint32_t loop_count,
                                     const cwebp_encode_options *options, char *err, size_t errlen) {
    cwebp_animation *a = calloc(1, sizeof *a);
    WebPAnimEncoderOptions anim;
    if (!a || !WebPAnimEncoderOptionsInit(&anim) || !WebPConfigInit(&a->config)) {
        free(a);
        snprintf(err, errlen, "out of memory, or a libwebp version mismatch");
        return NULL;
    }
    a->config.quality = (float)options->quality;
    a->config.method = options->method;
    a->config.lossless = options->lossless;
    /* One thread, and key frames only where libwebp's rules put them, so the same
       frames give the same bytes. */
    a->config.thread_level = 0;
    anim.anim_params.loop_count = (int)loop_count;
    anim.allow_mixed = 0;
    if (!WebPValidateConfig(&a->config) || !(a->enc = WebPAnimEncoderNew((int)width, (int)height, &anim))) {
        free(a);
        snprintf(err, errlen, "invalid WebP animation settings");
        return NULL;
    }
    a->width = width;
    a->height = height;
    a->loop_count = loop_count;
    return a;
}

int cwebp_animation_add(cwebp_animation *a, const uint8_t *rgba, int duration, char *err, size_t errlen) {
    WebPPicture picture;
    if (!WebPPictureInit(&picture)) {
        snprintf(err, errlen, "libwebp version mismatch");
        return -1;
    }
    picture.width = (int)a->width;
    picture.height = (int)a->height;
    picture.use_argb = 1;
    if (!WebPPictureImportRGBA(&picture, rgba, (int)a->width * 4)) {
        WebPPictureFree(&picture);
        snprintf(err, errlen, "out of memory importing a frame");
        return -1;
    }
    int ok = WebPAnimEncoderAdd(a->enc, &picture, a->timestamp, &a->config);
    WebPPictureFree(&picture);
    if (!ok) {
        snprintf(err, errlen, "WebP animation encoding failed: %s", WebPAnimEncoderGetError(a->enc));
        return -1;
    }
    a->timestamp += duration;
    return 0;
}

int cwebp_animation_finish(cwebp_animation *a, uint8_t **out, size_t *out_size, char *err, size_t errlen) {
    WebPData assembled = {NULL, 0};
    if (!WebPAnimEncoderAdd(a->enc, NULL, a->timestamp, NULL) || !WebPAnimEncoderAssemble(a->enc, &assembled)) {
        snprintf(err, errlen, "WebP animation encoding failed: %s", WebPAnimEncoderGetError(a->enc));
        WebPDataClear(&assembled);
        return -1;
    }
    *out = (uint8_t *)assembled.bytes;
    *out_size = assembled.size;
    return 0;
}

void cwebp_animation_free(cwebp_animation *a) {
    if (!a) return;
    WebPAnimEncoderDelete(a->enc);
    free(a);
}
