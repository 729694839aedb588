#include "jxl_shim.h"

#include <jxl/version.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jxl_api.h"

#define STRINGIFY2(x) #x
#define STRINGIFY(x) STRINGIFY2(x)

/* Metadata boxes larger than this are left out: a real one is a few KB. */
#define MAX_BOX (16u << 20)

static void say(char *err, size_t err_size, const char *what) {
    if (err && err_size) snprintf(err, err_size, "%s", what);
}

/* A box being read into a growing buffer. */
typedef struct {
    uint8_t *data;
    size_t capacity;
    int kind; /* 0 none, 1 Exif, 2 xml */
} box;

static int box_grow(JxlDecoder *dec, box *b) {
    size_t kept = b->data ? b->capacity - JxlDecoderReleaseBoxBuffer(dec) : 0;
    size_t capacity = b->capacity ? b->capacity * 2 : 65536;
    if (capacity > MAX_BOX) return -1;
    uint8_t *data = realloc(b->data, capacity);
    if (!data) return -1;
    b->data = data;
    b->capacity = capacity;
    JxlDecoderSetBoxBuffer(dec, data + kept, capacity - kept);
    return 0;
}

/* Ends the box being read: its contents go to the info. */
static void box_end(JxlDecoder *dec, box *b, cjxl_info *info) {
    if (!b->kind) return;
    size_t length = b->capacity - JxlDecoderReleaseBoxBuffer(dec);
    if (b->kind == 1 && length >= 4) {
        /* The Exif box starts with the offset of the TIFF header after those 4 bytes. */
        uint32_t skip = (uint32_t)b->data[0] << 24 | b->data[1] << 16 | b->data[2] << 8 | b->data[3];
        if (!info->exif && skip <= length - 4) {
            info->exif_length = length - 4 - skip;
            info->exif = malloc(info->exif_length ? info->exif_length : 1);
            if (info->exif) memcpy(info->exif, b->data + 4 + skip, info->exif_length);
        }
    } else if (b->kind == 2 && !info->xmp) {
        info->xmp_length = length;
        info->xmp = malloc(length ? length : 1);
        if (info->xmp) memcpy(info->xmp, b->data, length);
    }
    free(b->data);
    b->data = NULL;
    b->capacity = 0;
    b->kind = 0;
}

int cjxl_read_info(const uint8_t *data, size_t size, size_t max_memory, cjxl_info *info, char *err, size_t err_size) {
    memset(info, 0, sizeof *info);
    if (cjxl_load(err, err_size)) return -1;
    JxlDecoder *dec = JxlDecoderCreate(NULL);
    if (!dec) {
        say(err, err_size, "out of memory");
        return -1;
    }
    int status = -1;
    box current = {0};
    JxlDecoderSubscribeEvents(dec, JXL_DEC_BASIC_INFO | JXL_DEC_COLOR_ENCODING | JXL_DEC_FRAME | JXL_DEC_BOX);
    /* Else the size is the turned one and the orientation reads 1. */
    JxlDecoderSetKeepOrientation(dec, JXL_TRUE);
    JxlDecoderSetDecompressBoxes(dec, JXL_TRUE);
    /* Every coded frame and layer is seen, not only those shown: zero-duration frames
       are decoded all the same, and a file of thousands is a still's whole cost. */
    JxlDecoderSetCoalescing(dec, JXL_FALSE);
    int animated = 0;
    JxlDecoderSetInput(dec, data, size);
    JxlDecoderCloseInput(dec);
    for (;;) {
        JxlDecoderStatus s = JxlDecoderProcessInput(dec);
        if (s == JXL_DEC_BASIC_INFO) {
            JxlBasicInfo basic;
            if (JxlDecoderGetBasicInfo(dec, &basic) != JXL_DEC_SUCCESS) {
                say(err, err_size, "unreadable basic info");
                break;
            }
            info->width = basic.xsize;
            info->height = basic.ysize;
            info->bits = (int)basic.bits_per_sample;
            info->color_channels = (int)basic.num_color_channels;
            info->alpha = basic.alpha_bits > 0;
            info->orientation = basic.orientation >= 1 && basic.orientation <= 8 ? (int)basic.orientation : 1;
            animated = basic.have_animation != 0;
            /* A canvas beyond the budget is refused from this header by the caller; the
               frame headers after it, whose tables grow with the declared size, are not
               read. */
            if (max_memory && (uint64_t)basic.xsize * basic.ysize * 4 > max_memory) {
                info->frames = 1;
                status = 0;
                break;
            }
        } else if (s == JXL_DEC_COLOR_ENCODING) {
            /* Pixels in plain sRGB need no profile (libjxl would make one up). */
            JxlColorEncoding c;
            if (JxlDecoderGetColorAsEncodedProfile(dec, JXL_COLOR_PROFILE_TARGET_DATA, &c) == JXL_DEC_SUCCESS &&
                c.white_point == JXL_WHITE_POINT_D65 && c.transfer_function == JXL_TRANSFER_FUNCTION_SRGB &&
                (c.color_space == JXL_COLOR_SPACE_GRAY || (c.color_space == JXL_COLOR_SPACE_RGB && c.primaries == JXL_PRIMARIES_SRGB))) {
                continue;
            }
            size_t length = 0;
            if (JxlDecoderGetICCProfileSize(dec, JXL_COLOR_PROFILE_TARGET_DATA, &length) == JXL_DEC_SUCCESS && length &&
                length <= MAX_BOX && (info->icc = malloc(length))) {
                if (JxlDecoderGetColorAsICCProfile(dec, JXL_COLOR_PROFILE_TARGET_DATA, info->icc, length) == JXL_DEC_SUCCESS) {
                    info->icc_length = length;
                } else {
                    free(info->icc);
                    info->icc = NULL;
                }
            }
        } else if (s == JXL_DEC_FRAME) {
            JxlFrameHeader header;
            memset(&header, 0, sizeof header);
            if (JxlDecoderGetFrameHeader(dec, &header) != JXL_DEC_SUCCESS) header.is_last = JXL_TRUE;
            /* Shown: a still's last frame, or an animation's frame that lasts. */
            if (animated ? header.duration != 0 || header.is_last : header.is_last) info->frames++;
            info->coded_area += (uint64_t)header.layer_info.xsize * header.layer_info.ysize;
            /* Past the count's cap the rest is not looked at. */
            if (++info->coded_frames >= 65536) {
                if (!info->frames) info->frames = 1;
                status = 0;
                break;
            }
        } else if (s == JXL_DEC_BOX) {
            box_end(dec, &current, info);
            JxlBoxType type;
            if (JxlDecoderGetBoxType(dec, type, JXL_TRUE) == JXL_DEC_SUCCESS) {
                if (!memcmp(type, "jbrd", 4)) info->jpeg = 1;
                current.kind = !memcmp(type, "Exif", 4) ? 1 : !memcmp(type, "xml ", 4) ? 2 : 0;
                if (current.kind && box_grow(dec, &current)) current.kind = 0;
            }
        } else if (s == JXL_DEC_BOX_NEED_MORE_OUTPUT) {
            if (box_grow(dec, &current)) {
                /* Too large to keep: dropped, the rest of the file still read. */
                JxlDecoderReleaseBoxBuffer(dec);
                free(current.data);
                current = (box){0};
            }
        } else if (s == JXL_DEC_SUCCESS) {
            box_end(dec, &current, info);
            status = 0;
            break;
        } else if (s == JXL_DEC_NEED_MORE_INPUT) {
            say(err, err_size, "the file ends before its image does");
            status = -2;
            break;
        } else {
            say(err, err_size, "not a valid JPEG XL file");
            break;
        }
    }
    free(current.data);
    JxlDecoderDestroy(dec);
    if (status == 0 && info->width == 0) {
        say(err, err_size, "no image header");
        status = -1;
    }
    return status;
}

void cjxl_free_info(cjxl_info *info) {
    free(info->icc);
    free(info->exif);
    free(info->xmp);
    info->icc = info->exif = info->xmp = NULL;
}

int cjxl_decode(const uint8_t *data, size_t size, size_t max_memory, uint32_t width, uint32_t height, int channels,
                int sample_bytes, int threads, int partial, uint8_t *out, size_t stride, char *err, size_t err_size) {
    if (cjxl_load(err, err_size)) return -1;
    (void)max_memory;
    JxlDecoder *dec = JxlDecoderCreate(NULL);
    if (!dec) {
        say(err, err_size, "out of memory");
        return -1;
    }
    /* A pool of `threads` while the calling thread waits on it: libjxl decodes each
       group alone, so the pixels are the same at any count. */
    void *runner = threads > 1 ? JxlThreadParallelRunnerCreate(NULL, (size_t)threads) : NULL;
    if (runner && JxlDecoderSetParallelRunner(dec, JxlThreadParallelRunner, runner) != JXL_DEC_SUCCESS) {
        JxlThreadParallelRunnerDestroy(runner);
        runner = NULL;
    }
    int status = -1;
    JxlPixelFormat format = {(uint32_t)channels, sample_bytes == 2 ? JXL_TYPE_UINT16 : JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, stride};
    JxlDecoderSubscribeEvents(dec, JXL_DEC_BASIC_INFO | JXL_DEC_FULL_IMAGE);
    /* The pipeline turns the image upright, as it does every format's. */
    JxlDecoderSetKeepOrientation(dec, JXL_TRUE);
    /* Straight alpha, as every format hands it over: a file that stores its colour
       premultiplied is divided back, as djxl does. */
    JxlDecoderSetUnpremultiplyAlpha(dec, JXL_TRUE);
    /* The input is left open: a file that ends early then asks for more input (said as
       truncated) instead of failing as invalid, and what it holds can be flushed. */
    JxlDecoderSetInput(dec, data, size);
    int have_buffer = 0;
    for (;;) {
        JxlDecoderStatus s = JxlDecoderProcessInput(dec);
        if (s == JXL_DEC_BASIC_INFO) {
            /* The rows given are for the size the header gave: never write past them. */
            JxlBasicInfo basic;
            if (JxlDecoderGetBasicInfo(dec, &basic) != JXL_DEC_SUCCESS || basic.xsize != width || basic.ysize != height) {
                say(err, err_size, "the image's size changed between two reads");
                break;
            }
        } else if (s == JXL_DEC_NEED_IMAGE_OUT_BUFFER) {
            size_t needed = 0;
            if (JxlDecoderImageOutBufferSize(dec, &format, &needed) != JXL_DEC_SUCCESS || needed > stride * height ||
                JxlDecoderSetImageOutBuffer(dec, &format, out, needed) != JXL_DEC_SUCCESS) {
                say(err, err_size, "the image does not fit the rows given");
                break;
            }
            have_buffer = 1;
        } else if (s == JXL_DEC_FULL_IMAGE || s == JXL_DEC_SUCCESS) {
            status = 0;
            break;
        } else if (s == JXL_DEC_NEED_MORE_INPUT) {
            say(err, err_size, "the file ends before its image does (truncated JPEG XL)");
            /* What has arrived, drawn as libjxl draws a progressive preview. */
            status = partial && have_buffer && JxlDecoderFlushImage(dec) == JXL_DEC_SUCCESS ? 1 : -2;
            break;
        } else {
            say(err, err_size, "the image data is invalid");
            break;
        }
    }
    JxlDecoderDestroy(dec);
    if (runner) JxlThreadParallelRunnerDestroy(runner);
    return status;
}

/* Runs an encoder whose input is closed, into one malloc'd buffer. */
static int drain(JxlEncoder *enc, uint8_t **out, size_t *out_size, char *err, size_t err_size) {
    size_t capacity = 1 << 16, used = 0;
    uint8_t *buffer = malloc(capacity);
    for (;;) {
        if (!buffer) {
            say(err, err_size, "out of memory");
            return -1;
        }
        uint8_t *next = buffer + used;
        size_t avail = capacity - used;
        JxlEncoderStatus s = JxlEncoderProcessOutput(enc, &next, &avail);
        used = (size_t)(next - buffer);
        if (s == JXL_ENC_SUCCESS) break;
        if (s != JXL_ENC_NEED_MORE_OUTPUT) {
            free(buffer);
            char message[64];
            snprintf(message, sizeof message, "libjxl's encoder failed (error %d)", (int)JxlEncoderGetError(enc));
            say(err, err_size, message);
            return -1;
        }
        capacity *= 2;
        uint8_t *grown = realloc(buffer, capacity);
        if (!grown) free(buffer);
        buffer = grown;
    }
    *out = buffer;
    *out_size = used;
    return 0;
}

int cjxl_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int channels, size_t stride,
                const cjxl_encode_options *options, const uint8_t *icc, size_t icc_length, const uint8_t *exif,
                size_t exif_length, const uint8_t *xmp, size_t xmp_length, uint8_t **out, size_t *out_size,
                char *err, size_t err_size) {
    if (cjxl_load(err, err_size)) return -1;
    JxlEncoder *enc = JxlEncoderCreate(NULL);
    if (!enc) {
        say(err, err_size, "out of memory");
        return -1;
    }
    int status = -1;
    int alpha = channels == 4;
    const char *step = NULL;
    if (exif_length || xmp_length) {
        if (JxlEncoderUseContainer(enc, JXL_TRUE) || JxlEncoderUseBoxes(enc)) step = "a container for metadata";
    }
    JxlBasicInfo basic;
    JxlEncoderInitBasicInfo(&basic);
    basic.xsize = width;
    basic.ysize = height;
    uint32_t bits = options->sample_bytes == 2 ? 16 : 8;
    basic.bits_per_sample = bits;
    basic.num_color_channels = 3;
    basic.num_extra_channels = alpha ? 1 : 0;
    basic.alpha_bits = alpha ? bits : 0;
    /* Lossless keeps the samples as they are; lossy encodes in XYB. */
    basic.uses_original_profile = options->lossless ? JXL_TRUE : JXL_FALSE;
    if (!step && JxlEncoderSetBasicInfo(enc, &basic)) step = "the image's size and channels";
    if (!step && alpha) {
        JxlExtraChannelInfo extra;
        JxlEncoderInitExtraChannelInfo(JXL_CHANNEL_ALPHA, &extra);
        extra.bits_per_sample = bits;
        if (JxlEncoderSetExtraChannelInfo(enc, 0, &extra)) step = "the alpha channel";
    }
    if (!step) {
        if (icc_length) {
            if (JxlEncoderSetICCProfile(enc, icc, icc_length)) step = "the ICC profile";
        } else {
            JxlColorEncoding srgb;
            JxlColorEncodingSetToSRGB(&srgb, JXL_FALSE);
            if (JxlEncoderSetColorEncoding(enc, &srgb)) step = "sRGB";
        }
    }
    if (!step && exif_length) {
        /* The Exif box: the TIFF header's offset (0), then the TIFF structure. */
        uint8_t *boxed = malloc(exif_length + 4);
        if (!boxed) step = "the EXIF box";
        else {
            memset(boxed, 0, 4);
            memcpy(boxed + 4, exif, exif_length);
            if (JxlEncoderAddBox(enc, "Exif", boxed, exif_length + 4, JXL_FALSE)) step = "the EXIF box";
            free(boxed);
        }
    }
    if (!step && xmp_length && JxlEncoderAddBox(enc, "xml ", xmp, xmp_length, JXL_FALSE)) step = "the XMP box";
    if (!step && (exif_length || xmp_length)) JxlEncoderCloseBoxes(enc);
    JxlEncoderFrameSettings *frame = step ? NULL : JxlEncoderFrameSettingsCreate(enc, NULL);
    if (!step && !frame) step = "the frame settings";
    if (!step && JxlEncoderFrameSettingsSetOption(frame, JXL_ENC_FRAME_SETTING_EFFORT, options->effort)) step = "the effort";
    if (!step) {
        if (options->lossless) {
            if (JxlEncoderSetFrameDistance(frame, 0) || JxlEncoderSetFrameLossless(frame, JXL_TRUE)) step = "lossless";
        } else if (JxlEncoderSetFrameDistance(frame, options->distance)) {
            step = "the distance";
        }
    }
    JxlPixelFormat format = {(uint32_t)channels, bits == 16 ? JXL_TYPE_UINT16 : JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, stride};
    if (!step && JxlEncoderAddImageFrame(frame, &format, pixels, stride * height)) step = "the pixels";
    if (step) {
        char message[128];
        snprintf(message, sizeof message, "libjxl refused %s (error %d)", step, (int)JxlEncoderGetError(enc));
        say(err, err_size, message);
    } else {
        JxlEncoderCloseInput(enc);
        status = drain(enc, out, out_size, err, err_size);
    }
    JxlEncoderDestroy(enc);
    return status;
}

int cjxl_recompress_jpeg(const uint8_t *jpeg, size_t size, int effort, uint8_t **out, size_t *out_size, char *err,
                         size_t err_size) {
    if (cjxl_load(err, err_size)) return -1;
    JxlEncoder *enc = JxlEncoderCreate(NULL);
    if (!enc) {
        say(err, err_size, "out of memory");
        return -1;
    }
    int status = -1;
    JxlEncoderFrameSettings *frame = NULL;
    if (JxlEncoderUseContainer(enc, JXL_TRUE) || JxlEncoderStoreJPEGMetadata(enc, JXL_TRUE) ||
        !(frame = JxlEncoderFrameSettingsCreate(enc, NULL)) ||
        JxlEncoderFrameSettingsSetOption(frame, JXL_ENC_FRAME_SETTING_EFFORT, effort)) {
        say(err, err_size, "libjxl refused the recompression's settings");
    } else if (JxlEncoderAddJPEGFrame(frame, jpeg, size)) {
        char message[96];
        snprintf(message, sizeof message, "libjxl cannot keep this JPEG's coefficients (error %d)", (int)JxlEncoderGetError(enc));
        say(err, err_size, message);
    } else {
        JxlEncoderCloseInput(enc);
        status = drain(enc, out, out_size, err, err_size);
    }
    JxlEncoderDestroy(enc);
    return status;
}

const char *cjxl_version(void) {
    return STRINGIFY(JPEGXL_MAJOR_VERSION) "." STRINGIFY(JPEGXL_MINOR_VERSION) "." STRINGIFY(JPEGXL_PATCH_VERSION);
}

struct cjxl_frames {
    JxlDecoder *dec;
    uint32_t width, height;
    uint32_t tps_numerator, tps_denominator;
    int64_t ticks; /* the frame being decoded's duration */
};

void cjxl_frames_close(cjxl_frames *f) {
    if (!f) return;
    if (f->dec) JxlDecoderDestroy(f->dec);
    free(f);
}

cjxl_frames *cjxl_frames_open(const uint8_t *data, size_t size, uint32_t width, uint32_t height, uint32_t *loop_count,
                              char *err, size_t err_size) {
    if (cjxl_load(err, err_size)) return NULL;
    cjxl_frames *f = calloc(1, sizeof *f);
    if (!f || !(f->dec = JxlDecoderCreate(NULL))) {
        say(err, err_size, "out of memory");
        cjxl_frames_close(f);
        return NULL;
    }
    f->width = width;
    f->height = height;
    JxlDecoderSubscribeEvents(f->dec, JXL_DEC_BASIC_INFO | JXL_DEC_FRAME | JXL_DEC_FULL_IMAGE);
    JxlDecoderSetKeepOrientation(f->dec, JXL_TRUE);
    JxlDecoderSetUnpremultiplyAlpha(f->dec, JXL_TRUE);
    JxlDecoderSetInput(f->dec, data, size);
    JxlDecoderCloseInput(f->dec);
    JxlBasicInfo basic;
    if (JxlDecoderProcessInput(f->dec) != JXL_DEC_BASIC_INFO || JxlDecoderGetBasicInfo(f->dec, &basic) != JXL_DEC_SUCCESS ||
        basic.xsize != width || basic.ysize != height || !basic.have_animation) {
        say(err, err_size, "not the animation its header described");
        cjxl_frames_close(f);
        return NULL;
    }
    f->tps_numerator = basic.animation.tps_numerator ? basic.animation.tps_numerator : 1000;
    f->tps_denominator = basic.animation.tps_denominator ? basic.animation.tps_denominator : 1;
    *loop_count = basic.animation.num_loops;
    return f;
}

int cjxl_frames_next(cjxl_frames *f, uint8_t *out, int *duration, char *err, size_t err_size) {
    JxlPixelFormat format = {4, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0};
    for (;;) {
        JxlDecoderStatus s = JxlDecoderProcessInput(f->dec);
        if (s == JXL_DEC_FRAME) {
            JxlFrameHeader header;
            f->ticks = JxlDecoderGetFrameHeader(f->dec, &header) == JXL_DEC_SUCCESS ? header.duration : 0;
        } else if (s == JXL_DEC_NEED_IMAGE_OUT_BUFFER) {
            size_t needed = 0;
            if (JxlDecoderImageOutBufferSize(f->dec, &format, &needed) != JXL_DEC_SUCCESS ||
                needed != (size_t)f->width * f->height * 4 || JxlDecoderSetImageOutBuffer(f->dec, &format, out, needed) != JXL_DEC_SUCCESS) {
                say(err, err_size, "a frame does not fit the canvas");
                return -1;
            }
        } else if (s == JXL_DEC_FULL_IMAGE) {
            int64_t ms = f->ticks * 1000 * f->tps_denominator / f->tps_numerator;
            *duration = ms > 0x7FFFFFFF ? 0x7FFFFFFF : (int)ms;
            return 0;
        } else if (s == JXL_DEC_SUCCESS) {
            return 1;
        } else if (s == JXL_DEC_NEED_MORE_INPUT) {
            say(err, err_size, "the file ends before its last frame does");
            return -2;
        } else {
            say(err, err_size, "a frame's data is invalid");
            return -1;
        }
    }
}
