// The compiled part of the log event encoding (timely/logging/codec.hpp): decoder errors and
// the "timely" stream's events.
#include <timely/logging/codec.hpp>

#include <string>
#include <variant>

namespace timely::logging {

void Decoder::fail(const std::string& what) const {
  throw CodecError("log event decoding: " + what + " at byte " + std::to_string(pos_) + " of " +
                   std::to_string(in_.size()));
}

void Decoder::fail_short(std::size_t n, const char* what) const {
  throw CodecError("log event decoding: " + std::string(what) + " needs " + std::to_string(n) +
                   " bytes at byte " + std::to_string(pos_) + ", but only " + std::to_string(remaining()) +
                   " of " + std::to_string(in_.size()) + " remain");
}

namespace {

// One overload per alternative, in the variant's order; the index written before the fields is
// the variant's own (std::variant::index), so the two cannot disagree.
void put_fields(Encoder& out, const OperatesEvent& e) {
  encode(out, e.id);
  encode(out, e.address);
  encode(out, e.name);
}
void put_fields(Encoder& out, const ChannelsEvent& e) {
  encode(out, e.id);
  encode(out, e.scope_address);
  encode(out, e.source);
  encode(out, e.target);
  encode(out, e.container);
}
void put_fields(Encoder& out, const PushProgressEvent& e) { encode(out, e.op_id); }
void put_fields(Encoder& out, const MessagesEvent& e) {
  encode(out, e.is_send);
  encode(out, e.channel);
  encode(out, e.source);
  encode(out, e.target);
  encode(out, e.seq_no);
  encode(out, e.record_count);
}
void put_fields(Encoder& out, const ScheduleEvent& e) {
  encode(out, e.id);
  encode(out, e.start);
}
void put_fields(Encoder& out, const ShutdownEvent& e) { encode(out, e.id); }
void put_fields(Encoder& out, const CommChannelsEvent& e) {
  encode(out, e.identifier);
  encode(out, e.kind);
}
void put_fields(Encoder& out, const ParkEvent& e) {
  encode(out, e.park);
  encode(out, e.timeout);
}
void put_fields(Encoder& out, const TextEvent& e) { encode(out, e.text); }

using Address = std::vector<std::size_t>;
using Port = std::pair<std::size_t, std::size_t>;

TimelyEvent get_alternative(Decoder& in, std::uint8_t index) {
  switch (index) {
    case 0: {
      OperatesEvent e;
      e.id = decode<std::size_t>(in);
      e.address = decode<Address>(in);
      e.name = decode<std::string>(in);
      return e;
    }
    case 1: {
      ChannelsEvent e;
      e.id = decode<std::size_t>(in);
      e.scope_address = decode<Address>(in);
      e.source = decode<Port>(in);
      e.target = decode<Port>(in);
      e.container = decode<std::string>(in);
      return e;
    }
    case 2:
      return PushProgressEvent{decode<std::size_t>(in)};
    case 3: {
      MessagesEvent e;
      e.is_send = decode<bool>(in);
      e.channel = decode<std::size_t>(in);
      e.source = decode<std::size_t>(in);
      e.target = decode<std::size_t>(in);
      e.seq_no = decode<std::size_t>(in);
      e.record_count = decode<std::size_t>(in);
      return e;
    }
    case 4: {
      ScheduleEvent e;
      e.id = decode<std::size_t>(in);
      e.start = decode<bool>(in);
      return e;
    }
    case 5:
      return ShutdownEvent{decode<std::size_t>(in)};
    case 6: {
      CommChannelsEvent e;
      e.identifier = decode<std::size_t>(in);
      e.kind = decode<CommChannelKind>(in);
      return e;
    }
    case 7: {
      ParkEvent e;
      e.park = decode<bool>(in);
      e.timeout = decode<std::optional<std::chrono::nanoseconds>>(in);
      return e;
    }
    case 8:
      return TextEvent{decode<std::string>(in)};
    default:
      break;
  }
  static_assert(std::variant_size_v<TimelyEvent> == 9, "a new TimelyEvent alternative needs its codec here");
  in.fail("a TimelyEvent alternative index of " + std::to_string(index) + " (expected 0 to 8)");
}

}  // namespace

void EventCodec<TimelyEvent>::put(Encoder& out, const TimelyEvent& event) {
  out.put_u8(static_cast<std::uint8_t>(event.index()));
  std::visit([&](const auto& e) { put_fields(out, e); }, event);
}

TimelyEvent EventCodec<TimelyEvent>::get(Decoder& in) { return get_alternative(in, in.get_u8()); }

}  // namespace timely::logging
