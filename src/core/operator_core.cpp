// The logic-independent part of every operator (OperatorCoreBase), compiled once for the
// timestamp most dataflows use; the header declares this instantiation extern.
#include <cstdint>

#include <timely/dataflow/operator_builder.hpp>

namespace timely::dataflow::detail {

template class OperatorCoreBase<std::uint64_t>;

}  // namespace timely::dataflow::detail
