// pch_local.h: a user header for test/features/pch.test.
#define LOCAL_BIAS 1.0f
