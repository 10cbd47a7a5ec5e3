// The Catch2 entry point of store_tests. Catch's own SIGSEGV/SIGBUS handlers, set and reset
// around every test case, would replace the page fault guard's (page_fault_guard_test.cpp).
#define CATCH_CONFIG_MAIN
#define CATCH_CONFIG_NO_POSIX_SIGNALS
#include <catch2/catch.hpp>
