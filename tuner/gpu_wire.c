/* The byte-level helpers of the GPU evaluation's protocol (gpu_wire.h). */
#include "gpu_wire.h"

#include <errno.h>
#include <unistd.h>

void wire_one_line(char *dst, int len, const char *src)
{
    int j = 0;
    for (const char *p = src; *p && j < len - 1; p++) {
        char c = *p;
        if (c == '\n' || c == '\t' || c == '\r')
            c = ' ';
        if (c == ' ' && (j == 0 || dst[j - 1] == ' '))
            continue;
        dst[j++] = c;
    }
    while (j > 0 && dst[j - 1] == ' ')
        j--;
    dst[j] = '\0';
}

int wire_write(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int wire_read(int fd, void *buf, size_t n)
{
    char *p = buf;
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, p + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            return got ? -1 : 0;
        got += (size_t)r;
    }
    return 1;
}
