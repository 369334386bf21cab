//===- PodEngine.cpp - A pod running its share of a job -------------------===//
//
// Why this file is long: a pod's run of its share is one state machine
// (JobRun::State: segments received, instructions started as their
// dependencies complete, fetches from storage and peers, reports, a lost
// node's work dropped), whose handlers share its state under one lock; the
// backends that run the leaves are in files of their own.
//
//===----------------------------------------------------------------------===//

#include "Phobos/ClusterRuntime/PodEngine.h"

#include "Phobos/ClusterRuntime/Log.h"
#include "Phobos/ClusterRuntime/TensorStorage.h"
#include "Phobos/ClusterRuntime/TileBufferPool.h"
#include "phobos_cluster.grpc.pb.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <deque>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <thread>
#include <unistd.h>
#include <unordered_map>

using namespace phobos;
using namespace phobos::cluster::runtime;
namespace wire = phobos::cluster::wire;

std::string phobos::cluster::runtime::hostIdentifier() {
  std::string text;
  for (const char *path : {"/etc/machine-id", "/var/lib/dbus/machine-id",
                           "/proc/sys/kernel/random/boot_id"}) {
    std::ifstream in(path);
    std::string line;
    if (in && std::getline(in, line))
      text += line;
  }
  if (text.empty()) {
    char name[256] = {0};
    ::gethostname(name, sizeof name - 1);
    text = name;
  }
  return absl::StrFormat("%016x", storage::checksum(text.data(), text.size()));
}

namespace {
using Ref = std::pair<uint32_t, size_t>; // (segment, index in the segment)

std::string kindName(wire::Instruction::Kind kind) {
  switch (kind) {
  case wire::Instruction::ALLOCATE: return "allocate";
  case wire::Instruction::LOAD: return "load";
  case wire::Instruction::FETCH: return "fetch";
  case wire::Instruction::COMPUTE: return "compute";
  case wire::Instruction::STORE: return "store";
  case wire::Instruction::FREE: return "free";
  default: return "instruction";
  }
}

absl::Status fromGrpc(const grpc::Status &status) {
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                      status.error_message());
}

const char *codeName(absl::StatusCode code) {
  switch (code) {
  case absl::StatusCode::kCancelled: return "CANCELLED";
  case absl::StatusCode::kUnavailable: return "UNAVAILABLE";
  case absl::StatusCode::kUnauthenticated: return "UNAUTHENTICATED";
  case absl::StatusCode::kPermissionDenied: return "PERMISSION_DENIED";
  case absl::StatusCode::kNotFound: return "NOT_FOUND";
  case absl::StatusCode::kDataLoss: return "DATA_LOSS";
  case absl::StatusCode::kAborted: return "ABORTED";
  case absl::StatusCode::kDeadlineExceeded: return "DEADLINE_EXCEEDED";
  case absl::StatusCode::kFailedPrecondition:
    return "FAILED_PRECONDITION";
  default: return "ERROR";
  }
}

/// `UNAVAILABLE: ...`, with what a TLS failure in it means.
absl::Status describeCallFailure(const grpc::Status &finished) {
  absl::Status status = fromGrpc(finished);
  std::string tls = explainTlsFailure(finished.error_message());
  return absl::Status(
      status.code(),
      tls.empty()
          ? absl::StrCat(codeName(status.code()), ": ", finished.error_message())
          : absl::StrCat("TLS handshake failed: ", tls, " (",
                         codeName(status.code()), ": ",
                         finished.error_message(), ")"));
}
} // namespace

struct JobRun::State {
  State(Backend &backend, const Credentials &credentials,
        const wire::StartJob &job, EngineOptions options,
        std::function<void(const wire::JobFailure &)> onFailure,
        std::function<void()> onSettled)
      : backend(backend), credentials(credentials), spec(job),
        options(std::move(options)), onFailure(std::move(onFailure)),
        onSettled(std::move(onSettled)), who(absl::StrCat(this->options.logName, " (",
                         this->options.rank >= 0
                             ? absl::StrCat("rank ", this->options.rank, ", ")
                             : std::string(),
                         "node ", job.node(), ")")) {}

  struct Instr {
    const wire::Instruction *spec = nullptr;
    int pending = 0;
    std::vector<size_t> dependents;
    enum class Phase { Waiting, Queued, Running, Parked, Done } phase =
        Phase::Waiting;
    /// When it began running, in nanoseconds since the job started here
    /// (-1: not yet).
    int64_t startNs = -1;
    /// An allocation's pooled buffer, taken when the budget let it start.
    std::unique_ptr<TileBuffer> reserved;
  };

  struct Segment {
    wire::Segment spec;
    std::vector<Instr> instrs;
    std::unordered_map<uint64_t, size_t> byId;
    std::map<uint32_t, const wire::TileSpec *> tiles;
    std::map<uint32_t, std::unique_ptr<TileBuffer>> buffers;
    /// Allocations ready to run, in program order.
    std::deque<size_t> allocations;
    int64_t resident = 0;
    std::optional<absl::Time> stalledSince;
    bool forceNext = false;
    size_t remaining = 0;
  };

  /// A tile this pod holds for others (segment 0).
  struct Held {
    TileBuffer *buffer = nullptr;
    bool loaded = false;
    bool freed = false;
    std::set<uint32_t> expected, finished;
    int readers = 0;
    std::optional<Ref> parkedFree;
  };

  // Set up once.
  Backend &backend;
  const Credentials &credentials;
  wire::StartJob spec;
  EngineOptions options;
  std::function<void(const wire::JobFailure &)> onFailure;
  std::function<void()> onSettled;
  std::string who;

  absl::Mutex mu;
  absl::CondVar changed;
  bool stopping = false;
  bool failed = false;
  std::map<uint32_t, std::unique_ptr<Segment>> segments;
  std::set<Ref> ioReady, computeReady;
  std::vector<std::thread> workers;
  std::vector<std::thread> fetchers;
  std::map<uint32_t, Held> held;
  std::set<uint32_t> lostNodes;
  std::map<uint32_t, std::shared_ptr<grpc::Channel>> channels;
  std::multimap<uint32_t, grpc::ClientContext *> activeFetches;
  std::vector<wire::Retired> retired;
  wire::NodeStats stats;
  /// The job's start on this pod, on a steady clock: each retired
  /// instruction's start and end are measured from it (the measured
  /// timeline of the job's summary).
  const std::chrono::steady_clock::time_point jobStart =
      std::chrono::steady_clock::now();

  int64_t sinceJobStartNs() const {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now() - jobStart)
        .count();
  }
  int64_t totalInstrs = 0, retiredCount = 0;
  /// Frees parked until their tile's fetchers are served.
  int64_t parkedFrees = 0;
  /// Freed buffers for later tiles of their sizes (where the backend
  /// reuses them), within poolLimit() together with the resident tiles.
  TileBufferPool pool;

  //===--------------------------------------------------------------------===//
  // Scheduling (mu held)
  //===--------------------------------------------------------------------===//

  Segment &segment(uint32_t id) { return *segments.at(id); }
  Instr &instr(Ref ref) { return segment(ref.first).instrs[ref.second]; }
  const wire::TileSpec &tileOf(Ref ref) {
    Segment &seg = segment(ref.first);
    return *seg.tiles.at(seg.instrs[ref.second].spec->tile());
  }
  std::string label(Ref ref) {
    const wire::Instruction &instruction = *instr(ref).spec;
    std::string text = absl::StrCat("#", instruction.id());
    if (ref.first)
      absl::StrAppend(&text, " (segment ", ref.first, ")");
    absl::StrAppend(&text, " ", kindName(instruction.kind()));
    if (instruction.kind() != wire::Instruction::COMPUTE) {
      auto tile = segment(ref.first).tiles.find(instruction.tile());
      if (tile != segment(ref.first).tiles.end())
        absl::StrAppend(&text, " ", tile->second->label());
    } else if (instruction.leaf() < static_cast<uint32_t>(spec.leaves_size())) {
      absl::StrAppend(&text, " ", spec.leaves(instruction.leaf()).name());
    }
    return text;
  }

  absl::Status addSegmentLocked(const wire::Segment &given) {
    if (segments.count(given.id()))
      return absl::AlreadyExistsError(
          absl::StrCat("segment ", given.id(), " was already given"));
    auto seg = std::make_unique<Segment>();
    seg->spec = given;
    for (const wire::TileSpec &tile : seg->spec.tiles()) {
      if (tile.tensor() >= static_cast<uint32_t>(spec.tensors_size()))
        return absl::InvalidArgumentError(absl::StrCat(
            "tile ", tile.label(), " names tensor #", tile.tensor()));
      seg->tiles[tile.id()] = &tile;
    }
    seg->instrs.resize(seg->spec.instructions_size());
    for (int i = 0; i < seg->spec.instructions_size(); ++i) {
      const wire::Instruction &instruction = seg->spec.instructions(i);
      seg->instrs[i].spec = &instruction;
      if (!seg->byId.emplace(instruction.id(), i).second)
        return absl::InvalidArgumentError(absl::StrCat(
            "instruction #", instruction.id(), " appears twice"));
      if (instruction.kind() != wire::Instruction::COMPUTE &&
          !seg->tiles.count(instruction.tile()))
        return absl::InvalidArgumentError(absl::StrCat(
            "instruction #", instruction.id(), " names an unknown tile"));
      if (instruction.kind() == wire::Instruction::COMPUTE) {
        if (instruction.leaf() >= static_cast<uint32_t>(spec.leaves_size()))
          return absl::InvalidArgumentError(absl::StrCat(
              "instruction #", instruction.id(), " names an unknown leaf"));
        for (uint32_t tile : instruction.tiles())
          if (!seg->tiles.count(tile))
            return absl::InvalidArgumentError(absl::StrCat(
                "instruction #", instruction.id(), " names an unknown tile"));
        for (uint32_t scalar : instruction.scalars())
          if (scalar >= static_cast<uint32_t>(spec.scalars_size()))
            return absl::InvalidArgumentError(absl::StrCat(
                "instruction #", instruction.id(), " names an unknown scalar"));
      }
    }
    for (size_t i = 0; i < seg->instrs.size(); ++i)
      for (uint64_t dep : seg->instrs[i].spec->deps()) {
        auto found = seg->byId.find(dep);
        if (found == seg->byId.end() || found->second >= i)
          return absl::InvalidArgumentError(absl::StrCat(
              "instruction #", seg->instrs[i].spec->id(),
              " depends on #", dep, ", which does not come before it"));
        seg->instrs[found->second].dependents.push_back(i);
        seg->instrs[i].pending++;
      }
    seg->remaining = seg->instrs.size();
    totalInstrs += static_cast<int64_t>(seg->instrs.size());
    uint32_t id = given.id();
    segments[id] = std::move(seg);
    Segment &added = segment(id);
    for (size_t i = 0; i < added.instrs.size(); ++i)
      if (added.instrs[i].pending == 0)
        dispatch({id, i});
    changed.SignalAll();
    return absl::OkStatus();
  }

  void dispatch(Ref ref) {
    if (stopping)
      return;
    Instr &in = instr(ref);
    in.phase = Instr::Phase::Queued;
    switch (in.spec->kind()) {
    case wire::Instruction::ALLOCATE:
      segment(ref.first).allocations.push_back(ref.second);
      pumpAllocations(ref.first);
      break;
    case wire::Instruction::COMPUTE:
      computeReady.insert(ref);
      break;
    case wire::Instruction::FETCH:
      in.phase = Instr::Phase::Running;
      in.startNs = sinceJobStartNs();
      fetchers.emplace_back([this, ref] { runFetch(ref); });
      break;
    default:
      ioReady.insert(ref);
      break;
    }
    changed.SignalAll();
  }

  int64_t residentBytes() const {
    int64_t resident = 0;
    for (auto &entry : segments)
      resident += entry.second->resident;
    return resident;
  }

  /// The most bytes the pod holds in tiles and pooled buffers together:
  /// its budget, or without one the most its tiles have taken at once (so
  /// the pool never makes a pod hold more than its tiles' peak).
  int64_t poolLimit() const {
    return options.memoryBudget > 0 ? options.memoryBudget : stats.peak_bytes();
  }

  /// Starts the segment's next allocations, in program order, while they
  /// fit the pod's memory budget (when it has one).
  void pumpAllocations(uint32_t id) {
    Segment &seg = segment(id);
    while (!seg.allocations.empty()) {
      size_t index = seg.allocations.front();
      int64_t bytes = seg.tiles.at(seg.instrs[index].spec->tile())->bytes();
      if (options.memoryBudget > 0 &&
          residentBytes() + bytes > options.memoryBudget && !seg.forceNext) {
        if (!seg.stalledSince)
          seg.stalledSince = absl::Now();
        return;
      }
      seg.forceNext = false;
      seg.stalledSince.reset();
      seg.allocations.pop_front();
      seg.resident += bytes;
      // Its bytes count as resident from now: the pool must not count them
      // again until the I/O thread takes them.
      if (backend.reusesTileBuffers())
        seg.instrs[index].reserved = pool.take(bytes);
      ioReady.insert({id, index});
      int64_t resident = residentBytes();
      stats.set_resident_bytes(resident);
      stats.set_peak_bytes(std::max(stats.peak_bytes(), resident));
    }
  }

  bool servesDone(const Held &tile) const {
    if (tile.readers > 0)
      return false;
    for (uint32_t node : tile.expected)
      if (!tile.finished.count(node) && !lostNodes.count(node))
        return false;
    return true;
  }

  /// Releases a parked free whose tile has now been served.
  void checkParked(uint32_t tile) {
    Held &entry = held[tile];
    if (entry.parkedFree && servesDone(entry)) {
      Ref ref = *entry.parkedFree;
      entry.parkedFree.reset();
      --parkedFrees;
      instr(ref).phase = Instr::Phase::Queued;
      ioReady.insert(ref);
      changed.SignalAll();
    }
  }

  /// Reports the share's end once nothing given so far is left for this pod
  /// to run on its own: every instruction has retired or is a free parked
  /// for its tile's fetchers. Such a free may wait until the job ends: a
  /// fetcher that cannot reach this pod (a TLS handshake that times out
  /// under load, a pod not yet given the job) loads the tile from storage
  /// instead and never comes, and the share's stores must not wait for the
  /// next heartbeat on it.
  void checkSettled() {
    if (retiredCount + parkedFrees == totalInstrs && onSettled)
      onSettled();
  }

  /// Records the end of an instruction. Returns a failure to report.
  /// `storedChecksum`: a store's checksum of the bytes it wrote.
  std::optional<wire::JobFailure>
  complete(Ref ref, const absl::Status &status,
           std::optional<uint64_t> storedChecksum = std::nullopt) {
    Instr &in = instr(ref);
    if (!status.ok()) {
      if (stopping)
        return std::nullopt;
      failed = true;
      stopping = true;
      changed.SignalAll();
      wire::JobFailure failure;
      failure.set_job_id(spec.job_id());
      failure.set_segment(ref.first);
      failure.set_instruction(in.spec->id());
      failure.set_message(
          absl::StrCat(label(ref), " failed: ", status.message()));
      logLine(who, failure.message());
      return failure;
    }
    in.phase = Instr::Phase::Done;
    wire::Retired done;
    done.set_segment(ref.first);
    done.set_instruction(in.spec->id());
    if (storedChecksum)
      done.set_checksum(*storedChecksum);
    if (in.startNs >= 0) {
      done.set_start_ns(in.startNs);
      done.set_end_ns(sinceJobStartNs());
    }
    retired.push_back(done);
    ++retiredCount;
    checkSettled();
    Segment &seg = segment(ref.first);
    --seg.remaining;
    for (size_t next : in.dependents)
      if (--seg.instrs[next].pending == 0)
        dispatch({ref.first, next});
    changed.SignalAll();
    return std::nullopt;
  }

  void report(std::optional<wire::JobFailure> failure) {
    if (failure && onFailure)
      onFailure(*failure);
  }

  //===--------------------------------------------------------------------===//
  // Work (mu not held)
  //===--------------------------------------------------------------------===//

  storage::TensorInfo layoutOf(const wire::TensorSpec &tensor, bool forStore) {
    storage::TensorInfo info;
    info.element =
        parseElementType(tensor.element()).value_or(ElementType::F32);
    info.shape.assign(tensor.shape().begin(), tensor.shape().end());
    info.dataOffset = forStore ? tensor.store_offset() : tensor.load_offset();
    return info;
  }

  std::vector<int64_t> offsetsOf(const wire::TileSpec &tile) {
    return {tile.offsets().begin(), tile.offsets().end()};
  }
  std::vector<int64_t> shapeOf(const wire::TileSpec &tile) {
    return {tile.shape().begin(), tile.shape().end()};
  }

  /// Reads a super-tile from its tensor file into `buffer`.
  absl::Status loadTile(const wire::TileSpec &tile, TileBuffer &buffer) {
    const wire::TensorSpec &tensor = spec.tensors(tile.tensor());
    if (tensor.load_path().empty())
      return absl::FailedPreconditionError(absl::StrCat(
          "tensor '", tensor.name(), "' has no file to load from"));
    absl::StatusOr<storage::TensorFile> file = storage::TensorFile::open(
        tensor.load_path(), layoutOf(tensor, false), /*writable=*/false);
    if (!file.ok())
      return file.status();
    if (void *host = buffer.host())
      return file->readRegion(offsetsOf(tile), shapeOf(tile), host);
    absl::StatusOr<std::unique_ptr<Staging>> staging =
        backend.staging(tile.bytes());
    if (!staging.ok())
      return staging.status();
    if (absl::Status status =
            file->readRegion(offsetsOf(tile), shapeOf(tile), (*staging)->data());
        !status.ok())
      return status;
    return backend.upload(buffer, (*staging)->data(), tile.bytes());
  }

  /// Writes the tile to its place in the output; `written` is the checksum
  /// of its bytes, which the scheduler journals for a resumed run.
  absl::Status storeTile(const wire::TileSpec &tile, TileBuffer &buffer,
                         uint64_t &written) {
    const wire::TensorSpec &tensor = spec.tensors(tile.tensor());
    if (tensor.store_path().empty())
      return absl::FailedPreconditionError(absl::StrCat(
          "tensor '", tensor.name(), "' has no file to store to"));
    // Opened per store, and closed right after: what another machine reads
    // of a shared file system after the job is then complete.
    // Every pod of the machine writes its super-tiles of the output file at
    // once: through a mapping where the file system allows it (write(2)
    // would make them take turns on the file's lock).
    absl::StatusOr<storage::TensorFile> file = storage::TensorFile::open(
        tensor.store_path(), layoutOf(tensor, true), /*writable=*/true,
        options.storeWrites);
    if (!file.ok())
      return file.status();
    if (void *host = buffer.host()) {
      written = storage::checksum(host, static_cast<size_t>(tile.bytes()));
      return file->writeRegion(offsetsOf(tile), shapeOf(tile), host);
    }
    absl::StatusOr<std::unique_ptr<Staging>> staging =
        backend.staging(tile.bytes());
    if (!staging.ok())
      return staging.status();
    if (absl::Status status =
            backend.download(buffer, (*staging)->data(), tile.bytes());
        !status.ok())
      return status;
    written = storage::checksum((*staging)->data(),
                                static_cast<size_t>(tile.bytes()));
    return file->writeRegion(offsetsOf(tile), shapeOf(tile), (*staging)->data());
  }

  /// A buffer for a tile of `bytes`: the pooled one reserved for it or one
  /// freed since, else a new one, for which the pool first drops what is
  /// past `poolRoom` (the pod's limit less its resident tiles, this one
  /// included).
  absl::StatusOr<std::unique_ptr<TileBuffer>>
  allocateTile(int64_t bytes, bool zero, int64_t poolRoom,
               std::unique_ptr<TileBuffer> reserved, bool &reused) {
    if (!reserved && backend.reusesTileBuffers())
      reserved = pool.take(bytes);
    reused = reserved != nullptr;
    if (reserved) {
      // What the buffer's last tile left in it: a tile that must start as
      // zeros is cleared, any other is written before it is read.
      if (zero)
        if (absl::Status status = backend.zero(*reserved); !status.ok())
          return status;
      return reserved;
    }
    if (backend.reusesTileBuffers())
      pool.trim(poolRoom);
    return backend.allocate(bytes, zero);
  }

  void ioWorker() {
    absl::MutexLock lock(&mu);
    while (true) {
      while (!stopping && ioReady.empty())
        changed.Wait(&mu);
      if (stopping)
        return;
      Ref ref = *ioReady.begin();
      ioReady.erase(ioReady.begin());
      Instr &in = instr(ref);
      Segment &seg = segment(ref.first);
      const wire::TileSpec &tile = tileOf(ref);
      wire::Instruction::Kind kind = in.spec->kind();
      absl::Status status;
      std::optional<uint64_t> storedChecksum;
      if (kind == wire::Instruction::FREE) {
        auto entry = ref.first == 0 ? held.find(tile.id()) : held.end();
        if (entry != held.end() && !servesDone(entry->second)) {
          // Wait for the tile's fetchers; a serve or a lost node wakes it.
          in.phase = Instr::Phase::Parked;
          entry->second.parkedFree = ref;
          ++parkedFrees;
          checkSettled();
          continue;
        }
        std::unique_ptr<TileBuffer> released;
        auto buffer = seg.buffers.find(tile.id());
        if (buffer != seg.buffers.end()) {
          released = std::move(buffer->second);
          seg.buffers.erase(buffer);
        }
        if (entry != held.end()) {
          entry->second.freed = true;
          entry->second.buffer = nullptr;
        }
        // The tile's bytes stay resident until its buffer is in the pool:
        // an allocation the budget let start in between would find the
        // pool empty and allocate a buffer more.
        int64_t poolRoom = poolLimit() - (residentBytes() - tile.bytes());
        in.phase = Instr::Phase::Running;
        in.startNs = sinceJobStartNs();
        mu.Unlock();
        if (released && backend.reusesTileBuffers())
          pool.give(std::move(released), poolRoom);
        released.reset();
        mu.Lock();
        seg.resident -= tile.bytes();
        stats.set_resident_bytes(residentBytes());
        // Memory came back (pooled first, for the allocations this starts):
        // every segment may allocate again.
        for (auto &other : segments)
          pumpAllocations(other.first);
      } else {
        in.phase = Instr::Phase::Running;
        in.startNs = sinceJobStartNs();
        TileBuffer *buffer = nullptr;
        if (kind != wire::Instruction::ALLOCATE) {
          auto found = seg.buffers.find(tile.id());
          if (found == seg.buffers.end()) {
            status = absl::InternalError(
                absl::StrCat(tile.label(), " has no buffer"));
          } else {
            buffer = found->second.get();
          }
        }
        bool zero = in.spec->zero();
        int64_t poolRoom = poolLimit() - residentBytes();
        std::unique_ptr<TileBuffer> reserved = std::move(in.reserved);
        bool reused = false;
        absl::Time begin = absl::Now();
        mu.Unlock();
        std::unique_ptr<TileBuffer> allocated;
        if (status.ok()) {
          if (kind == wire::Instruction::ALLOCATE) {
            absl::StatusOr<std::unique_ptr<TileBuffer>> made =
                allocateTile(tile.bytes(), zero, poolRoom, std::move(reserved),
                             reused);
            if (made.ok())
              allocated = std::move(*made);
            else
              status = made.status();
          } else if (kind == wire::Instruction::LOAD) {
            status = loadTile(tile, *buffer);
          } else if (kind == wire::Instruction::STORE) {
            uint64_t written = 0;
            status = storeTile(tile, *buffer, written);
            storedChecksum = written;
          }
        }
        mu.Lock();
        if (status.ok()) {
          if (kind == wire::Instruction::ALLOCATE) {
            TileBuffer *raw = allocated.get();
            seg.buffers[tile.id()] = std::move(allocated);
            if (ref.first == 0) {
              auto entry = held.find(tile.id());
              if (entry != held.end())
                entry->second.buffer = raw;
            }
          } else if (kind == wire::Instruction::LOAD) {
            stats.set_loaded_bytes(stats.loaded_bytes() + tile.bytes());
            if (ref.first == 0) {
              auto entry = held.find(tile.id());
              if (entry != held.end())
                entry->second.loaded = true;
            }
          } else if (kind == wire::Instruction::STORE) {
            stats.set_stored_bytes(stats.stored_bytes() + tile.bytes());
          }
        }
        if (options.verbose && status.ok())
          logLine(who, absl::StrFormat("%s done in %.1f ms%s", label(ref),
                                       absl::ToDoubleMilliseconds(absl::Now() - begin),
                                       reused ? " (a freed buffer reused)" : ""));
      }
      std::optional<wire::JobFailure> failure =
          complete(ref, status, storedChecksum);
      if (failure) {
        mu.Unlock();
        report(failure);
        mu.Lock();
      }
    }
  }

  void computeWorker() {
    absl::MutexLock lock(&mu);
    while (true) {
      while (!stopping && computeReady.empty())
        changed.Wait(&mu);
      if (stopping)
        return;
      Ref ref = *computeReady.begin();
      computeReady.erase(computeReady.begin());
      Instr &in = instr(ref);
      in.phase = Instr::Phase::Running;
      in.startNs = sinceJobStartNs();
      Segment &seg = segment(ref.first);
      std::vector<TileBuffer *> buffers;
      std::vector<std::vector<int64_t>> shapes;
      absl::Status status;
      for (uint32_t tile : in.spec->tiles()) {
        auto found = seg.buffers.find(tile);
        if (found == seg.buffers.end()) {
          status = absl::InternalError(
              absl::StrCat(seg.tiles.at(tile)->label(), " has no buffer"));
          break;
        }
        buffers.push_back(found->second.get());
        shapes.push_back(shapeOf(*seg.tiles.at(tile)));
      }
      std::vector<LeafScalar> scalars;
      for (uint32_t index : in.spec->scalars()) {
        const wire::ScalarValue &scalar = spec.scalars(index);
        std::optional<ElementType> type = parseElementType(scalar.type());
        scalars.push_back({scalar.value(), !type || isFloat(*type)});
      }
      unsigned leaf = in.spec->leaf();
      std::string name = label(ref);
      mu.Unlock();
      if (options.computeDelayMs > 0)
        absl::SleepFor(absl::Milliseconds(options.computeDelayMs));
      absl::Time begin = absl::Now();
      if (status.ok() && !options.skipCompute)
        status = backend.compute(leaf, buffers, shapes, scalars);
      absl::Duration took = absl::Now() - begin;
      mu.Lock();
      if (status.ok()) {
        stats.set_busy_ns(stats.busy_ns() + absl::ToInt64Nanoseconds(took));
        stats.set_computes(stats.computes() + 1);
        if (options.verbose)
          logLine(who, absl::StrFormat("%s done in %.1f ms", name,
                                       absl::ToDoubleMilliseconds(took)));
      }
      std::optional<wire::JobFailure> failure = complete(ref, status);
      if (failure) {
        mu.Unlock();
        report(failure);
        mu.Lock();
      }
    }
  }

  //===--------------------------------------------------------------------===//
  // Fetching
  //===--------------------------------------------------------------------===//

  std::shared_ptr<grpc::Channel> channelTo(uint32_t node) {
    absl::MutexLock lock(&mu);
    auto found = channels.find(node);
    if (found != channels.end())
      return found->second;
    std::string address;
    for (const wire::PeerSpec &peer : spec.peers())
      if (peer.node() == node)
        address = peer.address();
    std::shared_ptr<grpc::Channel> channel = grpc::CreateCustomChannel(
        address, channelCredentials(credentials), channelArguments());
    channels[node] = channel;
    return channel;
  }

  const wire::PeerSpec *peerOf(uint32_t node) {
    for (const wire::PeerSpec &peer : spec.peers())
      if (peer.node() == node)
        return &peer;
    return nullptr;
  }

  /// Registers `context` so that a lost node or a stop cancels it; false
  /// when that already happened.
  bool track(uint32_t node, grpc::ClientContext *context) {
    absl::MutexLock lock(&mu);
    if (stopping || lostNodes.count(node))
      return false;
    activeFetches.emplace(node, context);
    return true;
  }
  void untrack(uint32_t node, grpc::ClientContext *context) {
    absl::MutexLock lock(&mu);
    auto range = activeFetches.equal_range(node);
    for (auto it = range.first; it != range.second; ++it)
      if (it->second == context) {
        activeFetches.erase(it);
        return;
      }
  }

  wire::FetchRequest requestFor(const wire::TileSpec &tile) {
    wire::FetchRequest request;
    request.set_job_id(spec.job_id());
    request.set_token(spec.token());
    request.set_tile(tile.id());
    request.set_node(spec.node());
    return request;
  }

  /// Over gRPC, in chunks, into `buffer`. `received` counts the bytes.
  absl::Status fetchChunks(uint32_t from, const wire::TileSpec &tile,
                           TileBuffer &buffer, int64_t &received) {
    auto stub = wire::Pod::NewStub(channelTo(from));
    grpc::ClientContext context;
    prepareCall(context, credentials);
    if (!track(from, &context))
      return absl::UnavailableError("the holder is lost");
    std::unique_ptr<Staging> staging;
    uint8_t *target = static_cast<uint8_t *>(buffer.host());
    if (!target) {
      absl::StatusOr<std::unique_ptr<Staging>> made = backend.staging(tile.bytes());
      if (!made.ok()) {
        untrack(from, &context);
        return made.status();
      }
      staging = std::move(*made);
      target = static_cast<uint8_t *>(staging->data());
    }
    std::unique_ptr<grpc::ClientReader<wire::TileChunk>> reader =
        stub->Fetch(&context, requestFor(tile));
    wire::TileChunk chunk;
    absl::Status problem;
    bool last = false;
    uint64_t tileChecksum = 0;
    while (reader->Read(&chunk)) {
      if (chunk.total_bytes() != tile.bytes() || chunk.offset() != received ||
          received + static_cast<int64_t>(chunk.data().size()) > tile.bytes()) {
        problem = absl::DataLossError(absl::StrCat(
            "a chunk at byte ", chunk.offset(), " of ", chunk.data().size(),
            " bytes does not fit the ", tile.bytes(), "-byte tile"));
        context.TryCancel();
        break;
      }
      if (storage::checksum(chunk.data().data(), chunk.data().size()) !=
          chunk.checksum()) {
        problem = absl::DataLossError(absl::StrCat(
            "the chunk at byte ", chunk.offset(), " fails its checksum"));
        context.TryCancel();
        break;
      }
      std::memcpy(target + received, chunk.data().data(), chunk.data().size());
      received += static_cast<int64_t>(chunk.data().size());
      if (chunk.last()) {
        last = true;
        tileChecksum = chunk.tile_checksum();
      }
    }
    grpc::Status finished = reader->Finish();
    untrack(from, &context);
    if (!problem.ok())
      return problem;
    if (!finished.ok())
      return describeCallFailure(finished);
    if (!last || received != tile.bytes())
      return absl::DataLossError(absl::StrCat("the stream ended after ", received,
                                              " of ", tile.bytes(), " bytes"));
    if (storage::checksum(target, static_cast<size_t>(received)) != tileChecksum)
      return absl::DataLossError("the tile fails its checksum");
    if (staging)
      return backend.upload(buffer, target, tile.bytes());
    return absl::OkStatus();
  }

  /// GPU to GPU through CUDA IPC, with the holder on this host.
  absl::Status fetchPeer(uint32_t from, const wire::TileSpec &tile,
                         TileBuffer &buffer) {
    auto stub = wire::Pod::NewStub(channelTo(from));
    grpc::ClientContext context;
    prepareCall(context, credentials);
    if (!track(from, &context))
      return absl::UnavailableError("the holder is lost");
    auto stream = stub->FetchPeer(&context);
    wire::PeerFetchMessage request;
    *request.mutable_request() = requestFor(tile);
    wire::PeerFetchReply reply;
    absl::Status status;
    bool answered = stream->Write(request) && stream->Read(&reply);
    if (!answered) {
      status = absl::UnavailableError("the holder closed the stream");
    } else if (reply.bytes() != tile.bytes()) {
      status = absl::DataLossError(absl::StrCat(
          "the holder offers ", reply.bytes(), " bytes for a ", tile.bytes(),
          "-byte tile"));
    } else {
      status = backend.copyFromExported(reply.ipc_handle(), tile.bytes(), buffer);
    }
    wire::PeerFetchMessage done;
    done.mutable_done()->set_ok(status.ok());
    stream->Write(done);
    stream->WritesDone();
    grpc::Status finished = stream->Finish();
    untrack(from, &context);
    // A refusal closes the stream before any reply: its status says why.
    if ((status.ok() || !answered) && !finished.ok())
      status = describeCallFailure(finished);
    return status;
  }

  void runFetch(Ref ref) {
    const wire::TileSpec *tile;
    TileBuffer *buffer = nullptr;
    uint32_t from;
    bool lost;
    {
      absl::MutexLock lock(&mu);
      Instr &in = instr(ref);
      tile = &tileOf(ref);
      from = in.spec->from();
      lost = lostNodes.count(from) > 0;
      auto found = segment(ref.first).buffers.find(tile->id());
      if (found != segment(ref.first).buffers.end())
        buffer = found->second.get();
    }
    absl::Status status;
    absl::Time begin = absl::Now();
    bool peer = false;
    int64_t received = 0;
    if (!buffer) {
      status = absl::InternalError(absl::StrCat(tile->label(), " has no buffer"));
    } else {
      const wire::PeerSpec *holder = peerOf(from);
      if (lost || !holder) {
        status =
            absl::UnavailableError(absl::StrCat("node ", from, " is lost"));
      } else {
        peer = backend.canShareDevice() && holder->backend() == "gpu" &&
               holder->host_id() == options.hostId;
        // A holder that has not read its StartJob yet answers
        // FAILED_PRECONDITION: ask again for a few seconds (a holder lost
        // meanwhile, or a stop, ends the wait through track()).
        absl::Time giveUp = absl::Now() + absl::Seconds(5);
        for (absl::Duration pause = absl::Milliseconds(10);;
             pause = std::min(2 * pause, absl::Milliseconds(200))) {
          status = peer ? fetchPeer(from, *tile, *buffer)
                        : fetchChunks(from, *tile, *buffer, received);
          if (!absl::IsFailedPrecondition(status) || received ||
              absl::Now() + pause > giveUp)
            break;
          absl::SleepFor(pause);
        }
      }
      bool stopped;
      {
        absl::MutexLock lock(&mu);
        stopped = stopping;
      }
      if (!status.ok() && !stopped) {
        // The tile is an input in storage: the same bytes come from there.
        logLine(who, absl::StrCat("fetch of ", tile->label(), " from node ",
                                  from, " failed",
                                  received ? absl::StrCat(" after ", received, " of ",
                                                          tile->bytes(), " bytes")
                                           : "",
                                  " (", status.message(),
                                  "); loading it from storage instead"));
        status = loadTile(*tile, *buffer);
        peer = false;
        received = -1;
      }
    }
    absl::MutexLock lock(&mu);
    if (status.ok()) {
      if (received < 0)
        stats.set_loaded_bytes(stats.loaded_bytes() + tile->bytes());
      else if (peer)
        stats.set_peer_bytes(stats.peer_bytes() + tile->bytes());
      else
        stats.set_fetched_bytes(stats.fetched_bytes() + tile->bytes());
      if (options.verbose)
        logLine(who, absl::StrFormat("%s from node %d done in %.1f ms%s", label(ref),
                                     from, absl::ToDoubleMilliseconds(absl::Now() - begin),
                                     peer ? " (GPU to GPU)" : ""));
    }
    std::optional<wire::JobFailure> failure = complete(ref, status);
    if (failure) {
      mu.Unlock();
      report(failure);
      mu.Lock();
    }
  }

  //===--------------------------------------------------------------------===//
  // Serving
  //===--------------------------------------------------------------------===//

  /// Checks a fetch and waits until the tile is loaded; on success the
  /// caller holds a reader lease on `entry`.
  grpc::Status admit(const grpc::ServerContext &context,
                     const wire::FetchRequest &request, Held *&entry) {
    if (request.job_id() != spec.job_id() || request.token() != spec.token())
      return grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                          absl::StrFormat("tile %d was asked for by a pod of "
                                          "another job; this pod runs job %016x",
                                          request.tile(), spec.job_id()));
    absl::MutexLock lock(&mu);
    auto found = held.find(request.tile());
    if (found == held.end())
      return grpc::Status(grpc::StatusCode::NOT_FOUND,
                          absl::StrCat("node ", spec.node(), " holds no tile ",
                                       request.tile(), " for others"));
    entry = &found->second;
    if (!entry->expected.count(request.node()))
      return grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                          absl::StrCat("node ", request.node(),
                                       " is not a fetcher of tile ",
                                       request.tile(), " in this job"));
    while (!entry->loaded && !stopping && !entry->freed &&
           !context.IsCancelled())
      changed.WaitWithTimeout(&mu, absl::Milliseconds(200));
    if (stopping)
      return grpc::Status(grpc::StatusCode::ABORTED, "the job has ended");
    if (context.IsCancelled())
      return grpc::Status(grpc::StatusCode::CANCELLED, "the fetcher gave up");
    if (entry->freed || !entry->buffer)
      return grpc::Status(grpc::StatusCode::NOT_FOUND,
                          absl::StrCat("tile ", request.tile(), " was freed"));
    entry->readers++;
    return grpc::Status::OK;
  }

  void release(Held &entry, uint32_t node, uint32_t tile, int64_t bytes) {
    absl::MutexLock lock(&mu);
    entry.readers--;
    entry.finished.insert(node);
    stats.set_served_bytes(stats.served_bytes() + bytes);
    checkParked(tile);
  }
};

//===----------------------------------------------------------------------===//
// JobRun
//===----------------------------------------------------------------------===//

JobRun::JobRun(Backend &backend, const Credentials &credentials,
               const wire::StartJob &spec, EngineOptions options,
               std::function<void(const wire::JobFailure &)> onFailure,
               std::function<void()> onSettled)
    : state(std::make_unique<State>(backend, credentials, spec,
                                    std::move(options), std::move(onFailure),
                                    std::move(onSettled))) {
  for (const wire::ServeSpec &serve : state->spec.serves()) {
    State::Held &entry = state->held[serve.tile()];
    entry.expected.insert(serve.nodes().begin(), serve.nodes().end());
  }
}

JobRun::~JobRun() {
  shutdown();
  state->segments.clear();
}

void JobRun::shutdown() {
  stop();
  std::vector<std::thread> workers;
  {
    absl::MutexLock lock(&state->mu);
    workers.swap(state->workers);
  }
  for (std::thread &worker : workers)
    worker.join();
  // Fetch threads may be added while others finish: join until none is left.
  while (true) {
    std::vector<std::thread> fetchers;
    {
      absl::MutexLock lock(&state->mu);
      fetchers.swap(state->fetchers);
    }
    if (fetchers.empty())
      break;
    for (std::thread &fetcher : fetchers)
      fetcher.join();
  }
  // Fetch handlers may keep this job alive after its session ended: they
  // must not reach the session through its callbacks.
  absl::MutexLock lock(&state->mu);
  state->onFailure = nullptr;
  state->onSettled = nullptr;
}

absl::Status JobRun::start() {
  if (absl::Status status = state->backend.prepare(state->spec); !status.ok())
    return status;
  absl::MutexLock lock(&state->mu);
  if (absl::Status status = state->addSegmentLocked(state->spec.segment());
      !status.ok())
    return status;
  State *s = state.get();
  for (unsigned i = 0; i < std::max(1u, s->options.ioThreads); ++i)
    s->workers.emplace_back([s] { s->ioWorker(); });
  s->workers.emplace_back([s] { s->computeWorker(); });
  return absl::OkStatus();
}

void JobRun::addSegment(const wire::Segment &segment) {
  absl::Status status;
  {
    absl::MutexLock lock(&state->mu);
    if (state->stopping)
      return;
    status = state->addSegmentLocked(segment);
  }
  if (status.ok()) {
    logLine(state->who, absl::StrCat("took over segment ", segment.id(), " (",
                                     segment.instructions_size(),
                                     " instructions re-planned from a lost node)"));
    return;
  }
  wire::JobFailure failure;
  failure.set_job_id(state->spec.job_id());
  failure.set_segment(segment.id());
  failure.set_message(absl::StrCat("segment ", segment.id(), ": ", status.message()));
  state->report(failure);
}

void JobRun::nodeLost(uint32_t node) {
  absl::MutexLock lock(&state->mu);
  if (!state->lostNodes.insert(node).second)
    return;
  auto range = state->activeFetches.equal_range(node);
  for (auto it = range.first; it != range.second; ++it)
    it->second->TryCancel();
  for (auto &entry : state->held)
    state->checkParked(entry.first);
  state->changed.SignalAll();
}

void JobRun::stop() {
  absl::MutexLock lock(&state->mu);
  state->stopping = true;
  for (auto &entry : state->activeFetches)
    entry.second->TryCancel();
  state->changed.SignalAll();
}

uint64_t JobRun::jobId() const { return state->spec.job_id(); }
uint32_t JobRun::node() const { return state->spec.node(); }

void JobRun::takeReport(wire::Heartbeat &heartbeat) {
  absl::MutexLock lock(&state->mu);
  heartbeat.set_job_id(state->spec.job_id());
  for (wire::Retired &done : state->retired)
    *heartbeat.add_retired() = std::move(done);
  state->retired.clear();
  *heartbeat.mutable_stats() = state->stats;
}

void JobRun::tick() {
  absl::MutexLock lock(&state->mu);
  for (auto &[id, seg] : state->segments)
    if (seg->stalledSince && absl::Now() - *seg->stalledSince > absl::Seconds(1)) {
      logLine(state->who,
              absl::StrCat("segment ", id, " waited a second for memory "
                           "within the budget of ",
                           formatBytes(state->options.memoryBudget),
                           " (held tiles wait for their fetchers); "
                           "allocating past it"));
      seg->forceNext = true;
      seg->stalledSince.reset();
      state->pumpAllocations(id);
      state->changed.SignalAll();
    }
}

void JobRun::describe(wire::PodStatus &status) {
  absl::MutexLock lock(&state->mu);
  status.set_job_id(state->spec.job_id());
  status.set_node(state->spec.node());
  status.set_instructions(state->totalInstrs);
  status.set_retired(state->retiredCount);
  *status.mutable_stats() = state->stats;
}

grpc::Status JobRun::serveFetch(const grpc::ServerContext &context,
                                const wire::FetchRequest &request,
                                grpc::ServerWriter<wire::TileChunk> *writer) {
  State::Held *entry = nullptr;
  if (grpc::Status status = state->admit(context, request, entry); !status.ok())
    return status;
  TileBuffer &buffer = *entry->buffer;
  int64_t bytes = buffer.bytes();
  std::unique_ptr<Staging> staging;
  const uint8_t *data = static_cast<const uint8_t *>(buffer.host());
  absl::Status copied;
  if (!data) {
    absl::StatusOr<std::unique_ptr<Staging>> made = state->backend.staging(bytes);
    if (made.ok()) {
      staging = std::move(*made);
      copied = state->backend.download(buffer, staging->data(), bytes);
      data = static_cast<const uint8_t *>(staging->data());
    } else {
      copied = made.status();
    }
  }
  if (!copied.ok()) {
    state->release(*entry, request.node(), request.tile(), 0);
    return grpc::Status(grpc::StatusCode::INTERNAL, std::string(copied.message()));
  }
  uint64_t whole = storage::checksum(data, static_cast<size_t>(bytes));
  int64_t chunkBytes = std::max<int64_t>(1, state->options.chunkBytes);
  int64_t sent = 0;
  bool ok = true;
  int chunks = 0;
  while (sent < bytes || (bytes == 0 && chunks == 0)) {
    int64_t size = std::min(chunkBytes, bytes - sent);
    wire::TileChunk chunk;
    chunk.set_offset(sent);
    chunk.set_data(data + sent, static_cast<size_t>(size));
    chunk.set_checksum(storage::checksum(data + sent, static_cast<size_t>(size)));
    chunk.set_total_bytes(bytes);
    if (sent + size == bytes) {
      chunk.set_last(true);
      chunk.set_tile_checksum(whole);
    }
    if (!writer->Write(chunk)) {
      ok = false;
      break;
    }
    sent += size;
    ++chunks;
    if (state->options.dieWhileServing && sent < bytes) {
      logLine(state->who,
              absl::StrCat("--test-die-while-serving: exiting after ", sent,
                           " of ", bytes, " bytes of tile ", request.tile()));
      ::_exit(3);
    }
  }
  state->release(*entry, request.node(), request.tile(), ok ? sent : 0);
  if (!ok)
    return grpc::Status(grpc::StatusCode::CANCELLED,
                        "the fetcher closed the stream");
  return grpc::Status::OK;
}

grpc::Status JobRun::servePeerFetch(
    const grpc::ServerContext &context, const wire::FetchRequest &request,
    grpc::ServerReaderWriter<wire::PeerFetchReply, wire::PeerFetchMessage>
        *stream) {
  if (!state->backend.canShareDevice())
    return grpc::Status(grpc::StatusCode::UNIMPLEMENTED,
                        "this pod's tiles are not in GPU memory");
  State::Held *entry = nullptr;
  if (grpc::Status status = state->admit(context, request, entry); !status.ok())
    return status;
  TileBuffer &buffer = *entry->buffer;
  absl::StatusOr<std::string> handle = state->backend.exportBuffer(buffer);
  if (!handle.ok()) {
    state->release(*entry, request.node(), request.tile(), 0);
    return grpc::Status(grpc::StatusCode::INTERNAL,
                        std::string(handle.status().message()));
  }
  wire::PeerFetchReply reply;
  reply.set_ipc_handle(*handle);
  reply.set_bytes(buffer.bytes());
  reply.set_device_ordinal(state->backend.deviceOrdinal());
  bool ok = stream->Write(reply);
  // The fetcher copies; the tile stays until it says so (or goes away).
  wire::PeerFetchMessage message;
  bool copied = false;
  while (ok && stream->Read(&message))
    if (message.has_done()) {
      copied = message.done().ok();
      break;
    }
  state->release(*entry, request.node(), request.tile(),
                 copied ? buffer.bytes() : 0);
  return grpc::Status::OK;
}
