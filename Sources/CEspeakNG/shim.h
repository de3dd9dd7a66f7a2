#ifndef PATHFINDER_CESPEAKNG_SHIM_H
#define PATHFINDER_CESPEAKNG_SHIM_H
#include <espeak-ng/espeak_ng.h>
#include <espeak-ng/speak_lib.h>
#endif
