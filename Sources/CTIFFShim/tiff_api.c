#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

/* The struct is declared with libtiff's own prototypes, before the names that would
   redirect them exist: this file defines the pointers, so it includes the list only. */
#define CTIFF_API_DEFINITION
#include "tiff_api.h"

struct ctiff_api ctiff_api;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[256];

static void load(void) {
    /* The soname Debian's libtiff6 installs; the one the headers were built against. */
    void *lib = dlopen("libtiff.so.6", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(failure, sizeof failure, "libtiff is not available: %s", dlerror());
        return;
    }
#define CTIFF_RESOLVE(name)                                                              \
    if (!failure[0] && !(*(void **)&ctiff_api.name = dlsym(lib, #name)))                 \
        snprintf(failure, sizeof failure, "libtiff lacks %s", #name);
    CTIFF_FUNCTIONS(CTIFF_RESOLVE)
#undef CTIFF_RESOLVE
}

int ctiff_load(char *err, size_t errlen) {
    pthread_once(&once, load);
    if (!failure[0]) return 0;
    if (err && errlen) snprintf(err, errlen, "%s", failure);
    return -1;
}
