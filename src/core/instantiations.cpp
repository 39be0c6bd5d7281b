// The progress machinery for the timestamps most dataflows use (std::uint64_t at the top level,
// Product<std::uint64_t, std::uint64_t> in an iterative scope), built once here: subgraph.hpp
// declares these two factories extern, so a user's file that builds a dataflow does not
// instantiate the subgraph, its tracker, the progress broadcast and the validator again.
#include <cstdint>
#include <memory>

#include <timely/progress/subgraph.hpp>
#include <timely/progress/timestamp.hpp>

namespace timely::progress {

template BuiltDataflow build_dataflow<std::uint64_t>(SubgraphBuilder<std::uint64_t>&&);
template std::unique_ptr<Operate<std::uint64_t>>
build_subgraph<std::uint64_t, Product<std::uint64_t, std::uint64_t>>(
    SubgraphBuilder<Product<std::uint64_t, std::uint64_t>>&&);

}  // namespace timely::progress
