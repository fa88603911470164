#ifndef GCDCAT_STARTUP_H
#define GCDCAT_STARTUP_H

// Linked into the gcdcat executable only: its constructor (startup.c) runs before Swift's main.
// It installs the signal handlers (gcdcat_install_early_signals) and keeps the command line as
// the kernel passed it. The library and the test binaries do not link it, so they keep their
// own signal handling.

/// The argument count and vector given to the process (glibc passes them to constructors);
/// 0 and NULL if the constructor did not run.
int gcdcat_startup_argc(void);
char *const *gcdcat_startup_argv(void);

#endif
