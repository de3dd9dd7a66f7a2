// How busy PocketSphinx's grammar search is on a recording: decodes 16 kHz mono 16-bit raw PCM
// with the given decoder settings in 3 s utterances, with sphinxbase's log on (it prints the
// lextree's size and, per utterance, the HMMs evaluated a frame), and ends with the decoder's
// own CPU time over the audio's. A probe for docs/speech.md ("A cap on the search"), not part of
// the product (the product dithers in Swift and runs more decoders; this is the plain one).
//   gcc -O2 search-probe.c $(pkg-config --cflags --libs pocketsphinx sphinxbase) -o search-probe
// Commands (babble.raw, the settings of models/pathfinder.args): README.md beside this file.
#include <pocketsphinx.h>
#include <stdio.h>

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: search-probe FILE.raw [-flag value]...\n");
        return 2;
    }
    cmd_ln_t *config = cmd_ln_parse_r(NULL, ps_args(), argc - 2, argv + 2, TRUE);
    ps_decoder_t *ps = config ? ps_init(config) : NULL;
    if (!ps) {
        fprintf(stderr, "search-probe: PocketSphinx refused the settings\n");
        return 2;
    }
    FILE *file = fopen(argv[1], "rb");
    if (!file) {
        perror(argv[1]);
        return 2;
    }
    int16 block[320];
    size_t count;
    long fed = 0;
    ps_start_utt(ps);
    while ((count = fread(block, 2, 320, file)) > 0) {
        ps_process_raw(ps, block, count, FALSE, FALSE);
        fed += (long)count;
        if (fed % (16000 * 3) < 320) {
            ps_end_utt(ps);
            ps_start_utt(ps);
        }
    }
    ps_end_utt(ps);
    fclose(file);
    double speech, cpu, wall;
    ps_get_all_time(ps, &speech, &cpu, &wall);
    fprintf(stderr, "TOTAL speech %.1f s, CPU %.2f s, RTF %.3f\n", speech, cpu, cpu / speech);
    ps_free(ps);
    cmd_ln_free_r(config);
    return 0;
}
