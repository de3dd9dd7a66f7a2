// WebRTC's high-pass filter and automatic gain control (and optionally its noise
// suppression) over 16 kHz mono 16-bit raw PCM, stdin to stdout, 10 ms frames: a probe for
// Scripts/bench-answer-latency --preprocess, not part of the product.
//   g++ -O2 webrtc-filter.cc $(pkg-config --cflags --libs webrtc-audio-processing) -o webrtc-filter
//   webrtc-filter [--agc] [--hpf] [--ns LEVEL(0-3)] < in.raw > out.raw
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <webrtc/modules/audio_processing/include/audio_processing.h>
#include <webrtc/modules/interface/module_common_types.h>

int main(int argc, char **argv) {
    bool agc = false, hpf = false;
    int ns = -1;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--agc")) agc = true;
        else if (!strcmp(argv[i], "--hpf")) hpf = true;
        else if (!strcmp(argv[i], "--ns") && i + 1 < argc) ns = atoi(argv[++i]);
        else { fprintf(stderr, "usage: webrtc-filter [--agc] [--hpf] [--ns 0-3]\n"); return 2; }
    }
    webrtc::AudioProcessing *apm = webrtc::AudioProcessing::Create();
    if (hpf) apm->high_pass_filter()->Enable(true);
    if (agc) {
        apm->gain_control()->set_mode(webrtc::GainControl::kAdaptiveDigital);
        apm->gain_control()->set_target_level_dbfs(3);
        apm->gain_control()->set_compression_gain_db(9);
        apm->gain_control()->enable_limiter(true);
        apm->gain_control()->Enable(true);
    }
    if (ns >= 0) {
        apm->noise_suppression()->set_level(static_cast<webrtc::NoiseSuppression::Level>(ns));
        apm->noise_suppression()->Enable(true);
    }
    webrtc::AudioFrame frame;
    frame.sample_rate_hz_ = 16000;
    frame.num_channels_ = 1;
    frame.samples_per_channel_ = 160;
    for (;;) {
        size_t n = fread(frame.data_, sizeof(int16_t), 160, stdin);
        if (n == 0) break;
        if (n < 160) memset(frame.data_ + n, 0, (160 - n) * sizeof(int16_t));
        if (apm->ProcessStream(&frame) != 0) { fprintf(stderr, "webrtc-filter: ProcessStream failed\n"); return 1; }
        fwrite(frame.data_, sizeof(int16_t), n, stdout);
    }
    delete apm;
    return 0;
}
