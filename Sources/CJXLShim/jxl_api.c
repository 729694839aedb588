#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

/* The struct is declared with libjxl's own prototypes, before the names that would
   redirect them exist: this file defines the pointers, so it includes the list only. */
#define CJXL_API_DEFINITION
#include "jxl_api.h"

struct cjxl_api cjxl_api;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[256];

static void load(void) {
    /* The soname Debian's libjxl0.7 installs; the one the headers were built against. */
    void *lib = dlopen("libjxl.so.0.7", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(failure, sizeof failure, "libjxl is not available: %s", dlerror());
        return;
    }
#define CJXL_RESOLVE(name)                                                              \
    if (!failure[0] && !(*(void **)&cjxl_api.name = dlsym(lib, #name)))                 \
        snprintf(failure, sizeof failure, "libjxl lacks %s", #name);
    CJXL_FUNCTIONS(CJXL_RESOLVE)
    if (failure[0]) return;
    lib = dlopen("libjxl_threads.so.0.7", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(failure, sizeof failure, "libjxl_threads is not available: %s", dlerror());
        return;
    }
    CJXL_THREAD_FUNCTIONS(CJXL_RESOLVE)
#undef CJXL_RESOLVE
}

int cjxl_load(char *err, size_t errlen) {
    pthread_once(&once, load);
    if (!failure[0]) return 0;
    if (err && errlen) snprintf(err, errlen, "%s", failure);
    return -1;
}
