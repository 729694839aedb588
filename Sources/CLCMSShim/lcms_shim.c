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

/* An RGB profile of D65 white and these primaries: sRGB's tone curve, or a pure gamma. */
static cmsHPROFILE rgb_profile(const double primaries[6], double gamma) {
    /* D65 as the three standards give it. */
    cmsCIExyY white = {0.3127, 0.3290, 1};
    cmsCIExyYTRIPLE p = {{primaries[0], primaries[1], 1}, {primaries[2], primaries[3], 1}, {primaries[4], primaries[5], 1}};
    const cmsFloat64Number srgb[5] = {2.4, 1.0 / 1.055, 0.055 / 1.055, 1.0 / 12.92, 0.04045};
    cmsToneCurve *curve = gamma > 0 ? cmsBuildGamma(NULL, gamma) : cmsBuildParametricToneCurve(NULL, 4, srgb);
    if (!curve) return NULL;
    cmsToneCurve *curves[3] = {curve, curve, curve};
    cmsHPROFILE profile = cmsCreateRGBProfile(&white, &p, curves);
    cmsFreeToneCurve(curve);
    return profile;
}

int clcms_named_profile(int which, uint8_t **out, uint32_t *out_length, char *err, size_t err_size) {
    static const double p3[6] = {0.680, 0.320, 0.265, 0.690, 0.150, 0.060};
    static const double adobe[6] = {0.640, 0.330, 0.210, 0.710, 0.150, 0.060};
    static const char *names[4] = {"", "sRGB IEC61966-2.1 (imgscale)", "Display P3 (imgscale)", "Adobe RGB (1998) compatible (imgscale)"};
    cmsSetLogErrorHandler(quiet);
    cmsHPROFILE profile = which == CLCMS_SRGB ? cmsCreate_sRGBProfile()
                        : which == CLCMS_P3 ? rgb_profile(p3, 0)
                        : which == CLCMS_ADOBE_RGB ? rgb_profile(adobe, 563.0 / 256.0) : NULL;
    if (!profile) {
        snprintf(err, err_size, "cannot make the profile");
        return -1;
    }
    /* A description, so viewers name it; a fixed one, so the bytes never vary. */
    cmsMLU *description = cmsMLUalloc(NULL, 1);
    if (description) {
        cmsMLUsetASCII(description, "en", "US", names[which]);
        cmsWriteTag(profile, cmsSigProfileDescriptionTag, description);
        cmsMLUfree(description);
    }
    cmsUInt32Number length = 0;
    uint8_t *bytes = NULL;
    if (!cmsSaveProfileToMem(profile, NULL, &length) || !(bytes = malloc(length)) || !cmsSaveProfileToMem(profile, bytes, &length)) {
        free(bytes);
        cmsCloseProfile(profile);
        snprintf(err, err_size, "cannot write the profile");
        return -1;
    }
    cmsCloseProfile(profile);
    *out = bytes;
    *out_length = length;
    return 0;
}

clcms_transform *clcms_between(const uint8_t *icc, uint32_t icc_length, const uint8_t *target, uint32_t target_length,
                               int layout, int wide, int intent, char *err, size_t err_size) {
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
    cmsHPROFILE in = icc ? cmsOpenProfileFromMem(icc, icc_length) : cmsCreate_sRGBProfile();
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
    if (target) {
        out = cmsOpenProfileFromMem(target, target_length);
        if (out && cmsGetColorSpace(out) != (gray ? cmsSigGrayData : cmsSigRgbData)) {
            cmsCloseProfile(out);
            cmsCloseProfile(in);
            snprintf(err, err_size, "the export profile is not %s", gray ? "gray" : "RGB");
            return NULL;
        }
    } else if (gray) {
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
                                               (cmsUInt32Number)intent, flags) : NULL;
    cmsCloseProfile(in);
    if (out) {
        cmsCloseProfile(out);
    }
    if (!t) {
        snprintf(err, err_size, "cannot build a transform from the ICC profile to %s", target ? "the export profile" : "sRGB");
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
