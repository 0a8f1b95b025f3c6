/* SPDX-License-Identifier: BSD-2-Clause */
/* Built once per public header (tests/meson.build): it compiles alone as C++. */
#include SETTLE_HEADER

int main()
{
    return 0;
}
