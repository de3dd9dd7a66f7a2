#ifndef PATHFINDER_CALSA_SHIM_H
#define PATHFINDER_CALSA_SHIM_H
#include <alsa/asoundlib.h>
#endif
