#include "lcms_shim.h"

#include <lcms2.h>
#include <stdio.h>
#include <stdlib.h>

struct clcms_transform {
    cmsHTRANSFORM transform;
};

/* Little CMS reports errors through a global handler; the messages are not ours to
   print, and every failure is already a NULL return checked below. */
static void quiet(cmsContext context, cmsUInt32Number code, const char *text) {
    (void)context;
    (void)code;
    (void)text;
}

static clcms_transform *to_srgb(const uint8_t *icc, uint32_t icc_length, int layout, int wide,
                                char *err, size_t err_size) {
    static const cmsUInt32Number inputs[7] = {0, TYPE_GRAY_8, TYPE_GRAYA_8, TYPE_RGB_8, TYPE_RGBA_8,
                                              TYPE_CMYK_8, TYPE_CMYK_8_REV};
    static const cmsUInt32Number wide_inputs[5] = {0, TYPE_GRAY_16, TYPE_GRAYA_16, TYPE_RGB_16, TYPE_RGBA_16};
    static const cmsColorSpaceSignature spaces[7] = {0, cmsSigGrayData, cmsSigGrayData, cmsSigRgbData,
                                                     cmsSigRgbData, cmsSigCmykData, cmsSigCmykData};
    if (layout < 1 || layout > (wide ? 4 : 6)) {
        snprintf(err, err_size, "unsupported pixel layout");
        return NULL;
    }
    cmsSetLogErrorHandler(quiet);
    cmsHPROFILE in = cmsOpenProfileFromMem(icc, icc_length);
    if (!in) {
        snprintf(err, err_size, "unreadable ICC profile");
        return NULL;
    }
    if (cmsGetColorSpace(in) != spaces[layout]) {
        cmsCloseProfile(in);
        snprintf(err, err_size, "ICC profile does not describe this image's colour space");
        return NULL;
    }
    int gray = layout == CLCMS_GRAY || layout == CLCMS_GRAY_ALPHA;
    cmsHPROFILE out;
    if (gray) {
        /* sRGB's tone curve: IEC 61966-2-1 as a type 4 parametric curve. */
        const cmsFloat64Number params[5] = {2.4, 1.0 / 1.055, 0.055 / 1.055, 1.0 / 12.92, 0.04045};
        cmsToneCurve *curve = cmsBuildParametricToneCurve(NULL, 4, params);
        out = curve ? cmsCreateGrayProfile(cmsD50_xyY(), curve) : NULL;
        cmsFreeToneCurve(curve);
    } else {
        out = cmsCreate_sRGBProfile();
    }
    cmsUInt32Number output = layout == CLCMS_GRAY ? TYPE_GRAY_8
                           : layout == CLCMS_GRAY_ALPHA ? TYPE_GRAYA_8
                           : layout == CLCMS_RGBA ? TYPE_RGBA_8 : TYPE_RGB_8;
    /* A 16-bit layout goes out as it came in (no CMYK reaches 16 bits). */
    if (wide) {
        output = wide_inputs[layout];
    }
    cmsUInt32Number flags = (layout == CLCMS_GRAY_ALPHA || layout == CLCMS_RGBA) ? cmsFLAGS_COPY_ALPHA : 0;
    cmsHTRANSFORM t = out ? cmsCreateTransform(in, wide ? wide_inputs[layout] : inputs[layout], out, output,
                                               INTENT_PERCEPTUAL, flags) : NULL;
    cmsCloseProfile(in);
    if (out) {
        cmsCloseProfile(out);
    }
    if (!t) {
        snprintf(err, err_size, "cannot build a transform from the ICC profile to sRGB");
        return NULL;
    }
    clcms_transform *result = malloc(sizeof *result);
    if (!result) {
        cmsDeleteTransform(t);
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    result->transform = t;
    return result;
}

clcms_transform *clcms_to_srgb(const uint8_t *icc, uint32_t icc_length, int layout,
                               char *err, size_t err_size) {
    return to_srgb(icc, icc_length, layout, 0, err, err_size);
}

clcms_transform *clcms_to_srgb16(const uint8_t *icc, uint32_t icc_length, int layout,
                                 char *err, size_t err_size) {
    return to_srgb(icc, icc_length, layout, 1, err, err_size);
}

void clcms_apply(clcms_transform *t, const uint8_t *src, uint8_t *dst, size_t pixels) {
    cmsDoTransform(t->transform, src, dst, (cmsUInt32Number)pixels);
}

void clcms_free(clcms_transform *t) {
    if (t) {
        cmsDeleteTransform(t->transform);
        free(t);
    }
}

int clcms_version(void) { return cmsGetEncodedCMMversion(); }
