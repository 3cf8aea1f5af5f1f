// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of the sockets-over-RDMA connection ids, sor/sor_ids.h:
 * 0..4094, never 4095, exhaustion, late reuse of freed ids.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/module.h>

#include "../sor/sor_ids.h"

static void sor_ids_test_exhaust(struct kunit *test)
{
	struct sor_ids *ids = kunit_kzalloc(test, sizeof(*ids), GFP_KERNEL);
	unsigned int i;
	int id;

	KUNIT_ASSERT_NOT_NULL(test, ids);
	sor_ids_init(ids);
	for (i = 0; i < SOR_IDS_MAX; i++) {
		id = sor_ids_alloc(ids);
		KUNIT_ASSERT_EQ(test, id, (int)i);
	}
	KUNIT_EXPECT_EQ(test, ids->count, SOR_IDS_MAX);
	KUNIT_EXPECT_EQ(test, sor_ids_alloc(ids), -EAGAIN);
	/* 4095 means "none" and is never handed out. */
	KUNIT_EXPECT_FALSE(test, sor_ids_in_use(ids, SOR_IDS_MAX));
	KUNIT_EXPECT_TRUE(test, sor_ids_free(ids, 1234));
	KUNIT_EXPECT_EQ(test, sor_ids_alloc(ids), 1234);
	KUNIT_EXPECT_EQ(test, sor_ids_alloc(ids), -EAGAIN);
}

static void sor_ids_test_free(struct kunit *test)
{
	struct sor_ids *ids = kunit_kzalloc(test, sizeof(*ids), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ids);
	sor_ids_init(ids);
	KUNIT_EXPECT_FALSE(test, sor_ids_free(ids, 0));
	KUNIT_EXPECT_FALSE(test, sor_ids_free(ids, SOR_IDS_MAX));
	KUNIT_EXPECT_FALSE(test, sor_ids_free(ids, U32_MAX));
	KUNIT_EXPECT_EQ(test, sor_ids_alloc(ids), 0);
	KUNIT_EXPECT_TRUE(test, sor_ids_free(ids, 0));
	/* Double free changes nothing. */
	KUNIT_EXPECT_FALSE(test, sor_ids_free(ids, 0));
	KUNIT_EXPECT_EQ(test, ids->count, 0U);
}

/* A freed id comes back only after all the others were used. */
static void sor_ids_test_late_reuse(struct kunit *test)
{
	struct sor_ids *ids = kunit_kzalloc(test, sizeof(*ids), GFP_KERNEL);
	unsigned int i;
	int id;

	KUNIT_ASSERT_NOT_NULL(test, ids);
	sor_ids_init(ids);
	for (i = 0; i < 3 * SOR_IDS_MAX; i++) {
		id = sor_ids_alloc(ids);
		KUNIT_ASSERT_EQ(test, id, (int)(i % SOR_IDS_MAX));
		KUNIT_ASSERT_TRUE(test, sor_ids_free(ids, id));
	}
	/* With holes: the cursor skips ids in use and wraps around. */
	sor_ids_init(ids);
	for (i = 0; i < 10; i++)
		sor_ids_alloc(ids);
	sor_ids_free(ids, 3);
	ids->next = SOR_IDS_MAX - 1;
	KUNIT_EXPECT_EQ(test, sor_ids_alloc(ids), (int)SOR_IDS_MAX - 1);
	KUNIT_EXPECT_EQ(test, sor_ids_alloc(ids), 3);
	KUNIT_EXPECT_EQ(test, sor_ids_alloc(ids), 10);
}

static struct kunit_case sor_ids_test_cases[] = {
	KUNIT_CASE(sor_ids_test_exhaust),
	KUNIT_CASE(sor_ids_test_free),
	KUNIT_CASE(sor_ids_test_late_reuse),
	{}
};

static struct kunit_suite sor_ids_test_suite = {
	.name = "eusrv_sor_ids",
	.test_cases = sor_ids_test_cases,
};

kunit_test_suite(sor_ids_test_suite);

MODULE_DESCRIPTION("KUnit tests of the sockets-over-RDMA connection ids");
MODULE_LICENSE("GPL");
