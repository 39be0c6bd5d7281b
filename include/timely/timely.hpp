/// \file
/// The umbrella header for programs: everything a user needs to build and run dataflows.
/// Library code includes exactly what it uses instead.
#pragma once

#include <timely/communication/error.hpp>
#include <timely/dataflow/error.hpp>
#include <timely/error.hpp>
#include <timely/execute.hpp>
#include <timely/progress/codecs.hpp>
#include <timely/progress/error.hpp>
#include <timely/progress/frontier.hpp>
#include <timely/progress/log_codec.hpp>
#include <timely/progress/order.hpp>
#include <timely/progress/timestamp.hpp>
#include <timely/version.hpp>
#include <timely/worker.hpp>

#include <timely/dataflow/capability.hpp>
#include <timely/dataflow/notificator.hpp>
#include <timely/dataflow/operator_builder.hpp>
#include <timely/dataflow/pact.hpp>
#include <timely/dataflow/scope.hpp>
#include <timely/dataflow/stream.hpp>

#include <timely/capture/reader.hpp>
#include <timely/capture/writer.hpp>
#include <timely/dataflow/operators/aggregate.hpp>
#include <timely/dataflow/operators/batch_logger.hpp>
#include <timely/dataflow/operators/branch.hpp>
#include <timely/dataflow/operators/broadcast.hpp>
#include <timely/dataflow/operators/capture.hpp>
#include <timely/dataflow/operators/concatenate.hpp>
#include <timely/dataflow/operators/count.hpp>
#include <timely/dataflow/operators/delay.hpp>
#include <timely/dataflow/operators/enterleave.hpp>
#include <timely/dataflow/operators/exchange.hpp>
#include <timely/dataflow/operators/feedback.hpp>
#include <timely/dataflow/operators/generic.hpp>
#include <timely/dataflow/operators/input.hpp>
#include <timely/dataflow/operators/inspect.hpp>
#include <timely/dataflow/operators/map.hpp>
#include <timely/dataflow/operators/ok_err.hpp>
#include <timely/dataflow/operators/partition.hpp>
#include <timely/dataflow/operators/probe.hpp>
#include <timely/dataflow/operators/reclock.hpp>
#include <timely/dataflow/operators/state_machine.hpp>
#include <timely/dataflow/operators/to_stream.hpp>
#include <timely/dataflow/operators/unordered_input.hpp>
#include <timely/synchronization/barrier.hpp>
#include <timely/synchronization/sequencer.hpp>

namespace timely {
// The names programs use most, at the top level.
using dataflow::ActivateCapability;
using dataflow::Capability;
using dataflow::CapabilitySet;
using dataflow::Distribute;
using dataflow::Exchange;
using dataflow::FeedbackHandle;
using dataflow::FrontierNotificator;
using dataflow::InputCapability;
using dataflow::InputHandle;
using dataflow::InputHandleCore;
using dataflow::Notificator;
using dataflow::OperatorBuilder;
using dataflow::OperatorInput;
using dataflow::OperatorInputCore;
using dataflow::OperatorOutput;
using dataflow::OperatorOutputCore;
using dataflow::Pipeline;
using dataflow::ProbeHandle;
using dataflow::Scope;
using dataflow::Session;
using dataflow::SessionCore;
using dataflow::Stream;
using dataflow::StreamCore;
using dataflow::UnorderedHandle;
}  // namespace timely
