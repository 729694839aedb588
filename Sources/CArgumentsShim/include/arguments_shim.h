#ifndef ARGUMENTS_SHIM_H
#define ARGUMENTS_SHIM_H

/* The process's argc and argv as the C runtime gave them to main. The Swift runtime on
   Linux reads CommandLine's from /proc/self/cmdline, which a chroot or a minimal
   container may not mount: there it saw no arguments at all. */
int imgscale_argc(void);
char **imgscale_argv(void);

#endif
