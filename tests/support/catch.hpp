// The one place tests include Catch2 from (Debian ships v2; switching to v3 changes only this).
#pragma once
#include <catch2/catch.hpp>
