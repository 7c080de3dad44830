/*
 * test_buf.c - the public byte buffer (saltbox/common.h) as an embedding
 * program sees it: only the public header, so these are the exported
 * sbx_buf_append/reserve/reset/free, not the library's inline versions.
 */
#include "check.h"
#include "saltbox.h"

static void test_append_grows_and_keeps_bytes(void)
{
	sbx_buf b = {0};
	CHECK_INT(sbx_buf_append(&b, "ab", 2), SBX_OK);
	CHECK_INT(sbx_buf_append(&b, "\0c", 2), SBX_OK);
	CHECK_INT(sbx_buf_append(&b, NULL, 0), SBX_OK);
	CHECK_INT(b.len, 4);
	CHECK(memcmp(b.data, "ab\0c", 4) == 0);
	/* 1000 appends of 10 bytes: every byte where it was put */
	sbx_buf_reset(&b);
	for (int i = 0; i < 1000; i++)
		REQUIRE(sbx_buf_append(&b, "0123456789", 10) == SBX_OK);
	CHECK_INT(b.len, 10000);
	CHECK(b.cap >= 10000);
	CHECK_MEM(b.data + 9990, 10, "0123456789");
	sbx_buf_free(&b);
	CHECK(b.data == NULL);
	CHECK_INT(b.len, 0);
	CHECK_INT(b.cap, 0);
	sbx_buf_free(NULL);
}

static void test_reset_keeps_memory_reserve_makes_room(void)
{
	sbx_buf b = {0};
	CHECK_INT(sbx_buf_reserve(&b, 100), SBX_OK);
	CHECK_INT(b.len, 0);
	CHECK(b.cap >= 100);
	uint8_t *before = b.data;
	size_t cap = b.cap;
	for (int i = 0; i < 100; i++)
		REQUIRE(sbx_buf_append(&b, "x", 1) == SBX_OK);
	CHECK(b.data == before); /* reserved room: no move */
	sbx_buf_reset(&b);
	CHECK_INT(b.len, 0);
	CHECK_INT(b.cap, cap);
	CHECK(b.data == before);
	CHECK_INT(sbx_buf_append(&b, "yz", 2), SBX_OK);
	CHECK_MEM(b.data, b.len, "yz");
	sbx_buf_free(&b);
}

static void test_huge_request_is_enomem_and_leaves_buffer(void)
{
	sbx_buf b = {0};
	CHECK_INT(sbx_buf_append(&b, "abc", 3), SBX_OK);
	CHECK_INT(sbx_buf_reserve(&b, SIZE_MAX - 1), SBX_ENOMEM);
	CHECK_INT(sbx_buf_reserve(&b, SIZE_MAX / 2 + 1), SBX_ENOMEM);
	CHECK_INT(b.len, 3);
	CHECK_MEM(b.data, b.len, "abc");
	sbx_buf_free(&b);
}

TEST_MAIN(T(test_append_grows_and_keeps_bytes),
	  T(test_reset_keeps_memory_reserve_makes_room),
	  T(test_huge_request_is_enomem_and_leaves_buffer))
