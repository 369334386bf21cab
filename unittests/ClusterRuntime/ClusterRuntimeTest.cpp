//===- ClusterRuntimeTest.cpp - Credentials and a pod's engine ------------===//
//
// The authentication every call goes through, on an in-process gRPC server
// with certificates from scripts/cluster-credentials.sh; and a pod's
// engine running a small segment on a stand-in backend.
//
//===----------------------------------------------------------------------===//

#include "Phobos/ClusterRuntime/Credentials.h"
#include "Phobos/ClusterRuntime/Log.h"
#include "Phobos/ClusterRuntime/PodEngine.h"
#include "Phobos/ClusterRuntime/TensorStorage.h"
#include "phobos_cluster.grpc.pb.h"

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include <grpcpp/grpcpp.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <map>

using namespace phobos;
using namespace phobos::cluster::runtime;
namespace wire = phobos::cluster::wire;

namespace {

//===----------------------------------------------------------------------===//
// Credentials
//===----------------------------------------------------------------------===//

class StatusOnly final : public wire::Pod::Service {
public:
  explicit StatusOnly(const Credentials &credentials) : credentials(credentials) {}
  grpc::Status Status(grpc::ServerContext *context, const wire::StatusRequest *,
                      wire::PodStatus *status) override {
    if (grpc::Status denied = authorize(*context, credentials); !denied.ok())
      return denied;
    status->set_backend("test");
    return grpc::Status::OK;
  }

private:
  const Credentials &credentials;
};

class CredentialsTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    llvm::SmallString<128> path;
    if (llvm::sys::fs::createUniqueDirectory("phobos-credentials", path))
      return;
    directory = new std::string(path);
    std::string script = std::string(PHOBOS_SOURCE_DIR) +
                         "/scripts/cluster-credentials.sh";
    made = std::system((script + " " + *directory + " > /dev/null 2>&1").c_str()) == 0 &&
           std::system((script + " " + *directory + "/other > /dev/null 2>&1").c_str()) == 0;
  }
  static void TearDownTestSuite() {
    if (directory)
      llvm::sys::fs::remove_directories(*directory);
    delete directory;
    directory = nullptr;
  }

  void SetUp() override {
    if (!made)
      GTEST_SKIP() << "scripts/cluster-credentials.sh (openssl) did not run";
  }

  static Credentials load(const std::string &dir) {
    CredentialOptions options;
    options.directory = dir;
    absl::StatusOr<Credentials> credentials = loadCredentials(options);
    EXPECT_TRUE(credentials.ok()) << credentials.status();
    return credentials.ok() ? *credentials : Credentials();
  }

  /// Calls Status on a server with `server` credentials as a client with
  /// `client` ones.
  static grpc::Status call(const Credentials &server, const Credentials &client) {
    StatusOnly service(server);
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", serverCredentials(server), &port);
    configureServer(builder);
    builder.RegisterService(&service);
    std::unique_ptr<grpc::Server> running = builder.BuildAndStart();
    EXPECT_NE(port, 0);
    auto channel = grpc::CreateCustomChannel(
        "127.0.0.1:" + std::to_string(port), channelCredentials(client),
        channelArguments());
    auto stub = wire::Pod::NewStub(channel);
    grpc::ClientContext context;
    prepareCall(context, client);
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    wire::StatusRequest request;
    wire::PodStatus status;
    grpc::Status result = stub->Status(&context, request, &status);
    running->Shutdown();
    return result;
  }

  static std::string *directory;
  static bool made;
};

std::string *CredentialsTest::directory = nullptr;
bool CredentialsTest::made = false;

TEST_F(CredentialsTest, TheClusterIsLetIn) {
  Credentials cluster = load(*directory);
  EXPECT_FALSE(cluster.secret.empty());
  EXPECT_TRUE(call(cluster, cluster).ok());
}

TEST_F(CredentialsTest, NoClientCertificateIsUnauthenticated) {
  Credentials cluster = load(*directory);
  // Trusts the cluster's CA and knows the secret, but proves nothing.
  Credentials client = cluster;
  client.certPem.clear();
  client.keyPem.clear();
  grpc::Status status = call(cluster, client);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(status.error_message(), "no client certificate from the cluster CA: "
                                    "this caller does not belong to the cluster");
}

TEST_F(CredentialsTest, TheSecretIsChecked) {
  Credentials cluster = load(*directory);
  Credentials client = cluster;
  client.secret.clear();
  grpc::Status status = call(cluster, client);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(status.error_message(), "no shared secret: this cluster requires one");
  client.secret = "0123456789abcdef-but-not-it";
  status = call(cluster, client);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(status.error_message(), "wrong shared secret");
}

TEST_F(CredentialsTest, AnotherCaAndPlaintextNeverGetThrough) {
  Credentials cluster = load(*directory);
  Credentials stranger = load(*directory + "/other");
  EXPECT_EQ(call(cluster, stranger).error_code(), grpc::StatusCode::UNAVAILABLE);
  Credentials plain;
  plain.insecure = true;
  EXPECT_EQ(call(cluster, plain).error_code(), grpc::StatusCode::UNAVAILABLE);
}

TEST_F(CredentialsTest, ACertificateTheCaSignedForAnotherNameIsRefused) {
  // The cluster CA signs a certificate that does not name phobos-cluster
  // (docs/cluster.md section 14: both sides check the name).
  std::string dir = *directory;
  std::string make =
      "cd " + dir + " && printf 'subjectAltName=DNS:printer.example\\n"
      "extendedKeyUsage=serverAuth,clientAuth\\n' > printer.ext && "
      "openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes "
      "-keyout printer.key -out printer.csr -subj /CN=printer > /dev/null 2>&1 && "
      "openssl x509 -req -in printer.csr -CA ca.pem -CAkey ca.key -CAcreateserial "
      "-out printer.pem -days 2 -extfile printer.ext > /dev/null 2>&1";
  ASSERT_EQ(std::system(make.c_str()), 0);
  Credentials cluster = load(dir);
  Credentials printer = cluster;
  auto read = [](const std::string &path) {
    auto buffer = llvm::MemoryBuffer::getFile(path);
    return buffer ? (*buffer)->getBuffer().str() : std::string();
  };
  printer.certPem = read(dir + "/printer.pem");
  printer.keyPem = read(dir + "/printer.key");
  ASSERT_FALSE(printer.certPem.empty());
  grpc::Status status = call(cluster, printer);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(status.error_message(),
            "the client certificate names printer.example, CN=printer, not "
            "'phobos-cluster': the cluster CA signed it for something else");
}

TEST_F(CredentialsTest, AnExpiredCertificateIsRefusedAtStart) {
  // Expired, it would fail every handshake on the other side as
  // "certificate verify failed"; the tool says so when it starts.
  std::string dir = *directory;
  std::string make =
      "cd " + dir + " && printf 'subjectAltName=DNS:phobos-cluster\\n"
      "extendedKeyUsage=serverAuth,clientAuth\\n' > old.ext && "
      "openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes "
      "-keyout old.key -out old.csr -subj /CN=old > /dev/null 2>&1 && "
      "openssl x509 -req -in old.csr -CA ca.pem -CAkey ca.key -CAcreateserial "
      "-out old.pem -days -1 -extfile old.ext > /dev/null 2>&1";
  ASSERT_EQ(std::system(make.c_str()), 0);
  CredentialOptions options;
  options.caFile = dir + "/ca.pem";
  options.certFile = dir + "/old.pem";
  options.keyFile = dir + "/old.key";
  absl::StatusOr<Credentials> loaded = loadCredentials(options);
  ASSERT_FALSE(loaded.ok());
  std::string message(loaded.status().message());
  EXPECT_NE(message.find("the certificate '" + dir + "/old.pem' expired on "),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("scripts/cluster-credentials.sh"), std::string::npos);
}

TEST(Log, TlsFailuresNameBothSidesAndTheCause) {
  std::string raw = "Handshake failed with fatal error SSL_ERROR_SSL: "
                    "error:0A000086:SSL routines::certificate verify failed.";
  EXPECT_EQ(explainTlsFailure(raw, "the pod", "this scheduler"),
            "the pod's certificate is not signed by this scheduler's cluster CA "
            "(the two machines have different credentials), or has expired");
  EXPECT_EQ(explainTlsFailure(raw),
            "the other side's certificate is not signed by this side's cluster "
            "CA (the two machines have different credentials), or has expired");
  EXPECT_EQ(explainTlsFailure("SSL routines::wrong version number"),
            "one side speaks plaintext (--insecure) and the other TLS");
  EXPECT_EQ(explainTlsFailure("Connection refused"), "");
}

TEST(Log, TimestampsAreUtcWithMillisecondsOrElapsed) {
  setLogClock(LogClock::Utc);
  std::string utc = logTimestamp();
  // [2026-12-06T02:50:01.173Z]
  ASSERT_EQ(utc.size(), 26u) << utc;
  EXPECT_EQ(utc.front(), '[');
  EXPECT_EQ(utc.substr(utc.size() - 2), "Z]");
  EXPECT_EQ(utc[5], '-');
  EXPECT_EQ(utc[11], 'T');
  EXPECT_EQ(utc[20], '.');
  for (size_t i : {1, 2, 3, 4, 21, 22, 23})
    EXPECT_TRUE(std::isdigit(static_cast<unsigned char>(utc[i]))) << utc;
  setLogClock(LogClock::Elapsed);
  std::string elapsed = logTimestamp();
  EXPECT_EQ(elapsed.front(), '[');
  EXPECT_EQ(elapsed.substr(elapsed.size() - 2), "s]");
  EXPECT_NE(elapsed.find('.'), std::string::npos);
  setLogClock(LogClock::Utc);
}

TEST(Credentials, OptionsAndAddresses) {
  absl::StatusOr<Credentials> none = loadCredentials(CredentialOptions());
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("scripts/cluster-credentials.sh"),
            std::string::npos);
  CredentialOptions missing;
  missing.directory = "/nonexistent-phobos";
  EXPECT_EQ(loadCredentials(missing).status().code(), absl::StatusCode::kNotFound);
  CredentialOptions both;
  both.insecure = true;
  both.caFile = "ca.pem";
  EXPECT_FALSE(loadCredentials(both).ok());

  Credentials insecure;
  insecure.insecure = true;
  EXPECT_TRUE(checkListenAddress(insecure, "127.0.0.1:7070").ok());
  EXPECT_TRUE(checkListenAddress(insecure, "[::1]:0").ok());
  EXPECT_FALSE(checkListenAddress(insecure, "0.0.0.0:7070").ok());
  Credentials secure;
  EXPECT_TRUE(checkListenAddress(secure, "0.0.0.0:7070").ok());
  EXPECT_FALSE(checkListenAddress(secure, "0.0.0.0:70000").ok());
  EXPECT_FALSE(checkListenAddress(secure, "7070").ok());
  // Another node's address: a port to connect to, never 0.
  EXPECT_TRUE(checkConnectAddress("gpu-a:7071").ok());
  EXPECT_TRUE(checkConnectAddress("[::1]:7071").ok());
  EXPECT_FALSE(checkConnectAddress("gpu-a").ok());
  EXPECT_FALSE(checkConnectAddress("gpu-a:0").ok());
  EXPECT_FALSE(checkConnectAddress(":7071").ok());
  EXPECT_FALSE(checkConnectAddress("gpu-a:70000").ok());
}

//===----------------------------------------------------------------------===//
// The engine on a stand-in backend
//===----------------------------------------------------------------------===//

class HeapTile : public TileBuffer {
public:
  explicit HeapTile(int64_t bytes) : data(static_cast<size_t>(bytes)) {
    size = bytes;
  }
  void *host() override { return data.data(); }
  std::vector<uint8_t> data;
};

/// Leaf 0 doubles its first tensor into its second; it records the order
/// in which things happen.
class Doubler : public Backend {
public:
  std::string kind() const override { return "test"; }
  std::string describe() const override { return "test"; }
  absl::Status prepare(const wire::StartJob &) override { return absl::OkStatus(); }
  absl::StatusOr<std::unique_ptr<TileBuffer>> allocate(int64_t bytes,
                                                       bool zero) override {
    return std::unique_ptr<TileBuffer>(new HeapTile(bytes));
  }
  absl::Status upload(TileBuffer &buffer, const void *data, int64_t bytes) override {
    std::memcpy(buffer.host(), data, static_cast<size_t>(bytes));
    return absl::OkStatus();
  }
  absl::Status download(const TileBuffer &buffer, void *data, int64_t bytes) override {
    std::memcpy(data, const_cast<TileBuffer &>(buffer).host(), static_cast<size_t>(bytes));
    return absl::OkStatus();
  }
  // The engine tests' jobs have one leaf.
  size_t numLeaves() const override { return 1; }
  absl::Status computeLeaf(unsigned, const std::vector<TileBuffer *> &tensors,
                           const std::vector<std::vector<int64_t>> &,
                           const std::vector<LeafScalar> &scalars) override {
    auto *in = static_cast<float *>(tensors[0]->host());
    auto *out = static_cast<float *>(tensors[1]->host());
    for (int64_t i = 0; i < tensors[0]->bytes() / 4; ++i)
      out[i] = (accumulates ? out[i] : 0) +
               static_cast<float>(scalars.at(0).value) * in[i];
    return absl::OkStatus();
  }
  /// Add into the output instead (a kernel that reads its output).
  bool accumulates = false;
};

class EngineTest : public ::testing::Test {
protected:
  void SetUp() override {
    llvm::SmallString<128> path;
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("phobos-engine", path));
    directory = std::string(path);
  }
  void TearDown() override { llvm::sys::fs::remove_directories(directory); }

  /// A: 4x8 f32 in storage, split in two row tiles; the segment doubles
  /// each into C.
  wire::StartJob job(const std::string &input) {
    wire::StartJob start;
    start.set_job_id(7);
    start.set_token("token");
    start.set_node(0);
    for (auto [name, load, store] :
         {std::tuple<const char *, std::string, std::string>{"A", input, ""},
          {"C", "", directory + "/c.partial"}}) {
      wire::TensorSpec *tensor = start.add_tensors();
      tensor->set_name(name);
      tensor->set_element("f32");
      tensor->add_shape(4);
      tensor->add_shape(8);
      tensor->set_load_path(load);
      tensor->set_store_path(store);
    }
    start.add_leaves()->set_name("double");
    wire::ScalarValue *two = start.add_scalars();
    two->set_name("two");
    two->set_type("f32");
    two->set_value(2);
    wire::Segment *segment = start.mutable_segment();
    for (uint32_t id = 0; id < 4; ++id) {
      wire::TileSpec *tile = segment->add_tiles();
      tile->set_id(id);
      tile->set_tensor(id / 2);
      tile->add_offsets((id % 2) * 2);
      tile->add_offsets(0);
      tile->add_shape(2);
      tile->add_shape(8);
      tile->set_bytes(64);
      tile->set_label(std::string(id < 2 ? "A" : "C") + "[" + std::to_string(id % 2) + "]");
    }
    uint64_t next = 0;
    auto add = [&](wire::Instruction::Kind kind, uint32_t tile,
                   std::vector<uint64_t> deps) {
      wire::Instruction *instruction = segment->add_instructions();
      instruction->set_id(next);
      instruction->set_kind(kind);
      instruction->set_tile(tile);
      for (uint64_t dep : deps)
        instruction->add_deps(dep);
      return next++;
    };
    for (uint32_t row = 0; row < 2; ++row) {
      uint64_t allocA = add(wire::Instruction::ALLOCATE, row, {});
      uint64_t load = add(wire::Instruction::LOAD, row, {allocA});
      uint64_t allocC = add(wire::Instruction::ALLOCATE, 2 + row, {});
      uint64_t compute = add(wire::Instruction::COMPUTE, 0, {load, allocC});
      segment->mutable_instructions(static_cast<int>(compute))->add_tiles(row);
      segment->mutable_instructions(static_cast<int>(compute))->add_tiles(2 + row);
      segment->mutable_instructions(static_cast<int>(compute))->add_scalars(0);
      uint64_t store = add(wire::Instruction::STORE, 2 + row, {compute});
      add(wire::Instruction::FREE, row, {compute});
      add(wire::Instruction::FREE, 2 + row, {store});
    }
    return start;
  }

  /// A's values (none zero) in a.tensor, and an empty c.partial.
  std::vector<float> makeFiles() {
    storage::TensorInfo info;
    info.shape = {4, 8};
    std::vector<float> a(32);
    for (int i = 0; i < 32; ++i)
      a[i] = static_cast<float>(i) - 7.5f;
    absl::StatusOr<storage::TensorFile> input =
        storage::TensorFile::create(directory + "/a.tensor", info);
    EXPECT_TRUE(input.ok() && input->writeBytes(0, 128, a.data()).ok());
    EXPECT_TRUE(storage::TensorFile::create(directory + "/c.partial", info).ok());
    return a;
  }

  /// Runs the job's 14 instructions to the end; C as stored.
  std::vector<float> runToTheEnd(Backend &backend, const wire::StartJob &spec,
                                 EngineOptions options, wire::Heartbeat &last) {
    Credentials credentials;
    credentials.insecure = true;
    bool failed = false;
    JobRun run(backend, credentials, spec, std::move(options),
               [&](const wire::JobFailure &) { failed = true; });
    EXPECT_TRUE(run.start().ok());
    int retired = 0;
    absl::Time deadline = absl::Now() + absl::Seconds(30);
    while (retired < 14 && absl::Now() < deadline && !failed) {
      wire::Heartbeat heartbeat;
      run.takeReport(heartbeat);
      retired += heartbeat.retired_size();
      absl::SleepFor(absl::Milliseconds(10));
    }
    EXPECT_FALSE(failed);
    EXPECT_EQ(retired, 14);
    run.takeReport(last);
    storage::TensorInfo info;
    info.shape = {4, 8};
    absl::StatusOr<storage::TensorFile> output =
        storage::TensorFile::open(directory + "/c.partial", info, false);
    std::vector<float> c(32);
    EXPECT_TRUE(output.ok() && output->readBytes(0, 128, c.data()).ok());
    return c;
  }

  std::string directory;
};

TEST_F(EngineTest, RunsASegmentToTheEnd) {
  std::vector<float> a = makeFiles();
  Doubler backend;
  wire::Heartbeat last;
  std::vector<float> c = runToTheEnd(backend, job(directory + "/a.tensor"),
                                     EngineOptions(), last);
  for (int i = 0; i < 32; ++i)
    EXPECT_EQ(c[i], 2 * a[i]);
  EXPECT_EQ(last.stats().loaded_bytes(), 128);
  EXPECT_EQ(last.stats().stored_bytes(), 128);
  EXPECT_EQ(last.stats().computes(), 2);
  EXPECT_EQ(last.stats().resident_bytes(), 0);
}

/// The Doubler on buffers it lets the pod reuse, as the interpreter does:
/// a new tile holds garbage unless it must start as zeros, and leaf 0 adds
/// into its output, so that a reused buffer left uncleared shows.
class ReusingAccumulator : public Doubler {
public:
  ReusingAccumulator() { accumulates = true; }
  bool reusesTileBuffers() const override { return true; }
  absl::StatusOr<std::unique_ptr<TileBuffer>> allocate(int64_t bytes,
                                                       bool zero) override {
    ++allocations;
    auto tile = std::make_unique<HeapTile>(bytes);
    if (!zero)
      std::memset(tile->data.data(), 0xab, tile->data.size());
    return std::unique_ptr<TileBuffer>(std::move(tile));
  }
  std::atomic<int> allocations{0};
};

// Within a budget of two tiles, the second row's tiles wait for the first
// row's frees and take their buffers: two allocations for four tiles, and
// C's second tile, which must start as zeros, is cleared of the first's.
TEST_F(EngineTest, FreedBuffersAreReusedWithinTheBudget) {
  std::vector<float> a = makeFiles();
  wire::StartJob spec = job(directory + "/a.tensor");
  for (wire::Instruction &instruction :
       *spec.mutable_segment()->mutable_instructions())
    if (instruction.kind() == wire::Instruction::ALLOCATE && instruction.tile() >= 2)
      instruction.set_zero(true);
  EngineOptions options;
  options.memoryBudget = 128;
  ReusingAccumulator backend;
  wire::Heartbeat last;
  std::vector<float> c = runToTheEnd(backend, spec, options, last);
  for (int i = 0; i < 32; ++i)
    EXPECT_EQ(c[i], 2 * a[i]) << "element " << i;
  EXPECT_EQ(backend.allocations, 2);
  EXPECT_EQ(last.stats().peak_bytes(), 128);
  EXPECT_EQ(last.stats().resident_bytes(), 0);
}

// Every retired instruction carries when it ran (the summary's measured
// timeline): a start and an end since the job started on the pod, the end
// not before the start, and each start not before its dependencies' ends.
TEST_F(EngineTest, RetiredInstructionsCarryWhenTheyRan) {
  storage::TensorInfo info;
  info.shape = {4, 8};
  std::vector<float> a(32, 1.0f);
  absl::StatusOr<storage::TensorFile> input =
      storage::TensorFile::create(directory + "/a.tensor", info);
  ASSERT_TRUE(input.ok());
  ASSERT_TRUE(input->writeBytes(0, 128, a.data()).ok());
  ASSERT_TRUE(storage::TensorFile::create(directory + "/c.partial", info).ok());

  Doubler backend;
  Credentials credentials;
  credentials.insecure = true;
  bool failed = false;
  wire::StartJob spec = job(directory + "/a.tensor");
  JobRun run(backend, credentials, spec, EngineOptions(),
             [&](const wire::JobFailure &) { failed = true; });
  ASSERT_TRUE(run.start().ok());
  std::map<uint64_t, std::pair<int64_t, int64_t>> times;
  absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (times.size() < 14 && absl::Now() < deadline && !failed) {
    wire::Heartbeat heartbeat;
    run.takeReport(heartbeat);
    for (const wire::Retired &done : heartbeat.retired()) {
      ASSERT_TRUE(done.has_start_ns() && done.has_end_ns())
          << "instruction " << done.instruction();
      times[done.instruction()] = {done.start_ns(), done.end_ns()};
    }
    absl::SleepFor(absl::Milliseconds(10));
  }
  ASSERT_FALSE(failed);
  ASSERT_EQ(times.size(), 14u);
  for (const wire::Instruction &instruction : spec.segment().instructions()) {
    auto [start, end] = times.at(instruction.id());
    EXPECT_GE(start, 0) << "instruction " << instruction.id();
    EXPECT_LE(start, end) << "instruction " << instruction.id();
    for (uint64_t dep : instruction.deps())
      EXPECT_GE(start, times.at(dep).second)
          << "instruction " << instruction.id() << " after " << dep;
  }
}

TEST_F(EngineTest, AFailedLoadEndsTheJobNamingTheFile) {
  ASSERT_TRUE(storage::TensorFile::create(directory + "/c.partial",
                                          storage::TensorInfo{storage::Format::Raw,
                                                              ElementType::F32,
                                                              {4, 8}, 0})
                  .ok());
  Doubler backend;
  Credentials credentials;
  credentials.insecure = true;
  absl::Notification failed;
  std::string message;
  JobRun run(backend, credentials, job(directory + "/missing.tensor"),
             EngineOptions(), [&](const wire::JobFailure &failure) {
               if (!failed.HasBeenNotified()) {
                 message = failure.message();
                 failed.Notify();
               }
             });
  ASSERT_TRUE(run.start().ok());
  ASSERT_TRUE(failed.WaitForNotificationWithTimeout(absl::Seconds(30)));
  EXPECT_NE(message.find("load A["), std::string::npos) << message;
  EXPECT_NE(message.find("missing.tensor: cannot open: No such file or directory"),
            std::string::npos)
      << message;
}

TEST_F(EngineTest, MalformedSegmentsAreRefused) {
  wire::StartJob start = job(directory + "/a.tensor");
  // An instruction that depends on one after it.
  start.mutable_segment()->mutable_instructions(0)->add_deps(5);
  Doubler backend;
  Credentials credentials;
  credentials.insecure = true;
  JobRun run(backend, credentials, start, EngineOptions(), nullptr);
  absl::Status status = run.start();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(status.message()),
            "instruction #0 depends on #5, which does not come before it");
}

TEST_F(EngineTest, TilesAreServedOnlyToTheJobsFetchers) {
  // Node 0 holds A[0] (tile 0) for node 1, and nobody else.
  wire::StartJob start = job(directory + "/a.tensor");
  wire::ServeSpec *serve = start.add_serves();
  serve->set_tile(0);
  serve->add_nodes(1);
  Doubler backend;
  Credentials credentials;
  credentials.insecure = true;
  JobRun run(backend, credentials, start, EngineOptions(), nullptr);
  grpc::ServerContext context;
  auto ask = [&](uint64_t jobId, const std::string &token, uint32_t tile,
                 uint32_t node) {
    wire::FetchRequest request;
    request.set_job_id(jobId);
    request.set_token(token);
    request.set_tile(tile);
    request.set_node(node);
    // Refusals come before anything is written.
    return run.serveFetch(context, request, nullptr);
  };
  grpc::Status otherJob = ask(8, "token", 0, 1);
  EXPECT_EQ(otherJob.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(otherJob.error_message(),
            "tile 0 was asked for by a pod of another job; this pod runs job "
            "0000000000000007");
  // The job's id without its token is another job too.
  EXPECT_EQ(ask(7, "guessed", 0, 1).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  grpc::Status notAFetcher = ask(7, "token", 0, 2);
  EXPECT_EQ(notAFetcher.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(notAFetcher.error_message(),
            "node 2 is not a fetcher of tile 0 in this job");
  grpc::Status notServed = ask(7, "token", 1, 1);
  EXPECT_EQ(notServed.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(notServed.error_message(), "node 0 holds no tile 1 for others");
  // The right fetcher waits for the load; a job that ends answers it.
  run.stop();
  grpc::Status ended = ask(7, "token", 0, 1);
  EXPECT_EQ(ended.error_code(), grpc::StatusCode::ABORTED);
  EXPECT_EQ(ended.error_message(), "the job has ended");
}

} // namespace
