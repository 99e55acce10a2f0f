/* The seal that ties a generated .cu to its header (seal_pair.c argues the design). */
#ifndef STC_SEAL_PAIR_H
#define STC_SEAL_PAIR_H
#include <stdio.h>

#include "../util/strbuf.h"

/* Appends `#define STENCILC_PAIR_<ident> DIGEST` to h and puts the check of it into cu after
 * its `#include "h_name"`. DIGEST is a digest of both texts as given. */
void seal_pair(StrBuf *cu, StrBuf *h, const char *ident, const char *h_name);

#endif
