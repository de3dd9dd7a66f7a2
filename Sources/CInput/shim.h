// The Linux input subsystem's own declarations (evdev): `struct input_event`, whose size
// differs between 64-bit and 32-bit ARM, and the EV_/KEY_ codes.
#include <linux/input.h>
