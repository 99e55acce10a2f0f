/* The validity callback over the real space: its own file, so that programs that only use
 * fake spaces (the tests) do not pull in codegen's constraints. */
#include "tune.h"

int tune_space_valid(void *space, const Config *c, char *why, int whylen)
{
    return space_check((const Space *)space, c, why, whylen);
}
