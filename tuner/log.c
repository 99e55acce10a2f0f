/* The JSON lines of --tune-log and of the database journal: one evaluation per line, written
 * and read back here (only our own format is read: a torn or foreign line is just skipped). */
#include <stdlib.h>
#include <string.h>

#include "tune_int.h"

void tune_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", f);
        else if (*p == '\t')
            fputs("\\t", f);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

/* The shortest of %.15g / %.17g that reads back as the same double: a resumed run must see
 * exactly the times the first one measured. */
static void exact_double(char *buf, size_t len, double v)
{
    snprintf(buf, len, "%.15g", v);
    if (strtod(buf, NULL) != v)
        snprintf(buf, len, "%.17g", v);
}

/* The fields every line shares: {"config":"..." */
static void line_open(FILE *f, const Config *c)
{
    char cfg[512];
    config_format(c, cfg, sizeof cfg);
    fputs("{\"config\":", f);
    tune_json_string(f, cfg);
}

/* ,"key":ms exactly, or null where there is none */
static void ms_or_null(FILE *f, const char *key, int have, double ms)
{
    char buf[40];
    if (have)
        exact_double(buf, sizeof buf, ms);
    fprintf(f, ",\"%s\":%s", key, have ? buf : "null");
}

static void status_reason(FILE *f, const char *status, const char *reason)
{
    fputs(",\"status\":", f);
    tune_json_string(f, status);
    fputs(",\"reason\":", f);
    tune_json_string(f, reason);
}

void tune_log_line(FILE *f, const TuneSample *r)
{
    line_open(f, &r->config);
    ms_or_null(f, "ms", r->ok, r->ms);
    status_reason(f, r->ok ? "ok" : "fail", r->ok ? "" : r->why);
    fprintf(f, ",\"elapsed_s\":%.3f}\n", r->elapsed_s);
}

void tune_log_final(FILE *f, const Config *c, double ms, double search_ms, const char *status,
                    const char *reason)
{
    line_open(f, c);
    ms_or_null(f, "ms", ms > 0, ms);
    ms_or_null(f, "search_ms", search_ms > 0, search_ms);
    status_reason(f, status, reason);
    fputs("}\n", f);
    fflush(f);
}

/* Reads the JSON string at s (just after the opening quote) into out. Returns the position
 * after the closing quote, or NULL. */
static const char *json_unescape(const char *s, char *out, int outlen)
{
    int n = 0;
    for (; *s && *s != '"'; s++) {
        char c = *s;
        if (c == '\\') {
            s++;
            switch (*s) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'u': {
                char hex[5] = {0};
                for (int i = 0; i < 4; i++) {
                    if (!s[1 + i])
                        return NULL;
                    hex[i] = s[1 + i];
                }
                c = (char)strtol(hex, NULL, 16);
                s += 4;
                break;
            }
            case '\0': return NULL;
            default: c = *s; break;
            }
        }
        if (n < outlen - 1)
            out[n++] = c;
    }
    out[n] = '\0';
    return *s == '"' ? s + 1 : NULL;
}

static const char *field(const char *line, const char *name)
{
    char key[32];
    snprintf(key, sizeof key, "\"%s\":", name);
    const char *p = strstr(line, key);
    return p ? p + strlen(key) : NULL;
}

int tune_log_parse(const char *line, int dims, TuneSample *r)
{
    char cfg[512], status[16], err[160];
    memset(r, 0, sizeof *r);
    const char *p = field(line, "config");
    if (!p || *p != '"' || !json_unescape(p + 1, cfg, sizeof cfg))
        return -1;
    p = field(line, "status");
    if (!p || *p != '"' || !json_unescape(p + 1, status, sizeof status))
        return -1;
    if (!strchr(line, '}')) /* a torn last line */
        return -1;
    if (config_parse(cfg, dims, &r->config, err, sizeof err) != 0)
        return -1;
    r->ok = !strcmp(status, "ok");
    if (r->ok) {
        p = field(line, "ms");
        char *end;
        if (!p || (r->ms = strtod(p, &end), end == p) || !tune_ms_valid(r->ms))
            return -1;
    } else {
        r->ms = -1;
        p = field(line, "reason");
        if (!p || *p != '"' || !json_unescape(p + 1, r->why, sizeof r->why))
            return -1;
    }
    p = field(line, "elapsed_s");
    r->elapsed_s = p ? strtod(p, NULL) : -1;
    return 0;
}
