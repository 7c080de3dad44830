/* version.c - the library's version, from the project version in CMake. */
#include "saltbox/common.h"

const char *sbx_version(void)
{
	return SBX_VERSION_STRING;
}
