/* A whole-process peer for scripts/bench: libvips 8.18's vips_thumbnail (the engine of
 * vipsthumbnail), linked against the libvips that pyvips-binary bundles, which ships
 * no headers and no CLI - so the few prototypes used are declared here.
 *
 *   vips-thumb WxH OUT INPUT            one thumbnail, centre crop, to OUT (e.g. a.jpg[Q=85])
 *   vips-thumb WxH -d DIR INPUT...      each INPUT to DIR/<basename>[Q=85], as vipsthumbnail -o does
 *   vips-thumb Wx OUT INPUT             fit to width W (no crop)
 *   vips-thumb copy OUT INPUT           decode and re-encode whole (OUT may carry options: a.png[filter=all])
 *
 * VIPS_THUMB_LINEAR=1 in the environment shrinks in linear light (vipsthumbnail --linear).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct _VipsImage VipsImage;
int vips_init(const char *argv0);
int vips_thumbnail(const char *filename, VipsImage **out, int width, ...);
VipsImage *vips_image_new_from_file(const char *name, ...);
int vips_image_write_to_file(VipsImage *image, const char *name, ...);
const char *vips_error_buffer(void);
void g_object_unref(void *object);

enum { VIPS_INTERESTING_NONE = 0, VIPS_INTERESTING_CENTRE = 1 };

static int thumb(const char *in, int w, int h, const char *out) {
    VipsImage *image = NULL;
    int linear = getenv("VIPS_THUMB_LINEAR") != NULL;
    int failed = h > 0
        ? vips_thumbnail(in, &image, w, "height", h, "crop", VIPS_INTERESTING_CENTRE, "linear", linear, NULL)
        : vips_thumbnail(in, &image, w, "height", 10000000, "linear", linear, NULL);
    if (!failed) failed = vips_image_write_to_file(image, out, NULL);
    if (image) g_object_unref(image);
    if (failed) fprintf(stderr, "vips-thumb: %s: %s", in, vips_error_buffer());
    return failed;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: vips-thumb WxH OUT INPUT | vips-thumb WxH -d DIR INPUT...\n");
        return 2;
    }
    if (vips_init(argv[0])) return 1;
    if (strcmp(argv[1], "copy") == 0) {
        VipsImage *image = vips_image_new_from_file(argv[3], NULL);
        int failed = !image || vips_image_write_to_file(image, argv[2], NULL);
        if (image) g_object_unref(image);
        if (failed) fprintf(stderr, "vips-thumb: %s: %s", argv[3], vips_error_buffer());
        return failed;
    }
    int w = atoi(argv[1]);
    const char *x = strchr(argv[1], 'x');
    int h = x && x[1] ? atoi(x + 1) : 0;
    if (strcmp(argv[2], "-d") != 0) return thumb(argv[3], w, h, argv[2]);
    int status = 0;
    for (int i = 4; i < argc; i++) {
        const char *base = strrchr(argv[i], '/');
        char out[4096];
        snprintf(out, sizeof out, "%s/%s[Q=85]", argv[3], base ? base + 1 : argv[i]);
        status |= thumb(argv[i], w, h, out);
    }
    return status;
}
