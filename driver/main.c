#include <stdio.h>
#include "stc_config.h"
int main(void) { puts("stencilc " STC_VERSION); return 0; }
