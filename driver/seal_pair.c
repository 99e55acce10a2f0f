/* The seal that ties a generated .cu to the header written with it.
 *
 * stencilc writes FILE.cu and FILE.h; no file system renames two files at once, so a run killed
 * (or a disk that fills) between the two renames could leave one new file beside one old one,
 * and a new header beside an old .cu would compile silently into a program that calls an API
 * with other arguments or another memory layout. So the pair carries a digest of both texts:
 * the header defines STENCILC_PAIR_<name> to it, on its last line (a header cut short lacks it),
 * and the .cu, right after its #include of the header, stops the build with #error when the
 * macro is missing or differs. Identical texts give the same digest, so rewriting a pair with
 * the same contents stays compatible either way.
 *
 * With that, out_replace's order is chosen so that the window between the renames is always
 * caught: the .cu is renamed first. A new .cu beside the old header is refused by the new .cu's
 * check, whatever program wrote the old header (even one from before the seal existed). The
 * other order would leave an old .cu beside a new header, caught only where the old .cu has a
 * check. Before the first rename both old files stand; after the second both new ones do. */
#include <stdint.h>
#include <string.h>

#include "seal_pair.h"

static uint64_t fnv1a(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return h;
}

void seal_pair(StrBuf *cu, StrBuf *h, const char *ident, const char *h_name)
{
    uint64_t d = fnv1a(fnv1a(0xcbf29ce484222325ull, cu->data, cu->len), h->data, h->len);
    char digest[24];
    snprintf(digest, sizeof digest, "0x%016llxULL", (unsigned long long)d);
    sb_printf(h, "\n/* This header's seal: the .cu generated with it checks it (see there). */\n"
                 "#define STENCILC_PAIR_%s %s\n", ident, digest);

    StrBuf check = {0};
    sb_printf(&check,
              "/* The header must be the one generated with this file: after an interrupted write\n"
              " * or a copy from another run, the two would not match. */\n"
              "#if !defined(STENCILC_PAIR_%s) || STENCILC_PAIR_%s != %s\n"
              "#error \"the header is not the one generated with this .cu (an interrupted stencilc run?): "
              "run stencilc again to write both\"\n"
              "#endif\n",
              ident, ident, digest);
    /* Right after the #include of the header; at the end where that line is not found. */
    StrBuf inc = {0};
    sb_printf(&inc, "#include \"%s\"\n", h_name);
    const char *at = strstr(cu->data, inc.data);
    size_t pos = at ? (size_t)(at - cu->data) + inc.len : cu->len;
    StrBuf out = {0};
    sb_putn(&out, cu->data, pos);
    sb_putn(&out, check.data, check.len);
    sb_putn(&out, cu->data + pos, cu->len - pos);
    sb_free(&inc);
    sb_free(&check);
    sb_free(cu);
    *cu = out;
}
