/* nvcc in NVRTC's place, where $STC_NVCC names one: the device code of `nvcc -c` on the emitted
 * .cu (whole program), so that what the tuner times and ptxas reports is the machine code the
 * user's build gets. NVRTC's is not always that: nvcc's front end (cicc) makes pointers to shared
 * memory 32 bits wide, NVRTC's 64 (no documented option of either changes it), and from the two
 * PTX texts ptxas allocates some kernels differently (for sm_90 with CUDA 13.0, box3d1r
 * tb=128x2x1,stream=z,sb=64,bm=1x8x1,retime=on,prefetch=on: 106 registers from nvcc, 118 from
 * NVRTC; given -Xcicc --sharedmem32=0, nvcc's machine code is NVRTC's; docs/autotune.md). */
#include <dirent.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "rt_internal.h"
#include "util/strbuf.h"

extern char **environ;

enum { DIR_LEN = 4096, PATH_LEN = DIR_LEN + 256 }; /* the scratch folder's path; a file's in it */

const char *rt_nvcc_path(void)
{
    const char *p = getenv("STC_NVCC");
    return p && *p ? p : NULL;
}

/* Runs argv (found on PATH unless it names a path) with stdout and stderr to the file out; its
 * exit status, or -1 when it could not run. */
static int spawn_wait(char *const argv[], const char *out)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    int status;
    if (rc != 0 || waitpid(pid, &status, 0) != pid)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The scratch folder and everything nvcc --keep left in it. */
static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[PATH_LEN];
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            remove(path);
        }
    if (d)
        closedir(d);
    rmdir(dir);
}

/* source in dir/k.cu; nvcc -cubin --keep leaves k.ptx beside k.cubin, its output in k.log. */
static int run_nvcc(const RtContext *rc, const char *dir, const char *source, char *log, int loglen)
{
    char cu[PATH_LEN], cubin[PATH_LEN], out[PATH_LEN], arch[32];
    snprintf(cu, sizeof cu, "%s/k.cu", dir);
    snprintf(cubin, sizeof cubin, "%s/k.cubin", dir);
    snprintf(out, sizeof out, "%s/k.log", dir);
    snprintf(arch, sizeof arch, "-arch=sm_%d%d", rc->info.cc_major, rc->info.cc_minor);
    FILE *f = fopen(cu, "w");
    int wrote = f && fputs(source, f) >= 0;
    if ((f && fclose(f) != 0) || !wrote) {
        snprintf(log, (size_t)loglen, "cannot write %s", cu);
        return -1;
    }
    char *argv[] = {(char *)rt_nvcc_path(), "-cubin", arch, "-Xptxas", "-v", "--keep", "--keep-dir",
                    (char *)dir, "-o", cubin, cu, NULL};
    int st = spawn_wait(argv, out);
    if (st != 0) {
        char *text = sb_file_text(out, NULL);
        snprintf(log, (size_t)loglen, "%s (%s) %s%s%s", argv[0], arch, st < 0 ? "could not run ($STC_NVCC)" : "failed",
                 text && *text ? "\n" : "", text ? text : "");
        free(text);
        return -1;
    }
    return 0;
}

/* dir/name into *out where out is asked for: 0, or -1 with the log. */
static int take(const char *dir, const char *name, char **out, size_t *size, char *log, int loglen)
{
    char path[PATH_LEN];
    if (!out)
        return 0;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if ((*out = sb_file_text(path, size)))
        return 0;
    snprintf(log, (size_t)loglen, "nvcc left no %s", name);
    return -1;
}

int rt_nvcc_build(const RtContext *rc, const char *source, void **cubin, size_t *cubin_size,
                  char **ptx, char **report, char *log, int loglen)
{
    const char *tmp = getenv("TMPDIR");
    char dir[DIR_LEN];
    snprintf(dir, sizeof dir, "%s/stencilc-nvcc-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (loglen > 0)
        log[0] = 0;
    if (!mkdtemp(dir)) {
        snprintf(log, (size_t)loglen, "cannot make a scratch folder for nvcc in %s", dir);
        return -1;
    }
    char *bin = NULL, *text = NULL, *rep = NULL;
    int bad = run_nvcc(rc, dir, source, log, loglen) != 0
              || take(dir, "k.cubin", cubin ? &bin : NULL, cubin_size, log, loglen) != 0
              || take(dir, "k.ptx", ptx ? &text : NULL, NULL, log, loglen) != 0
              || take(dir, "k.log", report ? &rep : NULL, NULL, log, loglen) != 0;
    remove_dir(dir);
    if (bad) {
        free(bin);
        free(text);
        free(rep);
        bin = text = rep = NULL;
    }
    if (cubin)
        *cubin = bin;
    if (ptx)
        *ptx = text;
    if (report)
        *report = rep;
    return bad ? -1 : 0;
}
