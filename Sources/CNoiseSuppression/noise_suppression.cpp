// WebRTC's AudioProcessing with its noise suppression alone enabled, as
// Benchmarks/webrtc-filter's `--ns LEVEL` runs it (docs/speech.md).
#include "noise_suppression.h"

#include <cstring>
#include <new>
#include <webrtc/modules/audio_processing/include/audio_processing.h>
#include <webrtc/modules/interface/module_common_types.h>

struct pathfinder_ns {
    webrtc::AudioProcessing *apm;
    webrtc::AudioFrame frame;
};

extern "C" pathfinder_ns *pathfinder_ns_create(int level) {
    if (level < 0 || level > 3) return nullptr;
    webrtc::AudioProcessing *apm = webrtc::AudioProcessing::Create();
    if (apm == nullptr) return nullptr;
    if (apm->noise_suppression()->set_level(static_cast<webrtc::NoiseSuppression::Level>(level)) != 0
        || apm->noise_suppression()->Enable(true) != 0) {
        delete apm;
        return nullptr;
    }
    pathfinder_ns *ns = new (std::nothrow) pathfinder_ns;
    if (ns == nullptr) {
        delete apm;
        return nullptr;
    }
    ns->apm = apm;
    ns->frame.sample_rate_hz_ = 16000;
    ns->frame.num_channels_ = 1;
    ns->frame.samples_per_channel_ = PATHFINDER_NS_FRAME;
    return ns;
}

extern "C" int pathfinder_ns_process(pathfinder_ns *ns, int16_t *frame) {
    std::memcpy(ns->frame.data_, frame, PATHFINDER_NS_FRAME * sizeof(int16_t));
    int status = ns->apm->ProcessStream(&ns->frame);
    if (status != 0) return status;
    std::memcpy(frame, ns->frame.data_, PATHFINDER_NS_FRAME * sizeof(int16_t));
    return 0;
}

extern "C" void pathfinder_ns_destroy(pathfinder_ns *ns) {
    if (ns == nullptr) return;
    delete ns->apm;
    delete ns;
}
