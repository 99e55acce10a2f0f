/* libFuzzer target for the files users hand to stencilc besides .st programs: the first byte
 * picks the reader (byte % 3), the rest is the file, written to a temporary file:
 *   0  a model file (model_load; one that loads is scored, asked for its exemplars and support,
 *      saved and loaded again: a model stencilc can read must save as a file it can read)
 *   1  a model data TSV (model_data_read, then model_data_finish)
 *   2  a replay recording (replay_load; its best time must be one it recorded)
 * A bad file must come back as an error with a message; a crash, hang, leak or sanitizer report
 * is a bug. No GPU. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model.h"
#include "tune.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Writes the bytes to a fresh file under /tmp; its name in path. */
static void write_temp(char *path, size_t len, const uint8_t *data, size_t size)
{
    snprintf(path, len, "/tmp/stencilc-fuzz-files-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0)
        abort();
    for (size_t at = 0; at < size;) {
        ssize_t n = write(fd, data + at, size - at);
        if (n <= 0)
            abort();
        at += (size_t)n;
    }
    close(fd);
}

/* An error must say what is wrong: an empty message would leave the user guessing. */
static void check_message(const char *err)
{
    if (!err[0])
        __builtin_trap();
}

static void use_model(Model *m)
{
    double zero[FEAT_COUNT] = {0};
    (void)model_score(m, zero);
    (void)model_supports(m, zero);
    Config out[16];
    for (int dims = 1; dims <= 3; dims++)
        (void)model_exemplars(m, dims, out, 16);
    char path[64], err[512] = "";
    write_temp(path, sizeof path, NULL, 0);
    if (model_save(m, path, err, sizeof err) != 0)
        abort(); /* /tmp is writable: a failure here is the fuzzer's machine, not the input */
    Model *back = model_load(path, err, sizeof err);
    unlink(path);
    if (!back)
        __builtin_trap();
    model_free(back);
}

static void read_model(const char *path)
{
    char err[512] = "";
    Model *m = model_load(path, err, sizeof err);
    if (!m) {
        check_message(err);
        return;
    }
    use_model(m);
    model_free(m);
}

static void read_model_data(const char *path)
{
    char err[512] = "";
    ModelData d;
    model_data_init(&d);
    if (model_data_read(&d, path, err, sizeof err) != 0)
        check_message(err);
    model_data_finish(&d); /* also after a failure: the lines before it were appended */
    model_data_free(&d);
}

static void read_replay(const char *path)
{
    char err[512] = "";
    Replay *rp = replay_load(path, err, sizeof err);
    if (!rp) {
        check_message(err);
        return;
    }
    Config best;
    char why[128];
    if (replay_best_ms(rp, &best) >= 0 && !replay_valid(rp, &best, why, sizeof why))
        __builtin_trap();
    replay_free(rp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    char path[64];
    write_temp(path, sizeof path, data + 1, size - 1);
    switch (data[0] % 3) {
    case 0: read_model(path); break;
    case 1: read_model_data(path); break;
    default: read_replay(path); break;
    }
    unlink(path);
    return 0;
}
