// The simulated file system (timely/durable/simulated_file_system.hpp): a tree of directories
// and files in memory, each with current and durable contents, the changes since their last
// sync kept in order so that a crash can keep a prefix of them.
#include <timely/durable/simulated_file_system.hpp>

#include <algorithm>
#include <array>
#include <map>
#include <mutex>
#include <random>
#include <variant>

#include <timely/durable/error.hpp>

namespace timely::durable {

namespace {

struct Inode {
  struct Change {
    bool truncate = false;  // else a write
    std::uint64_t position = 0;
    std::vector<std::byte> bytes;
  };
  std::vector<std::byte> data;
  std::vector<std::byte> durable;
  std::vector<Change> pending;

  static void apply(std::vector<std::byte>& to, const Change& c) {
    if (c.truncate) {
      to.resize(c.position);
      return;
    }
    if (to.size() < c.position + c.bytes.size()) to.resize(c.position + c.bytes.size());
    std::copy(c.bytes.begin(), c.bytes.end(), to.begin() + static_cast<std::ptrdiff_t>(c.position));
  }
};

struct Dir;
using Node = std::variant<std::shared_ptr<Inode>, std::shared_ptr<Dir>>;

struct Dir {
  struct Change {
    enum class Kind { set, erase, rename } kind = Kind::set;
    std::string name;
    std::string to;
    Node node;
  };
  std::map<std::string, Node> entries;
  std::map<std::string, Node> durable;
  std::vector<Change> pending;

  static void apply(std::map<std::string, Node>& to, const Change& c) {
    switch (c.kind) {
      case Change::Kind::set:
        to[c.name] = c.node;
        break;
      case Change::Kind::erase:
        to.erase(c.name);
        break;
      case Change::Kind::rename: {
        auto it = to.find(c.name);
        if (it == to.end()) break;
        Node node = it->second;
        to.erase(it);
        to[c.to] = node;
        break;
      }
    }
  }
  void change(Change c) {
    apply(entries, c);
    pending.push_back(std::move(c));
  }
};

constexpr std::size_t kOperations = 12;

}  // namespace

struct SimulatedFileSystem::State {
  std::mutex mutex;
  std::shared_ptr<Dir> root = std::make_shared<Dir>();
  std::uint64_t epoch = 0;
  std::vector<Fault> faults;
  std::array<std::uint64_t, kOperations> calls{};
  struct Held {
    std::string holder;
    std::uint64_t id;
  };
  std::map<std::string, Held> locks;
  std::uint64_t next_lock = 0;

  // Counts a call and throws the fault it meets, if any; returns the fault for a partial write.
  std::optional<Fault> enter(Operation op, const std::filesystem::path& path) {
    ++calls[static_cast<std::size_t>(op)];
    const std::string text = path.string();
    for (auto it = faults.begin(); it != faults.end(); ++it) {
      if (it->operation != op) continue;
      if (!it->path_contains.empty() && text.find(it->path_contains) == std::string::npos) continue;
      if (it->skip > 0) {
        --it->skip;
        continue;
      }
      Fault hit = *it;
      if (!hit.persistent) faults.erase(it);
      return hit;
    }
    return std::nullopt;
  }

  static std::vector<std::string> components(const std::filesystem::path& path) {
    const auto normal = path.lexically_normal();
    if (!normal.is_absolute())
      throw IoError(path, std::nullopt, "resolve (the simulated file system takes absolute paths)", EINVAL);
    std::vector<std::string> parts;
    for (const auto& part : normal.relative_path())
      if (!part.empty() && part != ".") parts.push_back(part.string());
    return parts;
  }

  // The directory holding `path`'s last component, and that component.
  std::pair<std::shared_ptr<Dir>, std::string> parent(const std::filesystem::path& path,
                                                      const char* operation) {
    const auto parts = components(path);
    if (parts.empty()) throw IoError(path, std::nullopt, operation, EINVAL);
    std::shared_ptr<Dir> dir = root;
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
      auto it = dir->entries.find(parts[i]);
      if (it == dir->entries.end()) throw IoError(path, std::nullopt, operation, ENOENT);
      auto* next = std::get_if<std::shared_ptr<Dir>>(&it->second);
      if (next == nullptr) throw IoError(path, std::nullopt, operation, ENOTDIR);
      dir = *next;
    }
    return {dir, parts.back()};
  }

  std::optional<Node> find(const std::filesystem::path& path) {
    const auto parts = components(path);
    Node node = root;
    for (const auto& part : parts) {
      auto* dir = std::get_if<std::shared_ptr<Dir>>(&node);
      if (dir == nullptr) return std::nullopt;
      auto it = (*dir)->entries.find(part);
      if (it == (*dir)->entries.end()) return std::nullopt;
      node = it->second;
    }
    return node;
  }

  std::shared_ptr<Inode> file(const std::filesystem::path& path, const char* operation) {
    auto node = find(path);
    if (!node) throw IoError(path, std::nullopt, operation, ENOENT);
    auto* inode = std::get_if<std::shared_ptr<Inode>>(&*node);
    if (inode == nullptr) throw IoError(path, std::nullopt, operation, EISDIR);
    return *inode;
  }

  std::shared_ptr<Dir> directory(const std::filesystem::path& path, const char* operation) {
    auto node = find(path);
    if (!node) throw IoError(path, std::nullopt, operation, ENOENT);
    auto* dir = std::get_if<std::shared_ptr<Dir>>(&*node);
    if (dir == nullptr) throw IoError(path, std::nullopt, operation, ENOTDIR);
    return *dir;
  }

  // A power loss: every directory and file reverts to its durable state, after replaying a
  // random prefix of its changes if `rng` is given.
  void restore(Dir& dir, std::mt19937_64* rng) {
    if (rng != nullptr && !dir.pending.empty()) {
      const auto keep = std::uniform_int_distribution<std::size_t>(0, dir.pending.size())(*rng);
      for (std::size_t i = 0; i < keep; ++i) Dir::apply(dir.durable, dir.pending[i]);
    }
    dir.pending.clear();
    dir.entries = dir.durable;
    for (auto& [name, node] : dir.entries) {
      if (auto* sub = std::get_if<std::shared_ptr<Dir>>(&node)) {
        restore(**sub, rng);
      } else {
        restore(*std::get<std::shared_ptr<Inode>>(node), rng);
      }
    }
  }

  static void restore(Inode& inode, std::mt19937_64* rng) {
    if (rng != nullptr && !inode.pending.empty()) {
      const auto keep = std::uniform_int_distribution<std::size_t>(0, inode.pending.size())(*rng);
      for (std::size_t i = 0; i < keep; ++i) Inode::apply(inode.durable, inode.pending[i]);
      if (keep < inode.pending.size() && !inode.pending[keep].truncate &&
          !inode.pending[keep].bytes.empty()) {
        Inode::Change torn = inode.pending[keep];
        const auto length = std::uniform_int_distribution<std::size_t>(0, torn.bytes.size() - 1)(*rng);
        torn.bytes.resize(length);
        if ((*rng)() % 2 == 0) std::fill(torn.bytes.begin(), torn.bytes.end(), std::byte{0});
        Inode::apply(inode.durable, torn);
      }
    }
    inode.pending.clear();
    inode.data = inode.durable;
  }

  void crash(std::mt19937_64* rng) {
    restore(*root, rng);
    ++epoch;
    locks.clear();
  }
};

namespace {

using Operation = SimulatedFileSystem::Operation;
using State = SimulatedFileSystem::State;

[[noreturn]] void raise(const std::filesystem::path& path, std::optional<std::uint64_t> at,
                        const char* operation, int error) {
  throw IoError(path, at, operation, error);
}

class SimulatedFile final : public File {
 public:
  SimulatedFile(std::shared_ptr<State> state, std::shared_ptr<Inode> inode, std::filesystem::path path,
                bool writable)
      : state_(std::move(state)),
        inode_(std::move(inode)),
        path_(std::move(path)),
        epoch_(state_->epoch),
        writable_(writable) {}

  std::size_t read_at(std::uint64_t position, std::span<std::byte> out) override {
    std::lock_guard lock(state_->mutex);
    enter(Operation::read, position, "read");
    const auto& data = inode_->data;
    if (position >= data.size()) return 0;
    const std::size_t n = std::min<std::uint64_t>(out.size(), data.size() - position);
    std::copy_n(data.begin() + static_cast<std::ptrdiff_t>(position), n, out.begin());
    return n;
  }

  void write_at(std::uint64_t position, std::span<const std::byte> bytes) override {
    std::lock_guard lock(state_->mutex);
    if (!writable_) {
      ++state_->calls[static_cast<std::size_t>(Operation::write)];
      raise(path_, position, "write", EBADF);
    }
    if (auto fault = enter(Operation::write, position, "write")) {
      const std::size_t partial = bytes.empty() ? 0 : std::min(fault->partial_bytes, bytes.size() - 1);
      if (partial > 0) write(position, bytes.first(partial));
      raise(path_, position + partial, "write", fault->error);
    }
    write(position, bytes);
  }

  std::uint64_t size() override {
    std::lock_guard lock(state_->mutex);
    enter(Operation::size, std::nullopt, "fstat");
    return inode_->data.size();
  }

  void truncate(std::uint64_t size) override {
    std::lock_guard lock(state_->mutex);
    enter(Operation::truncate, size, "ftruncate");
    if (!writable_) raise(path_, size, "ftruncate", EBADF);
    Inode::Change c;
    c.truncate = true;
    c.position = size;
    Inode::apply(inode_->data, c);
    inode_->pending.push_back(std::move(c));
  }

  void sync() override {
    std::lock_guard lock(state_->mutex);
    enter(Operation::sync, std::nullopt, "fdatasync");
    inode_->durable = inode_->data;
    inode_->pending.clear();
  }

  [[nodiscard]] const std::filesystem::path& path() const noexcept override { return path_; }

 private:
  // Counts the call; throws for a handle from before a crash, and for a fault met by any
  // operation but a write (which stores its partial bytes first, so it gets the fault back).
  std::optional<SimulatedFileSystem::Fault> enter(Operation op, std::optional<std::uint64_t> at,
                                                  const char* operation) {
    if (epoch_ != state_->epoch) {
      ++state_->calls[static_cast<std::size_t>(op)];
      raise(path_, at, (std::string(operation) + " (on a file opened before the simulated crash)").c_str(),
            EIO);
    }
    auto fault = state_->enter(op, path_);
    if (fault && op != Operation::write) raise(path_, at, operation, fault->error);
    return fault;
  }

  void write(std::uint64_t position, std::span<const std::byte> bytes) {
    Inode::Change c;
    c.position = position;
    c.bytes.assign(bytes.begin(), bytes.end());
    Inode::apply(inode_->data, c);
    inode_->pending.push_back(std::move(c));
  }

  std::shared_ptr<State> state_;
  std::shared_ptr<Inode> inode_;
  std::filesystem::path path_;
  std::uint64_t epoch_;
  bool writable_;
};

class SimulatedLock final : public FileLock {
 public:
  SimulatedLock(std::shared_ptr<State> state, std::string path, std::uint64_t id)
      : state_(std::move(state)), path_(std::move(path)), id_(id) {}
  ~SimulatedLock() override {
    std::lock_guard lock(state_->mutex);
    auto it = state_->locks.find(path_);
    if (it != state_->locks.end() && it->second.id == id_) state_->locks.erase(it);
  }

 private:
  std::shared_ptr<State> state_;
  std::string path_;
  std::uint64_t id_;
};

}  // namespace

SimulatedFileSystem::SimulatedFileSystem() : state_(std::make_shared<State>()) {}

std::unique_ptr<File> SimulatedFileSystem::open(const std::filesystem::path& path, OpenMode mode) {
  std::lock_guard lock(state_->mutex);
  if (auto fault = state_->enter(Operation::open, path)) raise(path, std::nullopt, "open", fault->error);
  auto [dir, name] = state_->parent(path, "open");
  auto it = dir->entries.find(name);
  std::shared_ptr<Inode> inode;
  if (it == dir->entries.end()) {
    if (mode != OpenMode::create) raise(path, std::nullopt, "open", ENOENT);
    inode = std::make_shared<Inode>();
    dir->change({Dir::Change::Kind::set, name, {}, inode});
  } else {
    auto* existing = std::get_if<std::shared_ptr<Inode>>(&it->second);
    if (existing == nullptr) raise(path, std::nullopt, "open", EISDIR);
    inode = *existing;
  }
  return std::make_unique<SimulatedFile>(state_, inode, path, mode != OpenMode::read);
}

bool SimulatedFileSystem::exists(const std::filesystem::path& path) {
  std::lock_guard lock(state_->mutex);
  return state_->find(path).has_value();
}

bool SimulatedFileSystem::is_directory(const std::filesystem::path& path) {
  std::lock_guard lock(state_->mutex);
  auto node = state_->find(path);
  return node && std::holds_alternative<std::shared_ptr<Dir>>(*node);
}

std::vector<std::string> SimulatedFileSystem::list(const std::filesystem::path& dir) {
  std::lock_guard lock(state_->mutex);
  if (auto fault = state_->enter(Operation::list, dir)) raise(dir, std::nullopt, "opendir", fault->error);
  auto d = state_->directory(dir, "opendir");
  std::vector<std::string> names;
  for (const auto& [name, node] : d->entries) names.push_back(name);
  return names;
}

void SimulatedFileSystem::create_directory(const std::filesystem::path& dir) {
  std::lock_guard lock(state_->mutex);
  if (auto fault = state_->enter(Operation::create_directory, dir))
    raise(dir, std::nullopt, "mkdir", fault->error);
  auto [parent, name] = state_->parent(dir, "mkdir");
  auto it = parent->entries.find(name);
  if (it != parent->entries.end()) {
    if (std::holds_alternative<std::shared_ptr<Dir>>(it->second)) return;
    raise(dir, std::nullopt, "mkdir", EEXIST);
  }
  parent->change({Dir::Change::Kind::set, name, {}, std::make_shared<Dir>()});
}

void SimulatedFileSystem::rename(const std::filesystem::path& from, const std::filesystem::path& to) {
  std::lock_guard lock(state_->mutex);
  const std::string operation = "rename from '" + from.string() + "'";
  if (auto fault = state_->enter(Operation::rename, to))
    raise(to, std::nullopt, operation.c_str(), fault->error);
  auto [from_dir, from_name] = state_->parent(from, operation.c_str());
  auto [to_dir, to_name] = state_->parent(to, operation.c_str());
  if (from_dir != to_dir) raise(to, std::nullopt, operation.c_str(), EXDEV);
  if (from_dir->entries.count(from_name) == 0) raise(from, std::nullopt, "rename", ENOENT);
  from_dir->change({Dir::Change::Kind::rename, from_name, to_name, {}});
}

bool SimulatedFileSystem::remove(const std::filesystem::path& path) {
  std::lock_guard lock(state_->mutex);
  if (auto fault = state_->enter(Operation::remove, path)) raise(path, std::nullopt, "unlink", fault->error);
  auto [dir, name] = state_->parent(path, "unlink");
  auto it = dir->entries.find(name);
  if (it == dir->entries.end()) return false;
  if (std::holds_alternative<std::shared_ptr<Dir>>(it->second)) raise(path, std::nullopt, "unlink", EISDIR);
  dir->change({Dir::Change::Kind::erase, name, {}, {}});
  return true;
}

void SimulatedFileSystem::sync_directory(const std::filesystem::path& dir) {
  std::lock_guard lock(state_->mutex);
  if (auto fault = state_->enter(Operation::sync_directory, dir))
    raise(dir, std::nullopt, "fsync of the directory", fault->error);
  auto d = state_->directory(dir, "fsync of the directory");
  d->durable = d->entries;
  d->pending.clear();
}

std::unique_ptr<FileLock> SimulatedFileSystem::try_lock(const std::filesystem::path& path,
                                                        const std::string& holder,
                                                        std::string& current_holder) {
  std::lock_guard lock(state_->mutex);
  if (auto fault = state_->enter(Operation::lock, path)) raise(path, std::nullopt, "flock", fault->error);
  const std::string key = path.lexically_normal().string();
  auto it = state_->locks.find(key);
  if (it != state_->locks.end()) {
    current_holder = it->second.holder;
    return nullptr;
  }
  auto [dir, name] = state_->parent(path, "open");
  if (dir->entries.count(name) == 0)
    dir->change({Dir::Change::Kind::set, name, {}, std::make_shared<Inode>()});
  const std::uint64_t id = state_->next_lock++;
  state_->locks[key] = {holder, id};
  return std::make_unique<SimulatedLock>(state_, key, id);
}

std::unique_ptr<DirectoryWatch> SimulatedFileSystem::watch(const std::filesystem::path&) { return nullptr; }

void SimulatedFileSystem::inject(const Fault& fault) {
  std::lock_guard lock(state_->mutex);
  state_->faults.push_back(fault);
}

void SimulatedFileSystem::clear_faults() {
  std::lock_guard lock(state_->mutex);
  state_->faults.clear();
}

void SimulatedFileSystem::crash_process() {
  std::lock_guard lock(state_->mutex);
  ++state_->epoch;
  state_->locks.clear();
}

void SimulatedFileSystem::crash() {
  std::lock_guard lock(state_->mutex);
  state_->crash(nullptr);
}

void SimulatedFileSystem::crash(std::uint64_t seed) {
  std::lock_guard lock(state_->mutex);
  std::mt19937_64 rng(seed);
  state_->crash(&rng);
}

void SimulatedFileSystem::flip_bit(const std::filesystem::path& path, std::uint64_t byte, unsigned bit) {
  std::lock_guard lock(state_->mutex);
  auto inode = state_->file(path, "flip a bit");
  if (byte >= inode->data.size() || bit > 7) raise(path, byte, "flip a bit", EINVAL);
  const auto mask = static_cast<std::byte>(1u << bit);
  inode->data[byte] ^= mask;
  if (byte < inode->durable.size()) inode->durable[byte] ^= mask;
  for (auto& change : inode->pending)
    if (!change.truncate && byte >= change.position && byte < change.position + change.bytes.size())
      change.bytes[byte - change.position] ^= mask;
}

std::vector<std::byte> SimulatedFileSystem::read_file(const std::filesystem::path& path) const {
  std::lock_guard lock(state_->mutex);
  return state_->file(path, "read")->data;
}

void SimulatedFileSystem::write_file(const std::filesystem::path& path, const std::vector<std::byte>& bytes) {
  std::lock_guard lock(state_->mutex);
  auto [dir, name] = state_->parent(path, "write");
  auto it = dir->entries.find(name);
  std::shared_ptr<Inode> inode;
  if (it == dir->entries.end()) {
    inode = std::make_shared<Inode>();
    dir->entries[name] = inode;
    dir->durable[name] = inode;
  } else {
    auto* existing = std::get_if<std::shared_ptr<Inode>>(&it->second);
    if (existing == nullptr) raise(path, std::nullopt, "write", EISDIR);
    inode = *existing;
  }
  inode->data = bytes;
  inode->durable = bytes;
  inode->pending.clear();
}

std::uint64_t SimulatedFileSystem::calls(Operation operation) const {
  std::lock_guard lock(state_->mutex);
  return state_->calls[static_cast<std::size_t>(operation)];
}

}  // namespace timely::durable
