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

#include <signal.h>
#include <sys/prctl.h>

/* prctl is variadic, which Swift cannot call: a worker asks to be killed when the
   process that forked it dies, so none outlives a killed batch. */
int imgscale_die_with_parent(void) { return prctl(PR_SET_PDEATHSIG, SIGKILL); }
