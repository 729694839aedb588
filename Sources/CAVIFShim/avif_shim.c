#include "avif_shim.h"

#include <avif/avif.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libavif by pointer, so a process that reads no AVIF sequence never loads it (nor the
   AV1 decoders behind it). */
static struct {
    avifDecoder *(*decoder_create)(void);
    void (*decoder_destroy)(avifDecoder *);
    avifResult (*set_io_memory)(avifDecoder *, const uint8_t *, size_t);
    avifResult (*parse)(avifDecoder *);
    avifResult (*next_image)(avifDecoder *);
    void (*rgb_defaults)(avifRGBImage *, const avifImage *);
    avifResult (*yuv_to_rgb)(const avifImage *, avifRGBImage *);
    const char *(*result_string)(avifResult);
    const char *(*version)(void);
} api;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[256];
static char version[32];

static void load(void) {
    /* The soname Debian 12's libavif15 installs. */
    void *lib = dlopen("libavif.so.15", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(failure, sizeof failure, "libavif is not available (it reads AVIF image sequences): %s", dlerror());
        return;
    }
#define RESOLVE(field, name)                                                  \
    if (!failure[0] && !(*(void **)&api.field = dlsym(lib, name)))           \
        snprintf(failure, sizeof failure, "libavif lacks %s", name);
    RESOLVE(decoder_create, "avifDecoderCreate")
    RESOLVE(decoder_destroy, "avifDecoderDestroy")
    RESOLVE(set_io_memory, "avifDecoderSetIOMemory")
    RESOLVE(parse, "avifDecoderParse")
    RESOLVE(next_image, "avifDecoderNextImage")
    RESOLVE(rgb_defaults, "avifRGBImageSetDefaults")
    RESOLVE(yuv_to_rgb, "avifImageYUVToRGB")
    RESOLVE(result_string, "avifResultToString")
    RESOLVE(version, "avifVersion")
#undef RESOLVE
    if (!failure[0]) snprintf(version, sizeof version, "%s", api.version());
}

int cavif_load(char *err, size_t err_size) {
    pthread_once(&once, load);
    if (!failure[0]) return 0;
    if (err && err_size) snprintf(err, err_size, "%s", failure);
    return -1;
}

const char *cavif_version(void) { return version; }

struct cavif_reader {
    avifDecoder *decoder;
};

static void say(avifDecoder *d, avifResult r, const char *what, char *err, size_t err_size) {
    /* libavif's diagnostic, when it gave one, says more than the result's name. */
    if (r == AVIF_RESULT_TRUNCATED_DATA) snprintf(err, err_size, "%s: the file ends early (truncated)", what);
    else if (d && d->diag.error[0]) snprintf(err, err_size, "%s: %s", what, d->diag.error);
    else snprintf(err, err_size, "%s: %s", what, api.result_string(r));
}

cavif_reader *cavif_open(const uint8_t *data, size_t size, uint32_t max_side, uint32_t max_pixels, cavif_info *info,
                         char *err, size_t err_size) {
    if (cavif_load(err, err_size)) return NULL;
    cavif_reader *r = calloc(1, sizeof *r);
    if (!r || !(r->decoder = api.decoder_create())) {
        free(r);
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    avifDecoder *d = r->decoder;
    d->maxThreads = 1;
    d->imageSizeLimit = max_pixels;
    d->imageDimensionLimit = max_side;
    d->ignoreExif = AVIF_TRUE;
    d->ignoreXMP = AVIF_TRUE;
    avifResult res = api.set_io_memory(d, data, size);
    if (res == AVIF_RESULT_OK) res = api.parse(d);
    if (res != AVIF_RESULT_OK) {
        say(d, res, "cannot read the sequence", err, err_size);
        cavif_close(r);
        return NULL;
    }
    info->width = d->image->width;
    info->height = d->image->height;
    info->depth = (int)d->image->depth;
    info->has_alpha = d->alphaPresent ? 1 : 0;
    info->frames = d->imageCount;
    info->seconds = d->duration;
    return r;
}

int cavif_next(cavif_reader *r, int channels, int sample_bytes, uint8_t *out, size_t stride, uint32_t *duration_ms,
               char *err, size_t err_size) {
    avifDecoder *d = r->decoder;
    avifResult res = api.next_image(d);
    if (res == AVIF_RESULT_NO_IMAGES_REMAINING) return 1;
    if (res != AVIF_RESULT_OK) {
        say(d, res, "cannot decode a frame", err, err_size);
        return res == AVIF_RESULT_TRUNCATED_DATA ? -2 : -1;
    }
    avifRGBImage rgb;
    api.rgb_defaults(&rgb, d->image);
    rgb.format = channels == 4 ? AVIF_RGB_FORMAT_RGBA : AVIF_RGB_FORMAT_RGB;
    rgb.depth = sample_bytes == 2 ? 16 : 8;
    rgb.pixels = out;
    rgb.rowBytes = (uint32_t)stride;
    res = api.yuv_to_rgb(d->image, &rgb);
    if (res != AVIF_RESULT_OK) {
        say(d, res, "cannot convert a frame to RGB", err, err_size);
        return -1;
    }
    if (duration_ms) {
        double ms = d->imageTiming.duration * 1000.0 + 0.5;
        *duration_ms = ms > 0 && ms < 4e9 ? (uint32_t)ms : 0;
    }
    return 0;
}

void cavif_close(cavif_reader *r) {
    if (!r) return;
    if (r->decoder) api.decoder_destroy(r->decoder);
    free(r);
}
