/* SPDX-License-Identifier: BSD-2-Clause */
/* settle_version() and settle_version_api() against the generated header. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "settle/settle.h"

static void test_runtime_matches_header(void **state)
{
    (void)state;
    assert_string_equal(settle_version(), SETTLE_VERSION);
    char parts[64];
    snprintf(parts, sizeof(parts), "%d.%d.%d", SETTLE_VERSION_MAJOR, SETTLE_VERSION_MINOR,
             SETTLE_VERSION_PATCH);
    assert_string_equal(parts, SETTLE_VERSION);
    assert_int_equal(settle_version_api(), SETTLE_API_VERSION);
    assert_int_equal(settle_version_api() >> 16, SETTLE_API_VERSION_MAJOR);
    assert_int_equal((settle_version_api() >> 8) & 0xff, SETTLE_API_VERSION_MINOR);
}

static void test_settings_reserved_zeroed(void **state)
{
    (void)state;
    SettleSettings s;
    memset(&s, 0xa5, sizeof(s));
    settle_default_settings(&s);
    for (size_t i = 0; i < sizeof(s.reserved); i++)
        assert_int_equal(s.reserved[i], 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runtime_matches_header),
        cmocka_unit_test(test_settings_reserved_zeroed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
