// warpmatch — umbrella header.
#pragma once
#include "warpmatch/common.hpp"
#include "warpmatch/exact.hpp"
