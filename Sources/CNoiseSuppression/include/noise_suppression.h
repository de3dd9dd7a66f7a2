#ifndef PATHFINDER_NOISE_SUPPRESSION_H
#define PATHFINDER_NOISE_SUPPRESSION_H
/* WebRTC's noise suppression (Debian's libwebrtc-audio-processing 0.3) behind three C
   functions, for the Listener: 16 kHz mono 16-bit audio, in frames of 10 ms. */
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The samples in one frame: 10 ms at 16 kHz. */
#define PATHFINDER_NS_FRAME 160

typedef struct pathfinder_ns pathfinder_ns;

/* A suppressor at `level` (0 mild, 1 moderate, 2 high, 3 very high); NULL if WebRTC refuses
   it. Its noise estimate starts empty and learns from every frame it is given. */
pathfinder_ns *pathfinder_ns_create(int level);

/* Suppresses the noise in one frame of PATHFINDER_NS_FRAME samples, in place; 0 on success,
   else WebRTC's error code. */
int pathfinder_ns_process(pathfinder_ns *ns, int16_t *frame);

void pathfinder_ns_destroy(pathfinder_ns *ns);

#ifdef __cplusplus
}
#endif
#endif
