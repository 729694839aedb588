#ifndef ARGUMENTS_SHIM_H
#define ARGUMENTS_SHIM_H

/* The process's argc and argv as the C runtime gave them to main. The Swift runtime on
   Linux reads CommandLine's from /proc/self/cmdline, which a chroot or a minimal
   container may not mount: there it saw no arguments at all. */
int imgscale_argc(void);
char **imgscale_argv(void);

/* PR_SET_PDEATHSIG with SIGKILL: this process dies with its parent. 0 on success. */
int imgscale_die_with_parent(void);

#endif
