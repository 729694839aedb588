#include "arguments_shim.h"

static int saved_argc;
static char **saved_argv;

/* glibc calls each .init_array function with main's argc, argv and envp (as it has
   since 2.1; musl passes nothing, and then argc stays 0 and Swift's own is used). */
static void capture(int argc, char **argv, char **envp) {
    (void)envp;
    saved_argc = argc;
    saved_argv = argv;
}

__attribute__((section(".init_array"), used))
static void (*const capture_entry)(int, char **, char **) = capture;

int imgscale_argc(void) { return saved_argc; }
char **imgscale_argv(void) { return saved_argv; }
