#ifndef PATHFINDER_CALSA_SHIM_H
#define PATHFINDER_CALSA_SHIM_H
#include <alsa/asoundlib.h>

/* ALSA prints its own diagnostics to stderr through a variadic handler, which Swift cannot
   write; this one drops them (our errors carry snd_strerror's text instead). */
static void pathfinder_alsa_silent(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}
static inline void pathfinder_alsa_quiet(void) { snd_lib_error_set_handler(pathfinder_alsa_silent); }

#endif
