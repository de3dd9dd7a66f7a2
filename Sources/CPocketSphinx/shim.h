#ifndef PATHFINDER_CPOCKETSPHINX_SHIM_H
#define PATHFINDER_CPOCKETSPHINX_SHIM_H
#include <pocketsphinx.h>
#include <sphinxbase/err.h>
#include <sphinxbase/feat.h>
#include <sphinxbase/cmn.h>

/* cmd_ln_init is variadic; Swift cannot call it. Parse an argv array instead
   (argv[0] is skipped as the program name, as on a command line). */
static inline cmd_ln_t *pathfinder_ps_config(int argc, char **argv) {
    return cmd_ln_parse_r(NULL, ps_args(), argc, argv, 1);
}

#endif
