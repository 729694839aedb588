#ifndef IMGSCALE_LCMS_SHIM_H
#define IMGSCALE_LCMS_SHIM_H

#include <stddef.h>
#include <stdint.h>

/* A tiny layer over Little CMS: a transform from an embedded ICC profile (or sRGB) to
   sRGB or an export profile. Gray stays gray (sRGB's tone curve); alpha is copied
   through. */

typedef struct clcms_transform clcms_transform;

enum {
    CLCMS_GRAY = 1,
    CLCMS_GRAY_ALPHA = 2,
    CLCMS_RGB = 3,
    CLCMS_RGBA = 4,
    CLCMS_CMYK = 5,          /* 4 bytes in, RGB out */
    CLCMS_CMYK_INVERTED = 6  /* Adobe/Photoshop CMYK, 255 = no ink */
};

/* From `icc` (NULL: sRGB) to `target` (NULL: sRGB) at Little CMS's `intent` (0
   perceptual, 1 relative colorimetric, 2 saturation, 3 absolute colorimetric); `wide`
   for 16-bit layouts (gray to RGBA only). NULL with a message when either profile
   cannot be read or does not describe the layout's colour space. */
clcms_transform *clcms_between(const uint8_t *icc, uint32_t icc_length, const uint8_t *target, uint32_t target_length,
                               int layout, int wide, int intent, char *err, size_t err_size);

enum { CLCMS_SRGB = 1, CLCMS_P3 = 2, CLCMS_ADOBE_RGB = 3 };

/* A profile made by Little CMS, as ICC bytes (malloc'd, free with free): sRGB; Display
   P3 (P3 primaries, D65, sRGB's curve); Adobe RGB (1998)'s primaries, D65 and gamma
   563/256. */
int clcms_named_profile(int which, uint8_t **out, uint32_t *out_length, char *err, size_t err_size);

/* Converts `pixels` pixels from src to dst (dst holds the output layout: CMYK gives RGB). */
void clcms_apply(clcms_transform *transform, const uint8_t *src, uint8_t *dst, size_t pixels);

void clcms_free(clcms_transform *transform);

/* The linked library's version, for `imgscale --version`. */
int clcms_version(void);

#endif
