#ifndef IMGSCALE_SVG_SHIM_H
#define IMGSCALE_SVG_SHIM_H

#include <stddef.h>
#include <stdint.h>

/* SVG through librsvg and cairo, opened on first use instead of linked: librsvg brings
   glib, cairo, pango, harfbuzz, fontconfig and libxml2, whose loading every imgscale
   process would pay before main. The document is parsed from memory with no base file,
   so no reference in it (an <image href>, a file:// URL, an external entity) can be
   resolved or loaded; libxml2 keeps its safety limits (no RSVG_HANDLE_FLAG_UNLIMITED). */

typedef struct csvg_document csvg_document;

typedef struct {
    /* The document's size in pixels at the density asked for: from width and height
       when they are absolute, else from the viewBox (user units at 72 dpi scaled by
       density / 72), else from the extent of what it draws. Not rounded: rsvg-convert
       rounds up, and so does the caller. */
    double width, height;
    /* 1 when the size came from the viewBox. */
    int from_viewbox;
} csvg_info;

/* Loads librsvg; 0, or -1 with the reason in err. */
int csvg_load(char *err, size_t err_size);

/* Parses `size` bytes. NULL with librsvg's message in err when it refuses them, or
   when the document has no size and draws nothing (a document with no width, height or
   viewBox takes the size of what it draws, as rsvg-convert does). */
csvg_document *csvg_open(const uint8_t *data, size_t size, double dpi, csvg_info *info, char *err, size_t err_size);

/* Renders the whole document stretched to width x height, as rsvg-convert -w -h does,
   into straight-alpha RGBA rows (`stride` bytes apart), unpremultiplied as cairo's PNG
   writer does. 0, or -1 with the reason in err. Not to be called on one document from
   two threads at once. */
int csvg_render(csvg_document *doc, uint32_t width, uint32_t height, uint8_t *rgba, size_t stride, char *err, size_t err_size);

void csvg_close(csvg_document *doc);

/* A gzip stream (an .svgz) inflated into *out (malloc'd, freed with free): 0; -1 when it
   is not a whole gzip stream (zlib's message in err); -2 when it inflates past `limit`
   bytes, which it stops at, so a bomb costs at most `limit`. */
int csvg_gunzip(const uint8_t *data, size_t size, size_t limit, uint8_t **out, size_t *out_size, char *err, size_t err_size);

/* librsvg's version, "2.54.7", or "" before csvg_load succeeded. */
const char *csvg_version(void);

/* librsvg's version read from librsvg-2.so.2 beside libc without opening it, into
   out: 0, or -1 where that file cannot be found or read (then csvg_load tells). */
int csvg_version_from_file(char *out, size_t out_size);

#endif
