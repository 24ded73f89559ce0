// warpmatch — umbrella header.
#pragma once
#include "warpmatch/common.hpp"
#include "warpmatch/cost_model.hpp"
#include "warpmatch/exact.hpp"
#include "warpmatch/approx.hpp"
#include "warpmatch/distance.hpp"
#include "warpmatch/lcs.hpp"
#include "warpmatch/multi.hpp"
