#ifndef IMGSCALE_LCMS_SHIM_H
#define IMGSCALE_LCMS_SHIM_H

#include <stddef.h>
#include <stdint.h>

/* A tiny layer over Little CMS: a transform from an embedded ICC profile to sRGB,
   perceptual intent. Gray stays gray (sRGB's tone curve); alpha is copied through. */

typedef struct clcms_transform clcms_transform;

enum {
    CLCMS_GRAY = 1,
    CLCMS_GRAY_ALPHA = 2,
    CLCMS_RGB = 3,
    CLCMS_RGBA = 4,
    CLCMS_CMYK = 5,          /* 4 bytes in, RGB out */
    CLCMS_CMYK_INVERTED = 6  /* Adobe/Photoshop CMYK, 255 = no ink */
};

/* NULL with a message when the profile cannot be read or does not describe `layout`. */
clcms_transform *clcms_to_srgb(const uint8_t *icc, uint32_t icc_length, int layout,
                               char *err, size_t err_size);

/* The same for 16-bit samples in native byte order, gray to RGBA layouts only. */
clcms_transform *clcms_to_srgb16(const uint8_t *icc, uint32_t icc_length, int layout,
                                 char *err, size_t err_size);

/* Converts `pixels` pixels from src to dst (dst holds the output layout: CMYK gives RGB). */
void clcms_apply(clcms_transform *transform, const uint8_t *src, uint8_t *dst, size_t pixels);

void clcms_free(clcms_transform *transform);

/* The linked library's version, for `imgscale --version`. */
int clcms_version(void);

#endif
