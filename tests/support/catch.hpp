// The one place tests include Catch2 from (Debian ships v2; switching to v3 changes only this).
#pragma once
// Failure messages show tuples and pairs (most test results are vectors of tuples).
#define CATCH_CONFIG_ENABLE_TUPLE_STRINGMAKER
#define CATCH_CONFIG_ENABLE_PAIR_STRINGMAKER
#include <catch2/catch.hpp>
