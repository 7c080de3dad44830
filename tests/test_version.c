/*
 * test_version.c - sbx_version() names the project's version (CMakeLists'
 * project(VERSION)), and `saltbox --version` prints the same.
 */
#include "check.h"
#include "saltbox/common.h"

static void test_version_string(void)
{
	CHECK(strcmp(sbx_version(), "0.1.0") == 0);
}

TEST_MAIN(T(test_version_string))
