/* libFuzzer target for the command line: the input is a few lines of arguments, an empty line,
 * then the text of the input file; stencilc's main (driver/main.c, compiled here as
 * stencilc_main) runs on them in a scratch folder. Arguments may name odd files:
 *   @IN    the input file written from the rest of the fuzz input    @FIFO  a FIFO
 *   @DIR   a directory      @SOCK  a UNIX socket       @LONG  a 250-character name
 *   @MISSING  a path that does not exist
 * What would leave the scratch folder, take the GPU or run long is kept out: the words bench,
 * replay, --autotune, --tune-record and --validate are dropped (also as --opt=value), every
 * other path is put inside the scratch folder, --steps is at most 64 and a --grid at most
 * 64x64x64 (check allocates what it is given). A crash, hang, leak or sanitizer report is a
 * bug; stdout and stderr are closed by run_fuzz.sh (-close_fd_mask=3). */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

int stencilc_main(int argc, char **argv);

/* The outputs are fsynced (util/outfile.c); here, where nothing written is kept, that only
 * slows the fuzzer tenfold: this definition takes the place of the C library's. */
int fsync(int fd)
{
    (void)fd;
    return 0;
}
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ARGS 16
#define MAX_ARG 256

static char scratch[64];

static void make_scratch(void)
{
    snprintf(scratch, sizeof scratch, "/tmp/stencilc-fuzz-cli-%ld", (long)getpid());
    mkdir(scratch, 0700);
    if (chdir(scratch) != 0)
        abort();
    mkfifo("fifo", 0600);
    mkdir("dir", 0700);
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s/sock", scratch);
    if (s >= 0)
        bind(s, (struct sockaddr *)&a, sizeof a); /* stays open: the socket file stays a socket */
}

/* Removes what a run wrote in folder (files, and the folders check --save makes, one deep):
 * all but the fixed ones. */
static void clean_folder(const char *folder, int depth)
{
    DIR *d = opendir(folder);
    struct dirent *e;
    char path[512];
    while (d && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
            (depth == 0 && (!strcmp(e->d_name, "fifo") || !strcmp(e->d_name, "dir") || !strcmp(e->d_name, "sock"))))
            continue;
        snprintf(path, sizeof path, "%s/%s", folder, e->d_name);
        struct stat st;
        if (depth == 0 && lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            clean_folder(path, 1);
            rmdir(path);
        } else
            unlink(path);
    }
    if (d)
        closedir(d);
}

static void clean_scratch(void) { clean_folder(".", 0); }

/* One argument, mapped to what may run here (NULL: dropped). */
static const char *map_arg(char *a, const char *prev, char *buf)
{
    static const char *const drop[] = {"bench", "replay", "--autotune", "--tune-record", "--validate"};
    for (size_t i = 0; i < sizeof drop / sizeof drop[0]; i++) {
        size_t n = strlen(drop[i]);
        if (!strncmp(a, drop[i], n) && (!a[n] || a[n] == '='))
            return NULL;
    }
    if (!strncmp(a, "--steps=", 8) && atol(a + 8) > 64)
        return "--steps=64";
    if ((prev && !strcmp(prev, "--grid")) || !strncmp(a, "--grid=", 7)) {
        const char *v = a + (prev && !strcmp(prev, "--grid") ? 0 : 7);
        for (const char *p = v; *p; p++)
            if (*p >= '0' && *p <= '9' && atol(p) > 64)
                return v == a ? "64x64x64" : "--grid=64x64x64";
    }
    if (!strcmp(a, "@IN"))
        return "in.st";
    if (!strcmp(a, "@FIFO"))
        return "fifo";
    if (!strcmp(a, "@DIR"))
        return "dir";
    if (!strcmp(a, "@SOCK"))
        return "sock";
    if (!strcmp(a, "@MISSING"))
        return "missing/none.st";
    if (!strcmp(a, "@LONG")) {
        memset(buf, 'l', 247);
        strcpy(buf + 247, ".cu");
        return buf;
    }
    if (prev && !strcmp(prev, "--steps") && atol(a) > 64)
        return "64";
    if (strchr(a, '/')) { /* no path leaves the scratch folder */
        for (char *p = a; *p; p++)
            *p = *p == '/' ? '_' : *p;
    }
    return a;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!scratch[0])
        make_scratch();
    char args[MAX_ARGS][MAX_ARG], long_name[MAX_ARGS][MAX_ARG];
    char *argv[MAX_ARGS + 2] = {"stencilc"};
    int argc = 1;
    size_t at = 0;
    const char *prev = NULL;
    /* Lines up to an empty one are arguments. */
    while (at < size && argc <= MAX_ARGS) {
        size_t end = at;
        while (end < size && data[end] != '\n' && data[end] != 0)
            end++;
        if (end == at) {
            at = end + 1;
            break;
        }
        int k = argc - 1;
        size_t n = end - at < MAX_ARG - 1 ? end - at : MAX_ARG - 1;
        memcpy(args[k], data + at, n);
        args[k][n] = 0;
        const char *a = map_arg(args[k], prev, long_name[k]);
        if (a) {
            argv[argc++] = (char *)a;
            prev = a;
        }
        at = end + 1;
    }
    FILE *f = fopen("in.st", "wb");
    if (!f)
        abort();
    if (at < size)
        fwrite(data + at, 1, size - at, f);
    fclose(f);
    argv[argc] = NULL;
    stencilc_main(argc, argv);
    clean_scratch();
    return 0;
}
