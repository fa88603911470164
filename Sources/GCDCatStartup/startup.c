#include "GCDCatStartup.h"

#include "CSystemShim.h"

static int gcdcat_argc = 0;
static char *const *gcdcat_argv = 0;

int gcdcat_startup_argc(void) {
    return gcdcat_argc;
}

char *const *gcdcat_startup_argv(void) {
    return gcdcat_argv;
}

/// Runs before Swift's main, so that no signal finds gcdcat without its handlers: the runtime
/// and argument parsing take tens of milliseconds, and a SIGQUIT there reached the Swift
/// runtime's crash handler (see gcdcat_install_early_signals).
///
/// glibc passes constructors the process's arguments. Swift's `CommandLine` finds them by
/// reading /proc/self/maps: when that `open` failed (EMFILE, injected), `CommandLine.argc` was 0
/// and gcdcat trapped (SIGILL) before parsing anything. These come from the kernel directly.
///
/// Priority 101, the first a program may take: prioritized constructors run before every plain
/// one, the Swift runtime's included. Linked statically (--static-swift-stdlib), the runtime's
/// initializer ran first, set up its backtracer (SWIFT_BACKTRACE not yet set to enable=no) and
/// took SIGQUIT: 1 run in 40 with a SIGQUIT 2-12 ms after start printed "Program crashed" and
/// then finished the split with exit 0.
__attribute__((constructor(101))) static void gcdcat_startup(int argc, char **argv, char **envp) {
    (void)envp;
    gcdcat_argc = argc;
    gcdcat_argv = argv;
    gcdcat_adapt_to_address_space_limit();
    gcdcat_install_early_signals();
}
