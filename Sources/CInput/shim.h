// The Linux input subsystem's own declarations (evdev): `struct input_event`, whose size
// differs between 64-bit and 32-bit ARM, and the EV_/KEY_ codes.
#include <linux/input.h>
#include <sys/ioctl.h>

// The evdev protocol version of the input device open at `fd`, or -1 when it is not one (a
// serial port, /dev/zero): EVIOCGVERSION is a macro Swift cannot call.
static inline int pathfinder_evdev_version(int fd) {
    int version = 0;
    return ioctl(fd, EVIOCGVERSION, &version) == 0 ? version : -1;
}
