/* SPDX-License-Identifier: BSD-2-Clause */
/* Built once per public header (tests/meson.build): it compiles alone. */
#include SETTLE_HEADER

int main(void)
{
    return 0;
}
