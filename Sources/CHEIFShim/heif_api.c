#include <libheif/heif.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

/* The struct is declared with libheif's own prototypes, before the names that would
   redirect them exist: this file defines the pointers, so it includes the list only. */
#define CHEIF_API_DEFINITION
#include "heif_api.h"

struct cheif_api cheif_api;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[256];

static void load(void) {
    /* The soname Debian's libheif1 installs; the one the headers were built against. */
    void *lib = dlopen("libheif.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(failure, sizeof failure, "libheif is not available: %s", dlerror());
        return;
    }
#define CHEIF_RESOLVE(name)                                                              \
    if (!failure[0] && !(*(void **)&cheif_api.name = dlsym(lib, #name)))                 \
        snprintf(failure, sizeof failure, "libheif lacks %s", #name);
    CHEIF_FUNCTIONS(CHEIF_RESOLVE)
#undef CHEIF_RESOLVE
}

int cheif_load(char *err, size_t errlen) {
    pthread_once(&once, load);
    if (!failure[0]) return 0;
    if (err && errlen) snprintf(err, errlen, "%s", failure);
    return -1;
}
