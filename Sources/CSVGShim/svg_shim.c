#include "svg_shim.h"

#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* The few types of librsvg's, cairo's and glib's public ABI the shim passes, declared
   here so that building needs no -dev package: these layouts are part of each library's
   stable ABI (GError since glib 2.0, RsvgRectangle and RsvgLength since librsvg 2.46). */
typedef struct { uint32_t domain; int code; char *message; } shim_gerror;
typedef struct { double x, y, width, height; } shim_rectangle;
typedef struct { double length; int unit; } shim_length;
enum { SHIM_CAIRO_FORMAT_ARGB32 = 0, SHIM_RSVG_UNIT_PERCENT = 0 };

static struct {
    void *(*new_from_data)(const uint8_t *, size_t, shim_gerror **);
    void (*set_dpi)(void *, double);
    int (*intrinsic_size_in_pixels)(void *, double *, double *);
    void (*intrinsic_dimensions)(void *, int *, shim_length *, int *, shim_length *, int *, shim_rectangle *);
    int (*render_document)(void *, void *, const shim_rectangle *, shim_gerror **);
    int (*geometry_for_layer)(void *, const char *, const shim_rectangle *, shim_rectangle *, shim_rectangle *, shim_gerror **);
    void (*object_unref)(void *);
    void (*error_free)(shim_gerror *);
    void *(*surface_create)(int, int, int);
    int (*surface_status)(void *);
    void (*surface_flush)(void *);
    void (*surface_destroy)(void *);
    unsigned char *(*surface_data)(void *);
    int (*surface_stride)(void *);
    void *(*cairo_create)(void *);
    void (*cairo_scale)(void *, double, double);
    void (*cairo_destroy)(void *);
    const unsigned *major, *minor, *micro;
} api;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[256];
static char version[32];

static void load(void) {
    /* The soname Debian's librsvg2-2 installs; cairo, gobject and glib come with it, so
       their symbols are found through its handle. */
    void *lib = dlopen("librsvg-2.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(failure, sizeof failure, "librsvg is not available: %s", dlerror());
        return;
    }
#define RESOLVE(field, name)                                                  \
    if (!failure[0] && !(*(void **)&api.field = dlsym(lib, name)))           \
        snprintf(failure, sizeof failure, "librsvg lacks %s", name);
    RESOLVE(new_from_data, "rsvg_handle_new_from_data")
    RESOLVE(set_dpi, "rsvg_handle_set_dpi")
    RESOLVE(intrinsic_size_in_pixels, "rsvg_handle_get_intrinsic_size_in_pixels")
    RESOLVE(intrinsic_dimensions, "rsvg_handle_get_intrinsic_dimensions")
    RESOLVE(render_document, "rsvg_handle_render_document")
    RESOLVE(geometry_for_layer, "rsvg_handle_get_geometry_for_layer")
    RESOLVE(object_unref, "g_object_unref")
    RESOLVE(error_free, "g_error_free")
    RESOLVE(surface_create, "cairo_image_surface_create")
    RESOLVE(surface_status, "cairo_surface_status")
    RESOLVE(surface_flush, "cairo_surface_flush")
    RESOLVE(surface_destroy, "cairo_surface_destroy")
    RESOLVE(surface_data, "cairo_image_surface_get_data")
    RESOLVE(surface_stride, "cairo_image_surface_get_stride")
    RESOLVE(cairo_create, "cairo_create")
    RESOLVE(cairo_scale, "cairo_scale")
    RESOLVE(cairo_destroy, "cairo_destroy")
    RESOLVE(major, "rsvg_major_version")
    RESOLVE(minor, "rsvg_minor_version")
    RESOLVE(micro, "rsvg_micro_version")
#undef RESOLVE
    if (!failure[0]) snprintf(version, sizeof version, "%u.%u.%u", *api.major, *api.minor, *api.micro);
}

int csvg_load(char *err, size_t err_size) {
    pthread_once(&once, load);
    if (!failure[0]) return 0;
    if (err && err_size) snprintf(err, err_size, "%s", failure);
    return -1;
}

const char *csvg_version(void) { return version; }

struct csvg_document {
    void *handle;
    double width, height;
};

static void take_error(shim_gerror *e, const char *fallback, char *err, size_t err_size) {
    snprintf(err, err_size, "%s", e && e->message ? e->message : fallback);
    if (e) api.error_free(e);
}

csvg_document *csvg_open(const uint8_t *data, size_t size, double dpi, csvg_info *info, char *err, size_t err_size) {
    if (csvg_load(err, err_size) != 0) return NULL;
    shim_gerror *e = NULL;
    void *h = api.new_from_data(data, size, &e);
    if (!h) {
        take_error(e, "not an SVG document", err, err_size);
        return NULL;
    }
    if (e) api.error_free(e);
    api.set_dpi(h, dpi);
    double w = 0, hgt = 0;
    int from_viewbox = 0;
    if (!api.intrinsic_size_in_pixels(h, &w, &hgt)) {
        int has_w, has_h, has_vb = 0;
        shim_length lw, lh;
        shim_rectangle vb = {0, 0, 0, 0};
        api.intrinsic_dimensions(h, &has_w, &lw, &has_h, &lh, &has_vb, &vb);
        if (has_vb && vb.width > 0 && vb.height > 0) {
            /* A relative width or height is that share of the viewBox, as a browser's
               viewport the viewBox's size would show it. */
            w = vb.width * (has_w && lw.unit == SHIM_RSVG_UNIT_PERCENT ? lw.length : 1.0) * dpi / 72.0;
            hgt = vb.height * (has_h && lh.unit == SHIM_RSVG_UNIT_PERCENT ? lh.length : 1.0) * dpi / 72.0;
            from_viewbox = 1;
        } else {
            /* No size (none given, a negative one, or percentages) and no viewBox: the
               extent of what it draws, in a unit viewport, drawn where it stands (not moved
               to the origin), as rsvg-convert sizes it. */
            shim_rectangle unit = {0, 0, 1, 1}, ink = {0, 0, 0, 0}, logical;
            shim_gerror *ge = NULL;
            if (!api.geometry_for_layer(h, NULL, &unit, &ink, &logical, &ge) || !(ink.width > 0) || !(ink.height > 0)) {
                if (ge) api.error_free(ge);
                snprintf(err, err_size, "the SVG has no size (no width and height, no viewBox) and draws nothing to take one from");
                api.object_unref(h);
                return NULL;
            }
            w = ink.width;
            hgt = ink.height;
        }
    }
    if (!(w > 0) || !(hgt > 0) || w > 1e9 || hgt > 1e9) {
        snprintf(err, err_size, "the SVG's size %gx%g is not a drawable one", w, hgt);
        api.object_unref(h);
        return NULL;
    }
    csvg_document *doc = calloc(1, sizeof *doc);
    if (!doc) {
        snprintf(err, err_size, "out of memory");
        api.object_unref(h);
        return NULL;
    }
    doc->handle = h;
    doc->width = w;
    doc->height = hgt;
    info->width = w;
    info->height = hgt;
    info->from_viewbox = from_viewbox;
    return doc;
}

int csvg_render(csvg_document *doc, uint32_t width, uint32_t height, uint8_t *rgba, size_t stride, char *err, size_t err_size) {
    if (width == 0 || height == 0 || width > 32767 || height > 32767) {
        /* cairo's image surfaces stop at 32767 a side. */
        snprintf(err, err_size, "cannot render an SVG at %ux%u (cairo draws at most 32767 a side)", width, height);
        return -1;
    }
    void *surface = api.surface_create(SHIM_CAIRO_FORMAT_ARGB32, (int)width, (int)height);
    if (api.surface_status(surface) != 0) {
        snprintf(err, err_size, "cairo could not make a %ux%u surface", width, height);
        api.surface_destroy(surface);
        return -1;
    }
    void *cr = api.cairo_create(surface);
    /* At its own size (rounded up) it is drawn unscaled, the extra fraction of a pixel
       left empty, as rsvg-convert draws it; any other size stretches it there. */
    int natural = width == (uint32_t)ceil(doc->width) && height == (uint32_t)ceil(doc->height);
    if (!natural) api.cairo_scale(cr, width / doc->width, height / doc->height);
    shim_rectangle viewport = {0, 0, doc->width, doc->height};
    shim_gerror *e = NULL;
    int ok = api.render_document(doc->handle, cr, &viewport, &e);
    api.cairo_destroy(cr);
    if (!ok) {
        take_error(e, "librsvg could not render the document", err, err_size);
        api.surface_destroy(surface);
        return -1;
    }
    if (e) api.error_free(e);
    api.surface_flush(surface);
    const unsigned char *src = api.surface_data(surface);
    int src_stride = api.surface_stride(surface);
    /* ARGB32 is premultiplied, one native-endian uint32 per pixel; straight alpha
       rounds as cairo's PNG writer does, so the pixels are rsvg-convert's. */
    for (uint32_t y = 0; y < height; y++) {
        const uint32_t *in = (const uint32_t *)(src + (size_t)y * src_stride);
        uint8_t *out = rgba + (size_t)y * stride;
        for (uint32_t x = 0; x < width; x++) {
            uint32_t p = in[x], a = p >> 24;
            uint32_t r = (p >> 16) & 0xff, g = (p >> 8) & 0xff, b = p & 0xff;
            if (a == 0) {
                r = g = b = 0;
            } else if (a != 255) {
                r = (r * 255 + a / 2) / a;
                g = (g * 255 + a / 2) / a;
                b = (b * 255 + a / 2) / a;
            }
            out[4 * x] = (uint8_t)r;
            out[4 * x + 1] = (uint8_t)g;
            out[4 * x + 2] = (uint8_t)b;
            out[4 * x + 3] = (uint8_t)a;
        }
    }
    api.surface_destroy(surface);
    return 0;
}

void csvg_close(csvg_document *doc) {
    if (!doc) return;
    api.object_unref(doc->handle);
    free(doc);
}

int csvg_gunzip(const uint8_t *data, size_t size, size_t limit, uint8_t **out, size_t *out_size, char *err, size_t err_size) {
    z_stream z;
    memset(&z, 0, sizeof z);
    /* 16 + MAX_WBITS: the gzip wrapper and its CRC, not a zlib one. */
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
        snprintf(err, err_size, "zlib cannot start");
        return -1;
    }
    size_t capacity = size * 4 < limit ? size * 4 + 64 : limit + 1, used = 0;
    uint8_t *buffer = malloc(capacity);
    int status = buffer ? 0 : -1;
    if (!buffer) snprintf(err, err_size, "out of memory");
    z.next_in = (uint8_t *)data;
    while (status == 0) {
        /* Room for one byte past the limit tells a stream that ends at it from a longer one. */
        if (used == capacity) {
            if (capacity > limit) { status = -2; break; }
            size_t bigger = capacity * 2 > limit ? limit + 1 : capacity * 2;
            uint8_t *grown = realloc(buffer, bigger);
            if (!grown) { snprintf(err, err_size, "out of memory"); status = -1; break; }
            buffer = grown;
            capacity = bigger;
        }
        size_t left = size - (size_t)(z.next_in - data);
        z.avail_in = left > UINT_MAX ? UINT_MAX : (unsigned)left;
        z.next_out = buffer + used;
        z.avail_out = capacity - used > UINT_MAX ? UINT_MAX : (unsigned)(capacity - used);
        unsigned before = z.avail_out;
        int r = inflate(&z, Z_NO_FLUSH);
        used += before - z.avail_out;
        if (used > limit) { status = -2; break; }
        if (r == Z_STREAM_END) break;
        if (r == Z_BUF_ERROR && z.avail_in == 0 && z.avail_out > 0) {
            snprintf(err, err_size, "the gzip stream ends early (truncated)");
            status = -1;
        } else if (r != Z_OK && r != Z_BUF_ERROR) {
            snprintf(err, err_size, "%s", z.msg ? z.msg : "damaged gzip data");
            status = -1;
        }
    }
    inflateEnd(&z);
    if (status != 0) {
        free(buffer);
        return status;
    }
    *out = buffer;
    *out_size = used;
    return 0;
}
