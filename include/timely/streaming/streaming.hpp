/// \file
/// Umbrella header of `timely::streaming` (for users and examples; library code includes what it
/// uses): event time (event_time.hpp), event-time sources with watermarks and late policies
/// (watermark.hpp), keyed state and timers (keyed.hpp), aggregates (aggregate.hpp), windows
/// (window.hpp) and event-time joins (join.hpp).
#pragma once

#include <timely/streaming/aggregate.hpp>
#include <timely/streaming/event_time.hpp>
#include <timely/streaming/join.hpp>
#include <timely/streaming/keyed.hpp>
#include <timely/streaming/watermark.hpp>
#include <timely/streaming/window.hpp>
