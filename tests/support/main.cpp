// The Catch2 main for every test binary.
#define CATCH_CONFIG_MAIN
#include "support/catch.hpp"
