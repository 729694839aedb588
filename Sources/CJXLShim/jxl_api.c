#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

/* The struct is declared with libjxl's own prototypes, before the names that would
   redirect them exist: this file defines the pointers, so it includes the list only. */
#define CJXL_API_DEFINITION
#include "jxl_api.h"
#include "jxl_shim.h"

struct cjxl_api cjxl_api;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[256];

/* The libjxl releases the shim supports, each by the sonames its Debian package installs
   and the version JxlDecoderVersion must report (major * 1000000 + minor * 1000): the
   first whose library opens and says it is that minor version is used. 0.7 is Debian
   12's, whose headers this is built against; 0.11 is Debian 13's, proven by
   scripts/check-libjxl-release. Another joins the list once that passes against it,
   since its structs (JxlBasicInfo, JxlPixelFormat, JxlFrameHeader) and frame-settings
   options must keep 0.7's meaning. */
static const struct {
    const char *library, *threads;
    uint32_t version;
} releases[] = {
    {"libjxl.so.0.7", "libjxl_threads.so.0.7", 7000},
    {"libjxl.so.0.11", "libjxl_threads.so.0.11", 11000},
};

/* The minor version of the release loaded. */
static uint32_t minor;

static void load(void) {
    void *lib = NULL;
    size_t n = sizeof releases / sizeof releases[0];
    const char *tried = "";
    for (size_t i = 0; i < n && !lib; i++) {
        void *candidate = dlopen(releases[i].library, RTLD_NOW | RTLD_LOCAL);
        if (!candidate) {
            tried = dlerror();
            continue;
        }
        uint32_t (*version)(void) = (uint32_t (*)(void))dlsym(candidate, "JxlDecoderVersion");
        if (version && version() / 1000 == releases[i].version / 1000) {
            lib = candidate;
            n = i;
            minor = releases[i].version / 1000;
            failure[0] = '\0';
            break;
        }
        snprintf(failure, sizeof failure, "%s reports version %u, not 0.%u", releases[i].library,
                 version ? version() : 0, releases[i].version / 1000);
        dlclose(candidate);
    }
    if (!lib) {
        if (!failure[0]) snprintf(failure, sizeof failure, "libjxl is not available: %s", tried);
        return;
    }
#define CJXL_RESOLVE(name)                                                              \
    if (!failure[0] && !(*(void **)&cjxl_api.name = dlsym(lib, #name)))                 \
        snprintf(failure, sizeof failure, "libjxl lacks %s", #name);
    CJXL_FUNCTIONS(CJXL_RESOLVE)
    if (failure[0]) return;
    lib = dlopen(releases[n].threads, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(failure, sizeof failure, "libjxl_threads is not available: %s", dlerror());
        return;
    }
    CJXL_THREAD_FUNCTIONS(CJXL_RESOLVE)
#undef CJXL_RESOLVE
}

int cjxl_release(void) {
    pthread_once(&once, load);
    return failure[0] ? 0 : (int)minor;
}

int cjxl_load(char *err, size_t errlen) {
    pthread_once(&once, load);
    if (!failure[0]) return 0;
    if (err && errlen) snprintf(err, errlen, "%s", failure);
    return -1;
}

/* 0.7 and 0.8 take a pixel format first, which they ignore. */
JxlDecoderStatus cjxl_color_as_encoded_profile(const JxlDecoder *dec, JxlColorProfileTarget target,
                                               JxlColorEncoding *encoding) {
    if (minor < 9) return cjxl_api.JxlDecoderGetColorAsEncodedProfile(dec, NULL, target, encoding);
    return ((JxlDecoderStatus (*)(const JxlDecoder *, JxlColorProfileTarget, JxlColorEncoding *))
                cjxl_api.JxlDecoderGetColorAsEncodedProfile)(dec, target, encoding);
}

JxlDecoderStatus cjxl_icc_profile_size(const JxlDecoder *dec, JxlColorProfileTarget target, size_t *size) {
    if (minor < 9) return cjxl_api.JxlDecoderGetICCProfileSize(dec, NULL, target, size);
    return ((JxlDecoderStatus (*)(const JxlDecoder *, JxlColorProfileTarget, size_t *))cjxl_api.JxlDecoderGetICCProfileSize)(
        dec, target, size);
}

JxlDecoderStatus cjxl_color_as_icc_profile(const JxlDecoder *dec, JxlColorProfileTarget target, uint8_t *icc,
                                           size_t size) {
    if (minor < 9) return cjxl_api.JxlDecoderGetColorAsICCProfile(dec, NULL, target, icc, size);
    return ((JxlDecoderStatus (*)(const JxlDecoder *, JxlColorProfileTarget, uint8_t *, size_t))
                cjxl_api.JxlDecoderGetColorAsICCProfile)(dec, target, icc, size);
}
